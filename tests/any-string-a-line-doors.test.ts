import { execFileSync } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
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
import { startHarness, type RuntimeHarness } from './support/runtime-harness.ts'

/**
 * A server may type any string it is given into a shell it started
 * (Desktop Commander's `interact_with_process { pid, input }`), and an
 * ACP agent's own tool may run any field of its raw input: a string under
 * a key no rule lists is a line a shell reads, whose braces, quotes,
 * escapes and globs make `.git/hooks/post-merge` of words that do not
 * spell it. One table of such strings, walked through every door that
 * may answer without the person: the rule itself (an MCP tool and an ACP
 * agent's tool), a grant for the tool and one for every tool of its
 * server at the gateway, and the reviewer and the webhook that allow
 * everything for an external agent, on a real repository where a shell
 * reading the string rewrites the hook. The controls beside them are
 * answered at every door. Doors with no such string are not walked:
 * Codex's command is a command line the shell rule reads whole
 * (git-spellings-doors), and Assent's own tools take no free field a
 * shell reads. A hook rewritten in place is not found by the walk after
 * a call nothing contains (it finds what was made), so the judgment
 * before it is the one door that holds.
 */

const HOOK = '.git/hooks/post-merge'

const LINES: ReadonlyArray<readonly [string, string]> = [
  ['a glob', 'cp x .gi?/hooks/post-merge'],
  ['a glob class', 'cp x .gi[t]/hooks/post-merge'],
  ['braces', 'cp x {.git/hooks/post-merge,}'],
  ['braces inside a name', 'cp x .g{i,}t/hooks/post-merge'],
  ['a brace sequence', 'cp x .gi{s..u}/hooks/post-merge'],
  ['quotes inside a name', 'cp x .g""it/hooks/post-merge'],
  ['a backslash inside a name', 'cp x .gi\\t/hooks/post-merge'],
]

/** Where a tool takes the string: a terminal server's input, and a key
 *  nested in a list of steps. */
const PLACES: ReadonlyArray<readonly [string, (line: string) => Record<string, unknown>]> = [
  ['input', (line) => ({ pid: 12, input: line })],
  ['a step', (line) => ({ steps: [{ type: 'keys', text: line }] })],
]

const SPELLINGS = PLACES.flatMap(([where, call]) =>
  LINES.map(([name, line]) => [`${name} as ${where}`, call(line)] as const),
)

const CONTROLS: ReadonlyArray<Record<string, unknown>> = [
  { pid: 12, input: 'ls docs/*.txt' },
  { pid: 12, input: 'cat docs/{ok,more}.txt' },
  { steps: [{ type: 'keys', text: 'wc -l "docs/ok.txt"' }] },
  { name: 'notes.md', text: "**Bold**, {a,b} and it's fine" },
]

const MAC = new IntegrityMac(Buffer.alloc(32, 19))
const AGENT: AgentIdentity = { id: 'zed', name: 'Zed agent', protocol: 'acp' }

/** A repository whose post-merge hook exists, as the globs need. */
function layRepository(workspace: string): void {
  execFileSync('git', ['init', '-q'], { cwd: workspace })
  writeFileSync(join(workspace, HOOK), 'original\n')
  mkdirSync(join(workspace, 'docs'))
  writeFileSync(join(workspace, 'docs', 'ok.txt'), 'ok\n')
  writeFileSync(join(workspace, 'x'), 'evil\n')
}

describe('the rule every door applies', () => {
  let workspace: string
  let place: ReturnType<typeof askerWorldInTempWorkspace>
  const asMcpTool = (call: Record<string, unknown>): ActionTouch =>
    mcpTouch({ serverId: 'terminal', toolName: 'interact', arguments: call }, workspace)
  const asAgentTool = (call: Record<string, unknown>): ActionTouch => ({
    toolName: AGENT_TOOL_CALL_TOOL,
    arguments: { agent: AGENT, toolKind: 'other', title: 'Type', input: call },
    workspace,
  })

  beforeAll(() => {
    place = askerWorldInTempWorkspace('assent-any-string-rule-', MAC, AGENT)
    workspace = place.workspace
    layRepository(workspace)
  })
  afterAll(() => place.dispose())

  it.each(SPELLINGS)('needs the person for %s', (_name, call) => {
    expect(personOnlyReason(asMcpTool(call))).not.toBeNull()
    expect(personOnlyReason(asAgentTool(call))).not.toBeNull()
  })

  it.each(CONTROLS)('lets a door answer for %j', (call) => {
    expect(personOnlyReason(asMcpTool(call))).toBeNull()
    expect(personOnlyReason(asAgentTool(call))).toBeNull()
  })
})

describe("an external agent's tool call, on a real repository", () => {
  let place: ReturnType<typeof askerWorldInTempWorkspace>
  const hook = () => readFileSync(join(place.workspace, HOOK), 'utf8')
  const toolCall = (call: Record<string, unknown>) =>
    codexRequest({ kind: 'tool', toolKind: 'other', title: 'Type', input: call, locations: [] })

  beforeEach(() => {
    place = askerWorldInTempWorkspace('assent-any-string-', MAC, AGENT)
    layRepository(place.workspace)
  })
  afterEach(() => place.dispose())

  it.each(ALLOWING_DECIDERS)(
    'control: $by answers a harmless line, and a shell reading a spelling rewrites the hook',
    async (decider) => {
      const { asker } = place.world.askerUnder(policyForMode(decider.mode), decider.parts)
      const answer = await asker.ask(toolCall(CONTROLS[0] ?? {}), new AbortController().signal)
      expect(answer).toBe('allow-once')
      execFileSync('bash', ['-c', LINES[0]?.[1] ?? ''], { cwd: place.workspace })
      expect(hook()).toBe('evil\n')
    },
  )

  it.each(SPELLINGS)('is left to the person by the reviewer and the webhook: %s', (_n, call) =>
    leftToThePersonByEach(place.world, () => toolCall(call)),
  )
})

describe.each<ApprovalDecision>(['allow-always', 'allow-always-server'])(
  'a grant (%s) for a terminal tool called through the gateway',
  (decision) => {
    const HASH = 'e'.repeat(64)
    let harness: RuntimeHarness
    let workspace: string
    let grantId: string

    const openCall = (call: Record<string, unknown>): Promise<GatewayCallState> =>
      openGatewayCall(harness, {
        ...putFileRequest(workspace, call, HASH),
        serverId: 'terminal',
        serverName: 'Terminal',
        toolName: 'interact',
        toolDescription: 'Types input into a process the server started.',
        serverTools: { names: ['interact'], hash: HASH },
      })

    beforeAll(async () => {
      harness = await startHarness()
      workspace = join(harness.root, 'any-string')
      mkdirSync(workspace)
      layRepository(workspace)
      const first = await openCall({ pid: 12, input: 'ls' })
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

    it.each(SPELLINGS)('never answers for %s: the call waits for the person', async (_n, call) => {
      const state = await openCall(call)
      expect(state).toMatchObject({ status: 'pending', grantId: null })
      const view = await harness.client.getApproval(state.approvalId ?? '')
      expect(view.alwaysAllowAvailable).toBe(false)
      expect((await decide(harness, view, 'deny')).status).toBe(200)
    })
  },
)
