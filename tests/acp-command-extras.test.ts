import { mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { homedir, tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { ExternalAgentConfigSchema, type AcpAgentConfig } from '../src/contracts/agents-config.ts'
import type { AgentIdentity } from '../src/contracts/agent-request.ts'
import type { ApprovalRecord } from '../src/contracts/approval.ts'
import type { Grant } from '../src/contracts/room.ts'
import { grantForDecision } from '../src/runtime/agent/grant-issuer.ts'
import { AcpClient } from '../src/runtime/external-agents/acp-client.ts'
import { AcpToolCallSchema } from '../src/runtime/external-agents/acp-messages.ts'
import { acpAction } from '../src/runtime/external-agents/acp-tool-call-reading.ts'
import type {
  ExternalActionRequest,
  ExternalAgentEvent,
  ExternalRefusalCode,
} from '../src/runtime/external-agents/external-agent-port.ts'
import { policyForMode } from '../src/runtime/policy/permission-modes.ts'
import { IntegrityMac } from '../src/runtime/store/integrity-mac.ts'
import { ExternalAskerWorld } from '../src/runtime/test-support/external-asker.ts'
import { ROOM_ID } from '../src/runtime/test-support/sqlite-stores.ts'
import { ScriptedAsker } from './support/external-agent-testbed.ts'
import { scriptedAgentEntry, scriptedAnswers } from './support/scripted-agent-config.ts'
import { grantStoredBeforeTheRules } from './support/stored-agent-grants.ts'

/**
 * What an ACP `execute` call may carry beside its command, walked through
 * the ACP door: the person's window (a scripted agent asking), a grant for
 * the bare command line, and the approve-for-me reviewer.
 *
 * codex-acp (0.16) forwards Codex's exec approval whole as the raw input,
 * and its allow-once answer runs the command with everything in it: extra
 * folders to write (`additional_permissions`), a host to reach
 * (`network_approval_context`), network rules, other sandbox permissions.
 * Its `request_permissions` (a `permissions` profile) widens the sandbox
 * for the rest of the turn. These are refused without asking anyone, as
 * the Codex app-server door refuses them. claude-agent-acp's Bash runs
 * its input as sent: `run_in_background: true` outlives the turn. That and
 * any other field Assent does not know (a folder under another key, an
 * environment) make the call the agent's own tool, shown whole, which no
 * command grant answers. What the pinned agents send that says nothing of
 * what runs stays a command.
 */

const SSH = join(homedir(), '.ssh')
const MAC = new IntegrityMac(Buffer.alloc(32, 9))
const AGENT: AgentIdentity = { id: 'acp-agent', name: 'An ACP agent', protocol: 'acp' }
const SESSION = 'scripted-session'

let dir: string
let world: ExternalAskerWorld | undefined
let closeClient: (() => Promise<void>) | undefined

beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'assent-acp-extras-')))
})

afterEach(async () => {
  await closeClient?.()
  closeClient = undefined
  world?.close()
  world = undefined
  rmSync(dir, { recursive: true, force: true })
})

/** codex-acp's exec approval, as its `exec_approval` builds it. */
const codexExec = (extra: Record<string, unknown>, callId = 'call-1') => ({
  toolCallId: callId,
  kind: 'execute',
  status: 'pending',
  title: 'sh build.sh',
  rawInput: {
    call_id: callId,
    turn_id: 'turn-1',
    command: ['/bin/bash', '-lc', 'sh build.sh'],
    cwd: dir,
    reason: null,
    parsed_cmd: [{ type: 'unknown', cmd: 'sh build.sh' }],
    ...extra,
  },
})

/** claude-agent-acp's permission request for its Bash tool. */
const claudeBash = (extra: Record<string, unknown>, callId = 'toolu_1') => ({
  toolCallId: callId,
  kind: 'execute',
  title: 'sh build.sh',
  rawInput: { command: 'sh build.sh', description: 'Build', ...extra },
  content: [{ type: 'content', content: { type: 'text', text: 'Build' } }],
})

/** codex-acp's "Permissions Request" for Codex's `request_permissions`. */
const codexPermissions = (_extra: unknown, callId = 'perm-1') => ({
  toolCallId: callId,
  status: 'pending',
  title: 'Run the tests',
  rawInput: {
    call_id: callId,
    turn_id: 'turn-1',
    reason: 'Run the tests',
    permissions: {
      file_system: { entries: [{ path: { type: 'path', path: SSH }, access: 'write' }] },
      network: { enabled: true },
    },
    cwd: dir,
  },
  content: [
    {
      type: 'content',
      content: { type: 'text', text: `Run the tests\nFile System Write Access: ${SSH}` },
    },
  ],
})

const OPTIONS = [
  { optionId: 'approved', name: 'Yes, proceed', kind: 'allow_once' },
  { optionId: 'approved-for-session', name: 'Yes, for this session', kind: 'allow_always' },
  { optionId: 'abort', name: 'No', kind: 'reject_once' },
]

type Reading =
  /** Refused without asking, the timeline saying why in these words. */
  | { refused: ExternalRefusalCode; words: string }
  /** The agent's own tool, its raw input whole, which names `needle`. */
  | { whole: string }
  /** The command line, as the window shows one. */
  | { command: { commandLine: string; argv: string[] | null } }

