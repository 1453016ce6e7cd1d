import { mkdtempSync, readdirSync, realpathSync, renameSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { DatabaseSync } from 'node:sqlite'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  AGENT_COMMAND_TOOL,
  AGENT_FILE_CHANGE_TOOL,
  type AgentIdentity,
} from '../../contracts/agent-request.ts'
import type { RoomPolicy } from '../../contracts/policy-axes.ts'
import type { Turn } from '../../contracts/room.ts'
import { grantForDecision } from '../agent/grant-issuer.ts'
import { grantScopeFor } from '../agent/grant-scope.ts'
import { EventBus } from '../events/event-bus.ts'
import { ApprovalGate } from '../gate/approval-gate.ts'
import { ApprovalRequester } from '../gate/approval-requester.ts'
import { AGENT_COMMAND_UNCONTAINED } from '../policy/agent-grant-scope.ts'
import { policyForMode } from '../policy/permission-modes.ts'
import { pinWorkspace } from '../policy/workspace-identity.ts'
import { RuleBasedReviewer } from '../policy/reviewer.ts'
import { SqliteAuditLog } from '../store/audit-log.ts'
import { IntegrityMac } from '../store/integrity-mac.ts'
import {
  openTempDatabase,
  ROOM_ID,
  sqliteStores,
  startTurn,
  turnFixture,
  type SqliteStores,
  roomAsFrozen,
} from '../test-support/sqlite-stores.ts'
import { codexRequest } from '../test-support/external-asker.ts'
import { MAX_AGENT_REQUEST_TEXT_CHARS } from './agent-request-action.ts'
import { ExternalTurnAsker, MAX_WAITING_REQUESTS, WITHDRAWN_REASON } from './external-turn-asker.ts'
import { ExternalTurnTimeline } from './external-turn-timeline.ts'

const MAC = new IntegrityMac(Buffer.alloc(32, 9))
const AGENT: AgentIdentity = { id: 'codex', name: 'Codex CLI', protocol: 'codex-app-server' }
const TTL_MS = 60_000

let db: DatabaseSync
let close: () => void
let workspace: string
let stores: SqliteStores
let audit: SqliteAuditLog
let gate: ApprovalGate
let clock: number
let ids: number

beforeEach(() => {
  ;({ db, close } = openTempDatabase('assent-external-asker-'))
  workspace = realpathSync(mkdtempSync(join(tmpdir(), 'assent-external-ws-')))
  audit = new SqliteAuditLog(db, { mac: MAC })
  stores = sqliteStores(db, { mac: MAC, audit })
  clock = 1_000
  ids = 0
  gate = new ApprovalGate({
    approvals: stores.approvals,
    events: new EventBus(),
    now: () => clock,
    grantFor: (approval) => grantForDecision(approval, { now: () => clock }),
    // The rollback anchor is current here: the gate's own tests cover a
    // lagging one (approval-gate-anchor.test.ts).
    beforeGrant: () => Promise.resolve(),
  })
})

afterEach(() => {
  close()
  rmSync(workspace, { recursive: true, force: true })
})

/** A turn of a room whose agent is Codex, under `policy`, and its asker. */
function askerUnder(
  policy: RoomPolicy,
  overrides: Partial<Turn> = {},
): { asker: ExternalTurnAsker; turn: Turn } {
  if (!stores.rooms.get(ROOM_ID)) {
    stores.rooms.create({
      id: ROOM_ID,
      kind: 'direct',
      agentId: AGENT.id,
      workspace,
      title: 'Codex room',
      policy,
      revision: 0,
      createdAt: 1,
    })
  }
  const turn = turnFixture({ id: `turn-${(ids += 1)}`, policy, workspace, ...overrides })
  startTurn(stores, turn)
  const events = new EventBus()
  const newId = () => `id-${(ids += 1)}`
  const timeline = new ExternalTurnTimeline(turn, {
    conversations: stores.conversations,
    events,
    now: () => clock,
    newId,
  })
  const requester = new ApprovalRequester({
    gate,
    approvals: stores.approvals,
    conversations: stores.conversations,
    events,
    reviewer: new RuleBasedReviewer(),
    now: () => clock,
    approvalTtlMs: () => TTL_MS,
    newId,
    room: roomAsFrozen(stores),
  })
  const asker = new ExternalTurnAsker(turn, AGENT, timeline, {
    requester,
    grants: stores.grants,
    conversations: stores.conversations,
    now: () => clock,
    durable: async () => undefined,
    room: roomAsFrozen(stores),
  })
  return { asker, turn }
}

