import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import {
  AGENT_COMMAND_TOOL,
  AGENT_TOOL_CALL_TOOL,
  type AgentIdentity,
} from '../src/contracts/agent-request.ts'
import type { ApprovalDecision } from '../src/contracts/consent.ts'
import type { GatewayCallState } from '../src/contracts/mcp-gateway.ts'
import { policyForMode } from '../src/runtime/policy/permission-modes.ts'
import { mcpTouch, personOnlyReason, type ActionTouch } from '../src/runtime/policy/person-only.ts'
import { IntegrityMac } from '../src/runtime/store/integrity-mac.ts'
import { askerWorldInTempWorkspace } from '../src/runtime/test-support/external-asker.ts'
import {
  agentCommandRequests,
  ALLOWING_DECIDERS,
  answersEach,
  commandLeftToThePersonByEach,
} from './support/allowing-deciders.ts'
import { openGatewayCall, putFileRequest } from './support/gateway-call-request.ts'
import { decide, roomGrants } from './support/policy-helpers.ts'
import { startHarness, type RuntimeHarness } from './support/runtime-harness.ts'

/**
 * A command that reaches the person's desktop session: the display, where
 * an X11 or Wayland client types and clicks in any window (Assent's
 * protected window, where the person answers, among them); the session
 * bus, through which the Secret Service hands out their passwords; their
 * SSH and GPG agents, which sign as them. Assent gives none of these to
 * what it starts for an agent, so such a command names one: a variable
 * set for it, or a socket's path. A command in Assent's sandbox reaches
 * none (no network, no Unix-domain socket, a `/tmp` and `/run` of its
 * own: command-sandbox.test.ts); an external agent's command, an ACP
 * agent's own tool and an MCP shell tool run outside it, with the
 * person's rights. One table of such commands, walked through every door
 * that may answer without the person: the rule itself for each, the
 * reviewer and the webhook that allow everything for an external agent,
 * and a grant for an MCP shell tool and one for every tool of its server
 * at the gateway; each row was answered at every door before. The
 * controls are answered.
 */

const SESSION_LINES: readonly string[] = [
  'DISPLAY=:0 xdotool key Return',
  'env DISPLAY=:0 xdotool mousemove 640 400 click 1',
  'export DISPLAY=:0; xdotool key Return',
  'WAYLAND_DISPLAY=wayland-0 wtype -k Return',
  'xdpyinfo -display :0',
  'DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/1000/bus secret-tool lookup service github',
  'dbus-send --bus=unix:path=/run/user/1000/bus --dest=org.freedesktop.secrets /org/freedesktop/secrets x.y.z',
  'XDG_RUNTIME_DIR=/run/user/1000 busctl --user list',
  'SSH_AUTH_SOCK=/run/user/1000/ssh-agent.socket ssh-add -L',
  'socat - UNIX-CONNECT:/tmp/.X11-unix/X0',
  'cat ~/.Xauthority',
  'xauth list',
]

/** An MCP shell tool given the variable beside its command. */
const BESIDE = { command: 'xdotool key Return', env: { DISPLAY: ':0' } }

const CONTROLS: readonly string[] = ['ls docs', 'echo display ready', 'grep -r authority docs']

const MAC = new IntegrityMac(Buffer.alloc(32, 31))
const AGENT: AgentIdentity = { id: 'codex', name: 'Codex CLI', protocol: 'codex-app-server' }

describe('the rule every door applies', () => {
  const workspace = '/nonexistent/assent-person-session'
  const asAgent = (commandLine: string): ActionTouch => ({
    toolName: AGENT_COMMAND_TOOL,
    arguments: { commandLine, argv: null, cwd: workspace },
    workspace,
  })
  const asMcpShell = (call: Record<string, unknown>): ActionTouch =>
    mcpTouch({ serverId: 'shell', toolName: 'execute', arguments: call }, workspace)
  const asAgentTool = (command: string): ActionTouch => ({
    toolName: AGENT_TOOL_CALL_TOOL,
    arguments: { toolKind: 'execute', title: 'Run', input: { command, workdir: workspace } },
    workspace,
  })

  it.each(SESSION_LINES)('needs the person for %s', (line) => {
    for (const touch of [asAgent(line), asMcpShell({ command: line }), asAgentTool(line)]) {
      expect(personOnlyReason(touch)).toMatchObject({ class: 'person-session' })
    }
  })

  it('needs the person for the display given beside an MCP shell tool’s command', () => {
    expect(personOnlyReason(asMcpShell(BESIDE))).toMatchObject({ class: 'person-session' })
  })

  it.each(CONTROLS)('lets a door answer for %s', (line) => {
    expect(personOnlyReason(asAgent(line))).toBeNull()
    expect(personOnlyReason(asMcpShell({ command: line }))).toBeNull()
    expect(personOnlyReason(asAgentTool(line))).toBeNull()
  })
})

describe("an external agent's command", () => {
  let place: ReturnType<typeof askerWorldInTempWorkspace>

  beforeEach(() => {
    place = askerWorldInTempWorkspace('assent-person-session-', MAC, AGENT)
    mkdirSync(join(place.workspace, 'docs'))
  })
  afterEach(() => place.dispose())

  it.each(ALLOWING_DECIDERS)('control: $by answers ls docs', async (decider) => {
    const { asker } = place.world.askerUnder(policyForMode(decider.mode), decider.parts)
    await answersEach(asker, agentCommandRequests('ls docs', place.workspace))
  })

  it.each(SESSION_LINES)('is left to the person by the reviewer and the webhook: %s', (line) =>
    commandLeftToThePersonByEach(place.world, line, place.workspace),
  )
})

describe.each<ApprovalDecision>(['allow-always', 'allow-always-server'])(
  'a grant (%s) for an MCP shell tool called through the gateway',
  (decision) => {
    const HASH = 'e'.repeat(64)
    let harness: RuntimeHarness
    let workspace: string
    let grantId: string

    const openCall = (call: Record<string, unknown>): Promise<GatewayCallState> =>
      openGatewayCall(harness, {
        ...putFileRequest(workspace, call, HASH),
        serverId: 'shell',
        serverName: 'Shell',
        toolName: 'execute',
        toolDescription: 'Runs a command line with the environment given.',
        serverTools: { names: ['execute'], hash: HASH },
      })

    beforeAll(async () => {
      harness = await startHarness()
      workspace = join(harness.root, 'person-session')
      mkdirSync(join(workspace, 'docs'), { recursive: true })
      const first = await openCall({ command: 'ls docs' })
      const view = await harness.client.getApproval(first.approvalId ?? '')
      expect((await decide(harness, view, decision)).status).toBe(200)
      const [grant] = await roomGrants(harness, first.roomId)
      expect(grant?.scope).toBe(decision === 'allow-always' ? 'mcp' : 'mcp-server')
      grantId = grant?.id ?? ''
    })
    afterAll(async () => {
      await harness?.close()
    })

    it('answers for the control: the call is allowed by the grant', async () => {
      expect(await openCall({ command: 'echo display ready' })).toMatchObject({
        status: 'allowed',
        grantId,
        approvalId: null,
      })
    })

    it.each([...SESSION_LINES.map((command) => ({ command })), BESIDE])(
      'never answers for %j: the call waits for the person',
      async (call) => {
        const state = await openCall(call)
        expect(state).toMatchObject({ status: 'pending', grantId: null })
        const view = await harness.client.getApproval(state.approvalId ?? '')
        expect(view.alwaysAllowAvailable).toBe(false)
        expect((await decide(harness, view, 'deny')).status).toBe(200)
      },
    )
  },
)