interface Row {
  name: string
  call: (extra: Record<string, unknown>, callId?: string) => Record<string, unknown>
  extra: Record<string, unknown>
  reads: Reading
}

const CODEX_LINE = {
  commandLine: "/bin/bash -lc 'sh build.sh'",
  argv: ['/bin/bash', '-lc', 'sh build.sh'],
}
const CLAUDE_LINE = { commandLine: 'sh build.sh', argv: null }
const EXTRA_PERMISSIONS = 'it asked for extra permissions besides the command'
const NETWORK = 'it asked for network access, which the command line does not show'

const ROWS: Row[] = [
  {
    name: 'codex-acp asking to write ~/.ssh too',
    call: codexExec,
    extra: {
      additional_permissions: { file_system: { write: [SSH] } },
      available_decisions: ['approved', 'approved_for_session', 'abort'],
    },
    reads: { refused: 'extra-permissions', words: EXTRA_PERMISSIONS },
  },
  {
    name: 'codex-acp asking to reach a host',
    call: codexExec,
    extra: {
      network_approval_context: { host: 'exfil.example.net', protocol: 'https' },
      available_decisions: ['approved', 'abort'],
    },
    reads: { refused: 'network-access', words: NETWORK },
  },
  {
    name: 'codex-acp proposing a network rule',
    call: codexExec,
    extra: { proposed_network_policy_amendments: [{ host: 'exfil.example.net', action: 'allow' }] },
    reads: { refused: 'network-access', words: NETWORK },
  },
  {
    name: 'codex-acp asking for other sandbox permissions',
    call: codexExec,
    extra: { sandbox_permissions: 'require_escalated' },
    reads: { refused: 'extra-permissions', words: EXTRA_PERMISSIONS },
  },
  {
    name: 'codex-acp asking for a wider sandbox for the turn',
    call: codexPermissions,
    extra: {},
    reads: { refused: 'unsupported-request', words: 'Assent does not serve that kind of request' },
  },
  {
    name: 'claude-agent-acp running it in the background',
    call: claudeBash,
    extra: { run_in_background: true },
    reads: { whole: 'run_in_background' },
  },
  {
    name: 'claude-agent-acp outside its sandbox',
    call: claudeBash,
    extra: { dangerouslyDisableSandbox: true },
    reads: { whole: 'dangerouslyDisableSandbox' },
  },
  {
    name: 'a folder as workdir',
    call: claudeBash,
    extra: { workdir: '/etc' },
    reads: { whole: 'workdir' },
  },
  {
    name: 'a folder as directory beside the cwd',
    call: codexExec,
    extra: { directory: '/etc' },
    reads: { whole: 'directory' },
  },
  {
    name: 'an environment',
    call: claudeBash,
    extra: { env: { LD_PRELOAD: '/tmp/x.so' } },
    reads: { whole: 'LD_PRELOAD' },
  },
  {
    name: 'codex-acp with nothing more',
    call: codexExec,
    extra: {},
    reads: { command: CODEX_LINE },
  },
  {
    name: 'codex-acp with what it sends of every exec approval',
    call: codexExec,
    extra: {
      approval_id: 'approval-1',
      started_at_ms: 1_700_000_000_000,
      available_decisions: ['approved', 'abort'],
      proposed_execpolicy_amendment: ['sh', 'build.sh'],
      additional_permissions: null,
      network_approval_context: null,
    },
    reads: { command: CODEX_LINE },
  },
  {
    name: 'claude-agent-acp with a timeout, in the foreground',
    call: claudeBash,
    extra: { timeout: 60_000, run_in_background: false, dangerouslyDisableSandbox: false },
    reads: { command: CLAUDE_LINE },
  },
]
const refusedRows = ROWS.filter((row) => 'refused' in row.reads)
const askedRows = ROWS.filter((row) => !('refused' in row.reads))

/** A world whose allow-always stores what `grantFor` gives: by default
 *  the grant the runtime makes now. */
function newWorld(grantFor?: (approval: ApprovalRecord) => Grant | undefined): ExternalAskerWorld {
  let clock = 1_000
  world = new ExternalAskerWorld({
    prefix: 'assent-acp-extras-db-',
    mac: MAC,
    agent: AGENT,
    workspace: dir,
    now: () => (clock += 1),
    grantFor: grantFor ?? ((approval) => grantForDecision(approval, { now: () => clock })),
  })
  return world
}

/** The request the ACP client makes of a tool call it reads as an action. */
function request(toolCall: unknown): ExternalActionRequest {
  const parsed = AcpToolCallSchema.parse(toolCall)
  const reading = acpAction(parsed, dir)
  if ('refused' in reading) throw new Error(`refused: ${reading.detail}`)
  return {
    requestId: `acp:${SESSION}:${parsed.toolCallId}`,
    protocol: 'acp',
    sessionId: SESSION,
    toolCallId: parsed.toolCallId,
    reason: null,
    sandboxMode: 'danger-full-access',
    action: reading.action,
  }
}