const request = codexRequest

const command = (commandLine: string, cwd = workspace) =>
  request({ kind: 'command', commandLine, argv: null, cwd })

const newFile = (path: string, content = 'hello\n') =>
  request({
    kind: 'file-changes',
    changes: [{ path, change: 'add', movePath: null, diff: content, oldText: null, newText: null }],
  })

const live = () => new AbortController().signal
const approvals = () => stores.approvals.listByRoom(ROOM_ID)
const auditTypes = () => audit.list().map((event) => event.type)
const callOf = (turn: Turn) => stores.conversations.listToolCallsOfTurn(turn.id).at(-1)

/** Waits until the asker has opened an approval (it reads files first). */
async function pendingApproval(count = 1) {
  await expect.poll(() => approvals().length).toBe(count)
  const approval = approvals().at(-1)
  if (!approval) throw new Error('no approval')
  return approval
}

describe('ExternalTurnAsker: what it answers without asking anyone', () => {
  it('refuses a change outside the workspace under workspace-write, and opens no approval', async () => {
    const { asker, turn } = askerUnder(policyForMode('ask-for-approval'))
    const outside = join(tmpdir(), 'assent-never-written.txt')
    await expect(asker.ask(newFile(outside), live())).resolves.toBe('deny')
    expect(approvals()).toEqual([])
    expect(callOf(turn)).toMatchObject({
      status: 'refused',
      result: { ok: false, code: 'outside_workspace' },
    })
  })

  it('refuses even under full access once the workspace folder was swapped for a link elsewhere', async () => {
    const workspaceIdentity = await pinWorkspace(workspace)
    const { asker, turn } = askerUnder(policyForMode('full-access'), { workspaceIdentity })
    const elsewhere = realpathSync(mkdtempSync(join(tmpdir(), 'assent-external-elsewhere-')))
    try {
      renameSync(workspace, `${workspace}.old`)
      symlinkSync(elsewhere, workspace)
      await expect(asker.ask(newFile(join(workspace, 'a.txt')), live())).resolves.toBe('deny')
      await expect(asker.ask(command('touch b.txt'), live())).resolves.toBe('deny')
      expect(approvals()).toEqual([])
      expect(callOf(turn)).toMatchObject({
        status: 'refused',
        result: { ok: false, code: 'workspace_moved' },
      })
      expect(readdirSync(elsewhere)).toEqual([])
    } finally {
      rmSync(workspace, { force: true })
      renameSync(`${workspace}.old`, workspace)
      rmSync(elsewhere, { recursive: true, force: true })
    }
  })

  it('refuses a command in a folder outside the workspace', async () => {
    const { asker, turn } = askerUnder(policyForMode('ask-for-approval'))
    await expect(asker.ask(command('ls', tmpdir()), live())).resolves.toBe('deny')
    expect(approvals()).toEqual([])
    expect(callOf(turn)?.result?.code).toBe('outside_workspace')
  })

  it('refuses every command and change in a read-only sandbox', async () => {
    const { asker, turn } = askerUnder({
      approvalPolicy: 'on-request',
      sandboxMode: 'read-only',
      approvalReviewer: 'user',
    })
    await expect(asker.ask(command('ls'), live())).resolves.toBe('deny')
    expect(callOf(turn)?.result?.code).toBe('sandbox_read_only')
    await expect(asker.ask(newFile(join(workspace, 'a.txt')), live())).resolves.toBe('deny')
    expect(approvals()).toEqual([])
  })

  it('denies what the approval policy refuses', async () => {
    const { asker, turn } = askerUnder({
      approvalPolicy: 'never',
      sandboxMode: 'workspace-write',
      approvalReviewer: 'user',
    })
    await expect(asker.ask(command('touch a'), live())).resolves.toBe('deny')
    expect(callOf(turn)).toMatchObject({ status: 'denied', result: { code: 'policy_denied' } })
    expect(approvals()).toEqual([])
  })

  it('allows what full access runs, marked running with the policy event that allowed it', async () => {
    const { asker, turn } = askerUnder(policyForMode('full-access'))
    await expect(asker.ask(command('touch a'), live())).resolves.toBe('allow-once')
    expect(callOf(turn)?.status).toBe('running')
    expect(auditTypes()).toContain('tool_allowed_by_policy')
    expect(approvals()).toEqual([])
  })

  it('refuses a change too large to show in the protected window', async () => {
    const { asker, turn } = askerUnder(policyForMode('ask-for-approval'))
    const huge = 'x'.repeat(MAX_AGENT_REQUEST_TEXT_CHARS + 1)
    await expect(asker.ask(newFile(join(workspace, 'big.txt'), huge), live())).resolves.toBe('deny')
    expect(callOf(turn)).toMatchObject({
      status: 'refused',
      result: { code: 'unshowable_request' },
    })
    expect(approvals()).toEqual([])
  })
})

