import { mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  AGENT_COMMAND_TOOL,
  AGENT_FILE_CHANGE_TOOL,
  type AgentIdentity,
} from '../src/contracts/agent-request.ts'
import type { RoomPolicy } from '../src/contracts/policy-axes.ts'
import { EventBus } from '../src/runtime/events/event-bus.ts'
import { AcpToolCallSchema } from '../src/runtime/external-agents/acp-messages.ts'
import { acpAction } from '../src/runtime/external-agents/acp-tool-call-reading.ts'
import type { ExternalActionRequest } from '../src/runtime/external-agents/external-agent-port.ts'
import { ExternalTurnAsker } from '../src/runtime/external-turns/external-turn-asker.ts'
import { ExternalTurnTimeline } from '../src/runtime/external-turns/external-turn-timeline.ts'
import { ApprovalGate } from '../src/runtime/gate/approval-gate.ts'
import { ApprovalRequester } from '../src/runtime/gate/approval-requester.ts'
import { keepAsAssentOwn } from '../src/runtime/policy/assent-own-paths.ts'
import { policyForMode } from '../src/runtime/policy/permission-modes.ts'
import { RuleBasedReviewer, type ActionReviewer } from '../src/runtime/policy/reviewer.ts'
import type { DelegatedApprover } from '../src/runtime/ports/delegated-approver.ts'
import { SqliteAuditLog } from '../src/runtime/store/audit-log.ts'
import { IntegrityMac } from '../src/runtime/store/integrity-mac.ts'
import { codexRequest } from '../src/runtime/test-support/external-asker.ts'
import {
  openTempDatabase,
  ROOM_ID,
  sqliteStores,
  startTurn,
  turnFixture,
  type SqliteStores,
  roomAsFrozen,
} from '../src/runtime/test-support/sqlite-stores.ts'
import {
  CONTROL_PATH,
  contentOf,
  HARD_LINKED_HOOK,
  layPersonOnlyWorkspace,
  linkHookElsewhere,
  ORIGINAL,
  PERSON_ONLY_PATHS,
  COMMAND_CONTROLS,
  COMMAND_SPELLINGS,
} from './support/person-only-table.ts'
import { grantStoredBeforeTheRules } from './support/stored-agent-grants.ts'

/**
 * External agents' grants, the last door of the table: the asker an
 * external agent's command or file change goes through, over a real SQLite
 * store and a real workspace laid out like a repository. No external agent
 * runs here (tests/external-agents-*.test.ts drive real ones); the request
 * is the one it would send.
 *
 * The rules also keep such a grant from being made (grantScopeFor), so the
 * grant each test needs is written as one made before them
 * (grantStoredBeforeTheRules): the scope the request stands for, without
 * the person-only refusal, and a command's exact line in its folder. The
 * door must not answer with it all the same.
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

beforeEach(async () => {
  db = openTempDatabase('assent-person-only-external-')
  root = mkdtempSync(join(tmpdir(), 'assent-person-only-ws-'))
  // Another name of a hook leaves every command of the agent's to the
  // person (person-only-linked-elsewhere.test.ts): made only where a
  // row names it.
  workspace = realpathSync(
    await layPersonOnlyWorkspace(join(root, 'ws'), { hardLinkedHook: false }),
  )
  audit = new SqliteAuditLog(db.db, { mac: MAC })
  stores = sqliteStores(db.db, { mac: MAC, audit })
  gate = new ApprovalGate({
    approvals: stores.approvals,
    events: new EventBus(),
    now: () => 1_000,
    grantFor: grantStoredBeforeTheRules,
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
 *  reviewer is `reviewer`, and whose approver webhook, if any, `delegate`. */
function askerUnder(
  policy: RoomPolicy,
  reviewer: ActionReviewer,
  delegate?: DelegatedApprover,
): ExternalTurnAsker {
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
    ...(delegate ? { delegateFor: () => delegate } : {}),
    room: roomAsFrozen(stores, delegate),
  })
  return new ExternalTurnAsker(turn, AGENT, timeline, {
    requester,
    grants: stores.grants,
    conversations: stores.conversations,
    now,
    durable: async () => undefined,
    room: roomAsFrozen(stores, delegate),
  })
}