const pendingApproval = (w: ExternalAskerWorld, except?: string) =>
  w.stores.approvals.listByRoom(ROOM_ID).find((a) => a.status === 'pending' && a.id !== except)

describe("the person's window", () => {
  it.each(ROWS)('$name', async ({ call, extra, reads }) => {
    const w = newWorld()
    const { timeline } = w.askerUnder(policyForMode('ask-for-approval'))
    const events: ExternalAgentEvent[] = []
    const toolCall = call(extra)
    const entry = scriptedAgentEntry(dir, 'acp', {
      onTurn: [
        {
          request: {
            method: 'session/request_permission',
            params: { sessionId: SESSION, toolCall, options: OPTIONS },
          },
        },
      ],
    })
    // The person allows what they are shown.
    const asker = new ScriptedAsker('allow-once')
    const client = new AcpClient({
      agent: ExternalAgentConfigSchema.parse(entry) as AcpAgentConfig,
      workspace: dir,
      asker,
      onEvent: (event) => {
        events.push(event)
        timeline.record(event)
      },
    })
    closeClient = () => client.close()
    await client.start('ask-for-approval')
    await client.runTurn('go')
    const answer = scriptedAnswers(dir)[0]?.answer.result
    const shown = asker.asked.map((a) => a.request.action)
    if ('refused' in reads) {
      expect(shown).toEqual([])
      expect(answer).toEqual({ outcome: { outcome: 'selected', optionId: 'abort' } })
      expect(events).toContainEqual(
        expect.objectContaining({ type: 'request-refused', code: reads.refused, answer: 'abort' }),
      )
      const said = w.stores.conversations.listMessages(ROOM_ID).map((m) => m.text)
      expect(said.join('\n')).toContain(reads.words)
    } else if ('whole' in reads) {
      expect(shown).toEqual([
        {
          kind: 'tool',
          toolKind: 'execute',
          title: 'sh build.sh',
          input: toolCall.rawInput,
          locations: [],
        },
      ])
      expect(JSON.stringify(shown)).toContain(reads.whole)
    } else {
      expect(shown).toEqual([{ kind: 'command', ...reads.command, cwd: dir }])
      expect(answer).toEqual({ outcome: { outcome: 'selected', optionId: 'approved' } })
    }
  })
})

describe('a grant for the bare command line, stored before commands were left to one run at a time', () => {
  it.each(refusedRows)('never reaches it: $name', ({ call, extra, reads }) => {
    const reading = acpAction(AcpToolCallSchema.parse(call(extra, 'call-2')), dir)
    expect(reading).toMatchObject({ refused: 'refused' in reads && reads.refused })
  })

  it.each(askedRows)(
    'answers nothing, the bare line either: $name',
    async ({ call, extra, reads }) => {
      const w = newWorld(grantStoredBeforeTheRules)
      const live = new AbortController().signal
      // The person allows the bare line always, seeing a plain command.
      const first = w.askerUnder(policyForMode('ask-for-approval'))
      const answer = first.asker.ask(request(call({}, 'call-1')), live)
      await expect.poll(() => pendingApproval(w)).toBeTruthy()
      const pending = pendingApproval(w)!
      await w.gate.decide({ approvalId: pending.id, decision: 'allow-always', decidedBy: 'user' })
      await expect(answer).resolves.toBe('allow-always')
      expect(w.stores.grants.listActive(ROOM_ID)).toHaveLength(1)

      const next = w.askerUnder(policyForMode('ask-for-approval'))
      let settled = false
      const decided = next.asker.ask(request(call(extra, 'call-2')), live).then((decision) => {
        settled = true
        return decision
      })
      const asked = (async () => {
        while (!settled) {
          if (pendingApproval(w, pending.id)) return 'asked the person'
          await new Promise((resolve) => setImmediate(resolve))
        }
        return decided
      })()
      const outcome = await Promise.race([decided, asked])
      if ('whole' in reads) {
        expect(outcome).toBe('asked the person')
        // What the window draws and the digest binds: the approval's arguments.
        const approval = pendingApproval(w, pending.id)!
        expect(approval.toolName).toBe('agent_tool')
        expect(JSON.stringify(approval.arguments)).toContain(reads.whole)
      } else {
        // The same line with nothing more: the agent runs it outside
        // Assent's sandbox, so no grant answers it (agent-grant-scope.ts).
        expect(outcome).toBe('asked the person')
      }
    },
  )
})

describe('the approve-for-me reviewer', () => {
  it.each(askedRows.filter((row) => 'whole' in row.reads))(
    'leaves it to the person, shown whole: $name',
    async ({ call, extra, reads }) => {
      const w = newWorld()
      const { asker } = w.askerUnder(policyForMode('approve-for-me'))
      void asker.ask(request(call(extra)), new AbortController().signal)
      await expect.poll(() => pendingApproval(w)).toBeTruthy()
      const approval = pendingApproval(w)!
      expect(approval).toMatchObject({
        toolName: 'agent_tool',
        escalationReason: expect.any(String),
      })
      expect(JSON.stringify(approval.arguments)).toContain('whole' in reads ? reads.whole : '')
    },
  )
})