describe('ExternalTurnAsker: asking through the requester', () => {
  it('refuses a request without asking while as many as it allows already wait, and asks again once one is decided', async () => {
    const { asker } = askerUnder(policyForMode('ask-for-approval'))
    const stop = new AbortController()
    const waiting = Array.from({ length: MAX_WAITING_REQUESTS }, (_, index) =>
      asker.ask(command(`echo ${index} > f${index}.txt`), stop.signal),
    )
    await pendingApproval(MAX_WAITING_REQUESTS)
    await expect(asker.ask(command('echo over > over.txt'), live())).resolves.toBe('deny')
    expect(approvals()).toHaveLength(MAX_WAITING_REQUESTS)
    stop.abort()
    await Promise.all(waiting)
    const again = new AbortController()
    const next = asker.ask(command('echo next > next.txt'), again.signal)
    await pendingApproval(MAX_WAITING_REQUESTS + 1)
    again.abort()
    await expect(next).resolves.toBe('cancelled')
  })

  it('opens an approval whose arguments are the request, and answers what the person decides', async () => {
    const { asker, turn } = askerUnder(policyForMode('ask-for-approval'))
    const answer = asker.ask(command("/bin/bash -lc 'touch a'"), live())
    const approval = await pendingApproval()
    expect(approval).toMatchObject({
      kind: 'run-command',
      toolName: AGENT_COMMAND_TOOL,
      workingDirectory: workspace,
      summary: "/bin/bash -lc 'touch a'",
    })
    expect(stores.approvals.get(approval.id)).toMatchObject({
      sandboxMode: 'danger-full-access',
      arguments: {
        agent: AGENT,
        commandLine: "/bin/bash -lc 'touch a'",
        argv: null,
        cwd: workspace,
      },
    })
    expect(callOf(turn)).toMatchObject({ status: 'awaiting-approval', approvalId: approval.id })
    expect(stores.conversations.getTurn(turn.id)?.status).toBe('waiting')
    await gate.decide({ approvalId: approval.id, decision: 'allow-once', decidedBy: 'user' })
    await expect(answer).resolves.toBe('allow-once')
    expect(callOf(turn)?.status).toBe('running')
    expect(stores.conversations.getTurn(turn.id)?.status).toBe('running')
  })

  it('answers deny when the person denies, and expired when nobody decides in time', async () => {
    const { asker, turn } = askerUnder(policyForMode('ask-for-approval'))
    const denied = asker.ask(command('touch a'), live())
    const first = await pendingApproval()
    await gate.decide({ approvalId: first.id, decision: 'deny', decidedBy: 'user' })
    await expect(denied).resolves.toBe('deny')
    expect(callOf(turn)).toMatchObject({ status: 'denied', result: { code: 'approval_denied' } })

    const unanswered = asker.ask(command('touch b'), live())
    await pendingApproval(2)
    clock += TTL_MS
    gate.expireDue()
    await expect(unanswered).resolves.toBe('expired')
    expect(callOf(turn)).toMatchObject({ status: 'expired', result: { code: 'approval_expired' } })
  })

  it('answers cancelled when the agent withdraws the request, and expires its approval at once', async () => {
    const { asker } = askerUnder(policyForMode('ask-for-approval'))
    const controller = new AbortController()
    const answer = asker.ask(command('touch a'), controller.signal)
    const approval = await pendingApproval()
    controller.abort()
    await expect(answer).resolves.toBe('cancelled')
    expect(stores.approvals.get(approval.id)).toMatchObject({
      status: 'expired',
      reason: WITHDRAWN_REASON,
      reasonMessage: { code: 'external.withdrawn' },
    })
  })

  it('refuses an allow whose approval no longer shows what the agent asked', async () => {
    const { asker, turn } = askerUnder(policyForMode('ask-for-approval'))
    const answer = asker.ask(command('rm -rf ~/work'), live())
    const approval = await pendingApproval()
    const stored = stores.approvals.get(approval.id)
    db.prepare('UPDATE approvals SET arguments_json = ? WHERE id = ?').run(
      JSON.stringify({ ...stored?.arguments, commandLine: 'echo harmless' }),
      approval.id,
    )
    // The gate refuses a decision on a row that is not the action it
    // opened, and withdraws it: the agent hears no allow.
    await expect(
      gate.decide({ approvalId: approval.id, decision: 'allow-once', decidedBy: 'user' }),
    ).resolves.toMatchObject({ ok: false, code: 'approval_tampered' })
    await expect(answer).resolves.toBe('expired')
    expect(callOf(turn)).toMatchObject({
      status: 'expired',
      result: { code: 'approval_expired', message: { code: 'call.actionChanged' } },
    })
  })

  it('answers a covered request from an allow-always grant without asking, until it is revoked', async () => {
    const notes = join(workspace, 'notes.txt')
    const { asker } = askerUnder(policyForMode('ask-for-approval'))
    const first = asker.ask(newFile(notes), live())
    const approval = await pendingApproval()
    await gate.decide({ approvalId: approval.id, decision: 'allow-always', decidedBy: 'user' })
    await expect(first).resolves.toBe('allow-always')
    const [grant] = stores.grants.listActive(ROOM_ID)
    expect(grant).toMatchObject({ toolName: AGENT_FILE_CHANGE_TOOL, scope: 'path', path: notes })

    await expect(asker.ask(newFile(notes), live())).resolves.toBe('allow-once')
    expect(approvals()).toHaveLength(1)
    expect(auditTypes()).toContain('tool_allowed_by_grant')

    // Another file is not covered.
    const other = asker.ask(newFile(join(workspace, 'other.txt')), live())
    const second = await pendingApproval(2)
    await gate.decide({ approvalId: second.id, decision: 'deny', decidedBy: 'user' })
    await expect(other).resolves.toBe('deny')

    stores.grants.revoke(ROOM_ID, grant?.id ?? '', clock)
    const again = asker.ask(newFile(notes), live())
    const third = await pendingApproval(3)
    await gate.decide({ approvalId: third.id, decision: 'deny', decidedBy: 'user' })
    await expect(again).resolves.toBe('deny')
  })

  it('honours no grant when the policy distrusts standing grants (untrusted)', async () => {
    const notes = join(workspace, 'notes.txt')
    const { asker: trusting } = askerUnder(policyForMode('ask-for-approval'))
    const first = trusting.ask(newFile(notes), live())
    const approval = await pendingApproval()
    await gate.decide({ approvalId: approval.id, decision: 'allow-always', decidedBy: 'user' })
    await first
    const { asker } = askerUnder({
      approvalPolicy: 'untrusted',
      sandboxMode: 'workspace-write',
      approvalReviewer: 'user',
    })
    void asker.ask(newFile(notes), live())
    await pendingApproval(2)
  })

  it("remembers no command of the agent's: it runs outside Assent's sandbox", async () => {
    const { asker } = askerUnder(policyForMode('ask-for-approval'))
    void asker.ask(command('make test'), live())
    const approval = await pendingApproval()
    expect(grantScopeFor(approval)).toEqual({ ok: false, reason: AGENT_COMMAND_UNCONTAINED })
  })

  it('lets the approve-for-me reviewer allow a plain new file, and leaves a command to the person', async () => {
    const { asker } = askerUnder(policyForMode('approve-for-me'))
    await expect(asker.ask(newFile(join(workspace, 'notes.txt')), live())).resolves.toBe(
      'allow-once',
    )
    expect(approvals()[0]).toMatchObject({ status: 'allowed', decidedBy: 'agent-review' })
    void asker.ask(command('make test'), live())
    const escalated = await pendingApproval(2)
    await expect
      .poll(() => stores.approvals.get(escalated.id)?.escalationReason)
      .toBe('commands are decided by a person')
    expect(stores.approvals.get(escalated.id)?.status).toBe('pending')
  })
})