afterEach(() => {
  db.close()
  rmSync(root, { recursive: true, force: true })
})

const request = codexRequest

const DOORS = [
  {
    name: "an external agent's command grant",
    tool: AGENT_COMMAND_TOOL,
    // None answers, for the control path either: the agent runs what it
    // is allowed outside Assent's sandbox (agent-grant-scope.ts).
    answersControl: false,
    ask: (path: string) =>
      request({ kind: 'command', commandLine: `cp x ${path}`, argv: null, cwd: workspace }),
  },
  {
    name: "an external agent's grant for one file",
    tool: AGENT_FILE_CHANGE_TOOL,
    answersControl: true,
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
  // The reviewer's allow overruled, or, for a private read, the reviewer
  // never shown it (private-read-approval.ts): the person's either way.
  await expect
    .poll(() => approvals()[0]?.escalationReason)
    .toMatch(/automatic review may not allow it|private read|is asked about what it replaces/)
  shown?.()
  await gate.decide({ approvalId: approvals()[0]!.id, decision: 'deny', decidedBy: 'user' })
  await expect(answer).resolves.toBe('deny')
}

const ALLOWS_EVERYTHING: ActionReviewer = {
  review: () => Promise.resolve({ verdict: 'allow', reason: 'looks fine to me' }),
}

/** `door` under a grant the person made for `path`: its request for
 *  `path` is asked again, and the person's deny is the answer. */
async function askedAgainThoughGranted(door: (typeof DOORS)[number], path: string): Promise<void> {
  if (path === HARD_LINKED_HOOK) await linkHookElsewhere(workspace)
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
}

describe.each(DOORS)('$name', (door) => {
  if (door.answersControl) {
    it('answers the same request for the control path again without asking', async () => {
      const grant = await grantFor(door.ask, CONTROL_PATH)
      expect(grant.toolName).toBe(door.tool)
      await expect(asker.ask(door.ask(CONTROL_PATH), live())).resolves.toBe('allow-once')
      expect(approvals()).toHaveLength(1)
      expect(audit.list().map((event) => event.type)).toContain('tool_allowed_by_grant')
    })
  } else {
    it('answers nothing, the control path either: the request is asked again', () =>
      askedAgainThoughGranted(door, CONTROL_PATH))
  }

  // The last row of grants-in-plan-mode.test.ts: a grant the person made
  // before the room entered plan mode answers nothing in it.
  it("in plan mode, answers nothing: the request is refused in the policy's name", async () => {
    await grantFor(door.ask, CONTROL_PATH)
    const planned = askerUnder(policyForMode('plan'), new RuleBasedReviewer())
    await expect(planned.ask(door.ask(CONTROL_PATH), live())).resolves.toBe('deny')
    expect(approvals()).toHaveLength(1)
    expect(audit.list().filter((event) => event.type === 'tool_allowed_by_grant')).toEqual([])
  })

  it.each([...PERSON_ONLY_PATHS, HARD_LINKED_HOOK])(
    'never answers for %s though a grant covers it: the request is asked again',
    (path) => askedAgainThoughGranted(door, path),
  )
})

describe.each(DOORS)("$name, for Assent's own files", (door) => {
  // A data folder in the workspace (a checkout's development data): what
  // decides which servers run and what runs unasked.
  beforeEach(async () => {
    await mkdir(join(workspace, 'assent-data'))
    for (const file of ['mcp.json', 'agents.json']) {
      await writeFile(join(workspace, 'assent-data', file), ORIGINAL)
    }
    keepAsAssentOwn([join(workspace, 'assent-data')])
  })

  it.each(['assent-data/mcp.json', 'assent-data/agents.json'])(
    'never answers for %s though a grant covers it: the request is asked again',
    (path) => askedAgainThoughGranted(door, path),
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
          .toMatch(/automatic review may not allow it|is asked about what it replaces/)
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

  // No grant answers an agent's command (agent-grant-scope.ts): the
  // reviewer is the door left that may answer one in the person's place.
  it.each(COMMAND_CONTROLS)('lets the reviewer allow %s', async (line) => {
    const reviewed = askerUnder(policyForMode('approve-for-me'), ALLOWS_EVERYTHING)
    await expect(reviewed.ask(command(line), live())).resolves.toBe('allow-once')
  })

  it.each(COMMAND_SPELLINGS)(
    'leaves %s (%s) to the person, whatever the reviewer says',
    (_name, line) => reviewerAllowIsLeftToPerson(command(line)),
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

  // The agent's own tool may read whatever it names: one naming a place
  // outside the workspace (`$HOME`, `/tmp/h`, `../x`) is a private read,
  // which the reviewer is never shown (tests/private-read-deciders.test.ts).
  const OUTSIDE = new Set(['echo "$HOME"'])

  it.each(COMMAND_CONTROLS.filter((line) => !OUTSIDE.has(line)))(
    'lets the reviewer allow %s',
    async (line) => {
      const reviewed = askerUnder(policyForMode('approve-for-me'), ALLOWS_EVERYTHING)
      await expect(reviewed.ask(search(line), live())).resolves.toBe('allow-once')
    },
  )

  it.each([...OUTSIDE])('leaves %s, which reads outside the workspace, to the person', (line) =>
    reviewerAllowIsLeftToPerson(search(line)),
  )

  it.each(COMMAND_SPELLINGS)(
    "reads it as the shell does: a reviewer's allow of %s (%s) is left to the person",
    async (_name, line) => {
      await reviewerAllowIsLeftToPerson(search(line))
    },
  )
})

/**
 * An ACP agent's tool call as the client reads it (acpAction), at each door.
 * codex-acp sends a patch as an `edit` whose diffs and locations name each
 * file after the change: a moved file by where it moves to, its source only
 * in the raw input's `changes`; a delete as an edit that empties the file.
 * Another agent may name a place only in its locations or raw input.
 */
describe("an ACP agent's file changes, read with every place they name, at each door", () => {
  const at = (path: string) => join(workspace, path)
  function acp(toolCall: unknown): ExternalActionRequest {
    const reading = acpAction(AcpToolCallSchema.parse(toolCall), workspace)
    if ('refused' in reading) throw new Error(`refused: ${reading.detail}`)
    return { ...request(reading.action), protocol: 'acp' }
  }
  const patch = (
    diff: { path: string; oldText: string; newText: string },
    changes: Record<string, Record<string, unknown>>,
  ) =>
    acp({
      toolCallId: `call-${(ids += 1)}`,
      kind: 'edit',
      title: `Edit ${diff.path}`,
      status: 'pending',
      locations: [{ path: at(diff.path) }],
      content: [{ type: 'diff', ...diff, path: at(diff.path) }],
      rawInput: { call_id: 'c', changes, reason: null, grant_root: null },
    })
  /** codex-acp's edit of `path` in place. */
  const edit = (path: string) =>
    patch(
      { path, oldText: ORIGINAL, newText: 'evil\n' },
      { [at(path)]: { type: 'update', unified_diff: '-original\n+evil\n', move_path: null } },
    )
  /** codex-acp's "Update File: source / Move to: destination". */
  const codexMove = (source: string, destination = CONTROL_PATH) =>
    patch(
      { path: destination, oldText: ORIGINAL, newText: 'evil\n' },
      {
        [at(source)]: {
          type: 'update',
          unified_diff: '-original\n+evil\n',
          move_path: at(destination),
        },
      },
    )
  /** codex-acp's delete: an edit to nothing. */
  const codexDelete = (path: string) =>
    patch(
      { path, oldText: ORIGINAL, newText: '' },
      { [at(path)]: { type: 'delete', content: ORIGINAL } },
    )
  /** codex-acp's in-place edit of the control path whose patch also
   *  deletes `path`, a file no diff or location shows. */
  const unshownDelete = (path: string) =>
    patch(
      { path: CONTROL_PATH, oldText: ORIGINAL, newText: 'evil\n' },
      {
        [at(CONTROL_PATH)]: { type: 'update', unified_diff: '-original\n+evil\n', move_path: null },
        [at(path)]: { type: 'delete', content: ORIGINAL },
      },
    )
  /** Another agent's move, whose diff names only the file it leaves. */
  const genericMove = (destination: string) =>
    acp({
      toolCallId: `call-${(ids += 1)}`,
      kind: 'move',
      title: 'Move',
      locations: [{ path: at(CONTROL_PATH) }, { path: at(destination) }],
      content: [{ type: 'diff', path: at(CONTROL_PATH), oldText: ORIGINAL, newText: ORIGINAL }],
      rawInput: { source: at(CONTROL_PATH), destination: at(destination) },
    })
  const SHAPES = [
    ['a codex-acp move away from', codexMove],
    ['a move whose destination only its locations and raw input name,', genericMove],
    ['a codex-acp delete of', codexDelete],
    ['a codex-acp edit whose patch also deletes, unshown,', unshownDelete],
  ] as const
  const allowsEverything: ActionReviewer = {
    review: () => Promise.resolve({ verdict: 'allow', reason: 'looks fine to me' }),
  }
  const webhookAllows: DelegatedApprover = {
    id: 'webhook-allows',
    decide: () => Promise.resolve({ decision: 'allow-once', reason: 'webhook ok' }),
  }

  it('stores and shows a codex-acp move from its source, and a delete as a delete', async () => {
    const answer = asker.ask(codexMove('.git/hooks/post-merge'), live())
    await expect.poll(() => approvals().length).toBe(1)
    expect(approvals()[0]).toMatchObject({
      toolName: AGENT_FILE_CHANGE_TOOL,
      arguments: {
        changes: [
          { path: at('.git/hooks/post-merge'), change: 'update', movePath: at(CONTROL_PATH) },
          // The file the move replaces, shown with its lines.
          { path: at(CONTROL_PATH), change: 'delete' },
        ],
      },
    })
    await gate.decide({ approvalId: approvals()[0]!.id, decision: 'deny', decidedBy: 'user' })
    await expect(answer).resolves.toBe('deny')
    const deleted = asker.ask(codexDelete(CONTROL_PATH), live())
    await expect.poll(() => approvals().length).toBe(2)
    const asked = approvals().find((approval) => approval.status === 'pending')!
    expect(asked.arguments).toMatchObject({
      changes: [{ path: at(CONTROL_PATH), change: 'delete' }],
    })
    await gate.decide({ approvalId: asked.id, decision: 'deny', decidedBy: 'user' })
    await expect(deleted).resolves.toBe('deny')
  })

  describe('a grant for one file', () => {
    it('answers the same in-place edit of the control path again', async () => {
      await grantFor(edit, CONTROL_PATH)
      await expect(asker.ask(edit(CONTROL_PATH), live())).resolves.toBe('allow-once')
      expect(audit.list().map((event) => event.type)).toContain('tool_allowed_by_grant')
    })

    const others: ReadonlyArray<readonly [string, () => ExternalActionRequest]> = [
      ...PERSON_ONLY_PATHS.flatMap((path) =>
        SHAPES.filter(([, shape]) => shape !== codexDelete).map(
          ([name, shape]) => [`${name} ${path}`, () => shape(path)] as const,
        ),
      ),
      // Places no rule holds: still not the one file the grant is for.
      ['a codex-acp move onto it from docs/other.txt', () => codexMove('docs/other.txt')],
      [
        'a move whose destination only its raw input names, docs/other.txt',
        () => genericMove('docs/other.txt'),
      ],
      ['a codex-acp delete of it', () => codexDelete(CONTROL_PATH)],
    ]
    it.each(others)('never answers for %s: it is asked', async (_name, ask) => {
      await grantFor(edit, CONTROL_PATH)
      const again = asker.ask(ask(), live())
      await expect.poll(() => approvals().length).toBe(2)
      const asked = approvals().find((approval) => approval.status === 'pending')!
      await gate.decide({ approvalId: asked.id, decision: 'deny', decidedBy: 'user' })
      await expect(again).resolves.toBe('deny')
      expect(audit.list().map((event) => event.type)).not.toContain('tool_allowed_by_grant')
    })
  })

  describe('the built-in reviewer', () => {
    it('allows an in-place edit of the control path', async () => {
      const reviewed = askerUnder(policyForMode('approve-for-me'), new RuleBasedReviewer())
      await expect(reviewed.ask(edit(CONTROL_PATH), live())).resolves.toBe('allow-once')
      expect(approvals()).toMatchObject([{ status: 'allowed', decidedBy: 'agent-review' }])
    })

    it.each([
      ['a codex-acp move onto it', () => codexMove('docs/other.txt')],
      ['a codex-acp delete of it', () => codexDelete(CONTROL_PATH)],
      ['a move whose destination only its raw input names', () => genericMove('docs/other.txt')],
    ] as const)('leaves %s to the person', async (_name, ask) => {
      const reviewed = askerUnder(policyForMode('approve-for-me'), new RuleBasedReviewer())
      const answer = reviewed.ask(ask(), live())
      await expect.poll(() => approvals()[0]?.escalationReason).toBeTruthy()
      expect(approvals()).toMatchObject([{ status: 'pending' }])
      await gate.decide({ approvalId: approvals()[0]!.id, decision: 'deny', decidedBy: 'user' })
      await expect(answer).resolves.toBe('deny')
    })
  })

  describe.each(SHAPES)('%s a person-only path', (_name, shape) => {
    it.each(PERSON_ONLY_PATHS)(
      'a reviewer that allows everything is overruled for %s',
      async (path) => {
        const reviewed = askerUnder(policyForMode('approve-for-me'), allowsEverything)
        const answer = reviewed.ask(shape(path), live())
        // Kept from the reviewer as person-only, or as a private read where
        // a spelling leads where only the server knows (`$INDEX_ALLOCATION`).
        await expect
          .poll(() => approvals()[0]?.escalationReason)
          .toMatch(/automatic review may not allow it|private read|is asked about what it replaces/)
        await gate.decide({ approvalId: approvals()[0]!.id, decision: 'deny', decidedBy: 'user' })
        await expect(answer).resolves.toBe('deny')
      },
    )

    it.each(PERSON_ONLY_PATHS)('the approver webhook is not asked for %s', async (path) => {
      const hooked = askerUnder(
        policyForMode('ask-for-approval'),
        new RuleBasedReviewer(),
        webhookAllows,
      )
      const answer = hooked.ask(shape(path), live())
      await expect
        .poll(() => approvals()[0]?.escalationReason)
        .toMatch(/webhook is not asked|private read|is asked about what it replaces/)
      await gate.decide({ approvalId: approvals()[0]!.id, decision: 'deny', decidedBy: 'user' })
      await expect(answer).resolves.toBe('deny')
    })
  })

  it.each(SHAPES)('the approver webhook decides %s a path no rule holds', async (_name, shape) => {
    const hooked = askerUnder(
      policyForMode('ask-for-approval'),
      new RuleBasedReviewer(),
      webhookAllows,
    )
    await expect(hooked.ask(shape('docs/other.txt'), live())).resolves.toBe('allow-once')
    expect(approvals()).toMatchObject([{ status: 'allowed', decidedBy: 'webhook' }])
  })

  it('refuses, before any door, a command in a relative folder a grant for the line would answer', async () => {
    const run = (cwd: string) =>
      acpAction(
        AcpToolCallSchema.parse({
          toolCallId: `call-${(ids += 1)}`,
          kind: 'execute',
          title: 'cp',
          rawInput: { command: 'cp x post-merge', cwd },
        }),
        workspace,
      )
    await grantFor(
      () =>
        acp({
          toolCallId: 'r',
          kind: 'execute',
          rawInput: { command: 'cp x post-merge', cwd: workspace },
        }),
      '',
    )
    expect(run('.git/hooks')).toMatchObject({ refused: 'command-folder-not-absolute' })
  })
})
