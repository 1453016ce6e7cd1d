import { mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { ApprovalRecord } from '../src/contracts/approval.ts'
import {
  AGENT_COMMAND_TOOL,
  AGENT_FILE_CHANGE_TOOL,
  type AgentIdentity,
} from '../src/contracts/agent-request.ts'
import type { RoomPolicy } from '../src/contracts/policy-axes.ts'
import type { Grant } from '../src/contracts/room.ts'
import { EventBus } from '../src/runtime/events/event-bus.ts'
import type { ExternalActionRequest } from '../src/runtime/external-agents/external-agent-port.ts'
import { ExternalTurnAsker } from '../src/runtime/external-turns/external-turn-asker.ts'
import { ExternalTurnTimeline } from '../src/runtime/external-turns/external-turn-timeline.ts'
import { ApprovalGate } from '../src/runtime/gate/approval-gate.ts'
import { ApprovalRequester } from '../src/runtime/gate/approval-requester.ts'
import { agentGrantScope } from '../src/runtime/policy/agent-grant-scope.ts'
import { policyForMode } from '../src/runtime/policy/permission-modes.ts'
import { RuleBasedReviewer, type ActionReviewer } from '../src/runtime/policy/reviewer.ts'
import { SqliteAuditLog } from '../src/runtime/store/audit-log.ts'
import { IntegrityMac } from '../src/runtime/store/integrity-mac.ts'
import {
  openTempDatabase,
  ROOM_ID,
  sqliteStores,
  startTurn,
  turnFixture,
  type SqliteStores,
} from '../src/runtime/test-support/sqlite-stores.ts'
import {
  CONTROL_PATH,
  contentOf,
  layPersonOnlyWorkspace,
  ORIGINAL,
  PERSON_ONLY_PATHS,
  COMMAND_CONTROLS,
  COMMAND_SPELLINGS,
} from './support/person-only-table.ts'

/**
 * External agents' grants, the last door of the table: the asker an
 * external agent's command or file change goes through, over a real SQLite
 * store and a real workspace laid out like a repository. No external agent
 * runs here (tests/external-agents-*.test.ts drive real ones); the request
 * is the one it would send.
 *
 * The rule also keeps such a grant from being made (grantScopeFor), so the
 * grant each test needs is written as one made before the rule would be:
 * the scope the request stands for (agentGrantScope), without the
 * person-only refusal. The door must not answer with it all the same.
 */

const MAC = new IntegrityMac(Buffer.alloc(32, 7))
const AGENT: AgentIdentity = { id: 'codex', name: 'Codex CLI', protocol: 'codex-app-server' }

let db: ReturnType<typeof openTempDatabase>
let root: string
let workspace: string
let stores: SqliteStores
let audit: SqliteAuditLog
let gate: ApprovalGate
let asker: ExternalTurnAsker
let ids = 0

/** The grant an allow-always stood for before the rule: its scope alone. */
function grantBeforeTheRule(approval: ApprovalRecord): Grant | undefined {
  if (approval.decision !== 'allow-always') return undefined
  const scope = agentGrantScope(approval, (absolute) => {
    try {
      return realpathSync(absolute)
    } catch {
      return null
    }
  })
  if (!scope?.ok) throw new Error(`no scope: ${JSON.stringify(scope)}`)
  return {
    id: `grant-${(ids += 1)}`,
    roomId: approval.roomId,
    ...scope.draft,
    approvalId: approval.id,
    createdAt: 1,
  }
}

beforeEach(async () => {
  db = openTempDatabase('assent-person-only-external-')
  root = mkdtempSync(join(tmpdir(), 'assent-person-only-ws-'))
  workspace = realpathSync(await layPersonOnlyWorkspace(join(root, 'ws')))
  audit = new SqliteAuditLog(db.db, { mac: MAC })
  stores = sqliteStores(db.db, { mac: MAC, audit })
  gate = new ApprovalGate({
    approvals: stores.approvals,
    events: new EventBus(),
    now: () => 1_000,
    grantFor: grantBeforeTheRule,
    beforeGrant: () => Promise.resolve(),
  })
  stores.rooms.create({
    id: ROOM_ID,
    kind: 'direct',
    agentId: AGENT.id,
    workspace,
    title: 'Codex room',
    policy: policyForMode('ask-for-approval'),
    revision: 0,
    createdAt: 1,
  })
  asker = askerUnder(policyForMode('ask-for-approval'), new RuleBasedReviewer())
})

/** An asker for a new turn of the room under `policy`, whose approve-for-me
 *  reviewer is `reviewer`. */
function askerUnder(policy: RoomPolicy, reviewer: ActionReviewer): ExternalTurnAsker {
  const events = new EventBus()
  const now = () => 1_000
  const newId = () => `id-${(ids += 1)}`
  const turn = turnFixture({ id: newId(), policy, workspace })
  startTurn(stores, turn)
  const timeline = new ExternalTurnTimeline(turn, {
    conversations: stores.conversations,
    events,
    now,
    newId,
  })
  const requester = new ApprovalRequester({
    gate,
    approvals: stores.approvals,
    conversations: stores.conversations,
    events,
    reviewer,
    now,
    approvalTtlMs: () => 60_000,
    newId,
  })
  return new ExternalTurnAsker(turn, AGENT, timeline, {
    requester,
    grants: stores.grants,
    conversations: stores.conversations,
    now,
    durable: async () => undefined,
  })
}

afterEach(() => {
  db.close()
  rmSync(root, { recursive: true, force: true })
})

function request(action: ExternalActionRequest['action']): ExternalActionRequest {
  ids += 1
  return {
    requestId: `request-${ids}`,
    protocol: 'codex-app-server',
    sessionId: 'thread-1',
    toolCallId: `agent-call-${ids}`,
    reason: null,
    sandboxMode: 'danger-full-access',
    action,
  }
}

const DOORS = [
  {
    name: "an external agent's command grant",
    tool: AGENT_COMMAND_TOOL,
    ask: (path: string) =>
      request({ kind: 'command', commandLine: `cp x ${path}`, argv: null, cwd: workspace }),
  },
  {
    name: "an external agent's grant for one file",
    tool: AGENT_FILE_CHANGE_TOOL,
    ask: (path: string) =>
      request({
        kind: 'file-changes',
        changes: [
          {
            path: join(workspace, path),
            change: 'update',
            movePath: null,
            diff: '-original\n+evil\n',
            oldText: ORIGINAL,
            newText: 'evil\n',
          },
        ],
      }),
  },
] as const

const live = () => new AbortController().signal
const approvals = () => stores.approvals.listByRoom(ROOM_ID)

/** The person allows `path`'s request always; answers the grant it made. */
async function grantFor(ask: (path: string) => ExternalActionRequest, path: string) {
  const first = asker.ask(ask(path), live())
  await expect.poll(() => approvals().length).toBe(1)
  const approval = approvals()[0]!
  await gate.decide({ approvalId: approval.id, decision: 'allow-always', decidedBy: 'user' })
  await expect(first).resolves.toBe('allow-always')
  const grants = stores.grants.listActive(ROOM_ID)
  expect(grants).toHaveLength(1)
  return grants[0]!
}

/** Asks `request` in approve-for-me under a reviewer that allows
 *  everything, and checks that its allow went to the person instead; the
 *  person then denies. */
async function reviewerAllowIsLeftToPerson(
  request: ExternalActionRequest,
  shown?: () => void,
): Promise<void> {
  const reviewed = askerUnder(policyForMode('approve-for-me'), ALLOWS_EVERYTHING)
  const answer = reviewed.ask(request, live())
  await expect
    .poll(() => approvals()[0]?.escalationReason)
    .toMatch(/automatic review may not allow it/)
  shown?.()
  await gate.decide({ approvalId: approvals()[0]!.id, decision: 'deny', decidedBy: 'user' })
  await expect(answer).resolves.toBe('deny')
}

const ALLOWS_EVERYTHING: ActionReviewer = {
  review: () => Promise.resolve({ verdict: 'allow', reason: 'looks fine to me' }),
}

describe.each(DOORS)('$name', (door) => {
  it('answers the same request for the control path again without asking', async () => {
    const grant = await grantFor(door.ask, CONTROL_PATH)
    expect(grant.toolName).toBe(door.tool)
    await expect(asker.ask(door.ask(CONTROL_PATH), live())).resolves.toBe('allow-once')
    expect(approvals()).toHaveLength(1)
    expect(audit.list().map((event) => event.type)).toContain('tool_allowed_by_grant')
  })

  it.each(PERSON_ONLY_PATHS)(
    'never answers for %s though a grant covers it: the request is asked again',
    async (path) => {
      await grantFor(door.ask, path)
      const again = asker.ask(door.ask(path), live())
      await expect.poll(() => approvals().length).toBe(2)
      const asked = approvals().find((approval) => approval.status === 'pending')!
      expect(asked).toMatchObject({ status: 'pending', toolName: door.tool })
      await gate.decide({ approvalId: asked.id, decision: 'deny', decidedBy: 'user' })
      await expect(again).resolves.toBe('deny')
      expect(audit.list().map((event) => event.type)).not.toContain('tool_allowed_by_grant')
      // The asker only answers; nothing here writes, and nothing was written.
      expect(await contentOf(workspace, path)).toBe(ORIGINAL)
    },
  )
})

describe("an external agent's request in approve-for-me, under a reviewer that allows everything", () => {
  const reviewed = () => askerUnder(policyForMode('approve-for-me'), ALLOWS_EVERYTHING)

  it.each(DOORS)('lets the reviewer allow $name for the control path', async (door) => {
    await expect(reviewed().ask(door.ask(CONTROL_PATH), live())).resolves.toBe('allow-once')
    expect(approvals()).toMatchObject([{ status: 'allowed', decidedBy: 'agent-review' }])
  })

  describe.each(DOORS)('$name', (door) => {
    it.each(PERSON_ONLY_PATHS)(
      'leaves %s to the person: the allow becomes an escalation',
      async (path) => {
        const answer = reviewed().ask(door.ask(path), live())
        await expect
          .poll(() => approvals()[0]?.escalationReason)
          .toMatch(/automatic review may not allow it/)
        expect(approvals()).toMatchObject([{ status: 'pending' }])
        await gate.decide({ approvalId: approvals()[0]!.id, decision: 'deny', decidedBy: 'user' })
        await expect(answer).resolves.toBe('deny')
      },
    )
  })
})

describe("an external agent's other tool call, whose files only its locations name", () => {
  const edit = (path: string) =>
    request({
      kind: 'tool',
      toolKind: 'edit',
      title: 'Edit',
      input: {},
      locations: [join(workspace, path)],
    })

  it('lets the reviewer allow it for the control path', async () => {
    const reviewed = askerUnder(policyForMode('approve-for-me'), ALLOWS_EVERYTHING)
    await expect(reviewed.ask(edit(CONTROL_PATH), live())).resolves.toBe('allow-once')
  })

  it.each(PERSON_ONLY_PATHS)(
    'leaves it to the person when a location is %s, and shows the location',
    async (path) => {
      await reviewerAllowIsLeftToPerson(edit(path), () => {
        expect(approvals()[0]?.arguments).toMatchObject({ locations: [join(workspace, path)] })
      })
    },
  )
})

describe("an external agent's command a shell reads, at each door", () => {
  const command = (line: string) =>
    request({ kind: 'command', commandLine: line, argv: null, cwd: workspace })

  it.each(COMMAND_CONTROLS)('a grant answers for %s', async (line) => {
    await grantFor(command, line)
    await expect(asker.ask(command(line), live())).resolves.toBe('allow-once')
    expect(approvals()).toHaveLength(1)
  })

  it.each(COMMAND_SPELLINGS)(
    'a grant never answers for %s (%s): the request is asked again',
    async (_name, line) => {
      await grantFor(command, line)
      const again = asker.ask(command(line), live())
      await expect.poll(() => approvals().length).toBe(2)
      const asked = approvals().find((approval) => approval.status === 'pending')!
      await gate.decide({ approvalId: asked.id, decision: 'deny', decidedBy: 'user' })
      await expect(again).resolves.toBe('deny')
      expect(audit.list().map((event) => event.type)).not.toContain('tool_allowed_by_grant')
    },
  )

  it("a reviewer's allow is judged on the command's own folder, which the reviewer is not shown", async () => {
    // From docs/, ../tools/hooks is the folder the repository's config
    // names as core.hooksPath; from the workspace it is nothing.
    const inDocs = request({
      kind: 'command',
      commandLine: 'cp x ../tools/hooks/pre-commit',
      argv: null,
      cwd: join(workspace, 'docs'),
    })
    await reviewerAllowIsLeftToPerson(inDocs)
  })

  it.each(COMMAND_SPELLINGS)(
    "a reviewer's allow of %s (%s) is left to the person",
    async (_name, line) => {
      await reviewerAllowIsLeftToPerson(command(line))
    },
  )
})

describe("an external agent's other tool call that carries a command (codex-acp's `search`, `read`)", () => {
  const search = (line: string) =>
    request({
      kind: 'tool',
      toolKind: 'search',
      title: 'Search',
      input: { command: line, cwd: workspace },
      locations: [],
    })

  it.each(COMMAND_CONTROLS)('lets the reviewer allow %s', async (line) => {
    const reviewed = askerUnder(policyForMode('approve-for-me'), ALLOWS_EVERYTHING)
    await expect(reviewed.ask(search(line), live())).resolves.toBe('allow-once')
  })

  it.each(COMMAND_SPELLINGS)(
    "reads it as the shell does: a reviewer's allow of %s (%s) is left to the person",
    async (_name, line) => {
      await reviewerAllowIsLeftToPerson(search(line))
    },
  )
})
