import { execFileSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { AGENT_TOOL_CALL_TOOL, type AgentIdentity } from '../src/contracts/agent-request.ts'
import type { ApprovalDecision } from '../src/contracts/consent.ts'
import type { GatewayCallState } from '../src/contracts/mcp-gateway.ts'
import { policyForMode } from '../src/runtime/policy/permission-modes.ts'
import { mcpTouch, personOnlyReason, type ActionTouch } from '../src/runtime/policy/person-only.ts'
import { IntegrityMac } from '../src/runtime/store/integrity-mac.ts'
import {
  askerWorldInTempWorkspace,
  codexRequest,
} from '../src/runtime/test-support/external-asker.ts'
import { ALLOWING_DECIDERS, leftToThePersonByEach } from './support/allowing-deciders.ts'
import { openGatewayCall, putFileRequest } from './support/gateway-call-request.ts'
import { decide, roomGrants } from './support/policy-helpers.ts'
import { realGit } from './support/real-git.ts'
import { startHarness, type RuntimeHarness } from './support/runtime-harness.ts'

/**
 * A shell tool of an MCP server, or an ACP agent's tool call, may take
 * the environment its command runs with beside the command (`{ command,
 * env }`): a variable set there is set as the line's own `NAME=value`
 * is. One table of such environments, each of which the rule leaves to
 * the person when the line sets it (git's settings and folder, how the
 * shell makes names), walked through every door that may answer without
 * the person: the rule itself, a grant for the tool and one for every
 * tool of its server at the gateway, and the reviewer and the webhook
 * that allow everything for an external agent (on a real repository,
 * where git honours the variables). The controls beside them set
 * variables no rule keeps, and are answered at every door. Doors with no
 * environment beside the command are not walked: Codex's command carries
 * none (a variable it sets is in its line, which the shell rule reads),
 * and Assent's own `run_command` takes none (its schema refuses an
 * unknown field).
 */

/** A call's arguments: the command and what it sets beside it. */
type Call = Record<string, unknown>

const HOOKS_BY_ENVIRONMENT = {
  GIT_CONFIG_COUNT: '1',
  GIT_CONFIG_KEY_0: 'core.hooksPath',
  GIT_CONFIG_VALUE_0: 'docs',
}

const SPELLINGS: ReadonlyArray<readonly [string, Call]> = [
  ['an object', { command: 'git commit -qm x', env: HOOKS_BY_ENVIRONMENT }],
  [
    'a number',
    { command: 'git commit -qm x', env: { ...HOOKS_BY_ENVIRONMENT, GIT_CONFIG_COUNT: 1 } },
  ],
  ['an argv', { command: ['git', 'commit', '-qm', 'x'], environment: HOOKS_BY_ENVIRONMENT }],
  [
    "ACP's list of names and values",
    {
      command: 'git status',
      env: [{ name: 'GIT_CONFIG_PARAMETERS', value: "'core.fsmonitor'='x'" }],
    },
  ],
  ['a list of assignments', { command: 'git status', env: ['GIT_EXEC_PATH=docs'] }],
  ['lines of assignments', { command: 'git init -q', env: 'LANG=C\nGIT_TEMPLATE_DIR=docs' }],
  ["git's folder", { cmd: 'git init -q', env_vars: { GIT_DIR: 'docs' } }],
  ["spawn's options", { command: 'git', args: ['status'], options: { env: { GIT_DIR: 'docs' } } }],
  ['a shell option', { command: 'cp x */hooks/post-merge', env: { BASHOPTS: 'dotglob' } }],
  ['names a glob ignores', { command: 'cp x */hooks/post-merge', env: { GLOBIGNORE: 'x' } }],
  ["the shell's start-up file", { command: 'bash -c "ls"', env: { BASH_ENV: 'docs/x.sh' } }],
]

const CONTROLS: readonly Call[] = [
  { command: 'git status', env: { LANG: 'C.UTF-8', CI: '1' } },
  { command: 'git log --oneline', env: ['PAGER=cat'] },
  { command: ['ls', 'docs'], env: [{ name: 'TERM', value: 'dumb' }] },
  { command: 'git status', options: { env: { NO_COLOR: '1' } } },
]

const MAC = new IntegrityMac(Buffer.alloc(32, 17))
const AGENT: AgentIdentity = { id: 'zed', name: 'Zed agent', protocol: 'acp' }

describe('the rule every door applies', () => {
  const workspace = '/nonexistent/assent-command-environment'
  const asMcpShell = (call: Call): ActionTouch =>
    mcpTouch({ serverId: 'shell', toolName: 'execute', arguments: call }, workspace)
  const asAgentTool = (call: Call): ActionTouch => ({
    toolName: AGENT_TOOL_CALL_TOOL,
    arguments: { agent: AGENT, toolKind: 'execute', title: 'Run', input: call },
    workspace,
  })

  it.each(SPELLINGS)('needs the person for the environment as %s', (_name, call) => {
    expect(personOnlyReason(asMcpShell(call))).not.toBeNull()
    expect(personOnlyReason(asAgentTool(call))).not.toBeNull()
  })

  it.each(CONTROLS)('lets a door answer for %j', (call) => {
    expect(personOnlyReason(asMcpShell(call))).toBeNull()
    expect(personOnlyReason(asAgentTool(call))).toBeNull()
  })
})

describe("an external agent's tool call, on a real repository", () => {
  let place: ReturnType<typeof askerWorldInTempWorkspace>
  const ran = () => join(place.workspace, 'ran.txt')
  const toolCall = (call: Call) =>
    codexRequest({ kind: 'tool', toolKind: 'execute', title: 'Run', input: call, locations: [] })

  beforeEach(() => {
    place = askerWorldInTempWorkspace('assent-command-environment-', MAC, AGENT)
    realGit(place.root, place.workspace, 'init', '-q')
    mkdirSync(join(place.workspace, 'docs'))
    writeFileSync(join(place.workspace, 'docs', 'pre-commit'), '#!/bin/sh\necho ran > ran.txt\n')
    chmodSync(join(place.workspace, 'docs', 'pre-commit'), 0o755)
  })
  afterEach(() => place.dispose())

  it.each(ALLOWING_DECIDERS)(
    'control: $by answers a harmless environment, and git runs the hooks one names',
    async (decider) => {
      const { asker } = place.world.askerUnder(policyForMode(decider.mode), decider.parts)
      const answer = await asker.ask(toolCall(CONTROLS[0] ?? {}), new AbortController().signal)
      expect(answer).toBe('allow-once')
      execFileSync(
        'git',
        ['-c', 'user.name=a', '-c', 'user.email=a@x', 'commit', '-q', '--allow-empty', '-m', 'x'],
        {
          cwd: place.workspace,
          env: { ...process.env, GIT_CEILING_DIRECTORIES: place.root, ...HOOKS_BY_ENVIRONMENT },
        },
      )
      expect(existsSync(ran())).toBe(true)
    },
  )

  it.each(SPELLINGS)(
    'is left to the person by the reviewer and the webhook: the environment as %s',
    async (_name, call) => {
      await leftToThePersonByEach(place.world, () => toolCall(call))
    },
  )
})

describe.each<ApprovalDecision>(['allow-always', 'allow-always-server'])(
  'a grant (%s) for an MCP shell tool called through the gateway',
  (decision) => {
    const HASH = 'd'.repeat(64)
    let harness: RuntimeHarness
    let workspace: string
    let grantId: string

    const openCall = (call: Call): Promise<GatewayCallState> =>
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
      workspace = join(harness.root, 'command-environment')
      mkdirSync(workspace)
      execFileSync('git', ['init', '-q'], { cwd: workspace })
      const first = await openCall({ command: 'git status' })
      const view = await harness.client.getApproval(first.approvalId ?? '')
      expect((await decide(harness, view, decision)).status).toBe(200)
      const [grant] = await roomGrants(harness, first.roomId)
      expect(grant?.scope).toBe(decision === 'allow-always' ? 'mcp' : 'mcp-server')
      grantId = grant?.id ?? ''
    })
    afterAll(async () => {
      await harness?.close()
    })

    it.each(CONTROLS)('answers for %j: the call is allowed by the grant', async (call) => {
      expect(await openCall(call)).toMatchObject({ status: 'allowed', grantId, approvalId: null })
    })

    it.each(SPELLINGS)(
      'never answers for the environment as %s: the call waits for the person',
      async (_name, call) => {
        const state = await openCall(call)
        expect(state).toMatchObject({ status: 'pending', grantId: null })
        const view = await harness.client.getApproval(state.approvalId ?? '')
        expect(view.alwaysAllowAvailable).toBe(false)
        expect((await decide(harness, view, 'deny')).status).toBe(200)
      },
    )
  },
)
