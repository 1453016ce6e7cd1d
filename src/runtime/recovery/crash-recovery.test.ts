import type { DatabaseSync } from 'node:sqlite'
import { actionDigest, canonicalAction } from '../domain/approval.ts'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { RESTART_EXPIRY_REASON, type ApprovalRecord } from '../../contracts/approval.ts'
import { EventBus, type RuntimeEvent } from '../events/event-bus.ts'
import { ApprovalGate } from '../gate/approval-gate.ts'
import { InputRequestService } from '../input/input-request-service.ts'
import { SqliteAuditLog } from '../store/audit-log.ts'
import { IntegrityMac, type IntegrityProblem } from '../store/integrity-mac.ts'
import {
  createRoom,
  openTempDatabase,
  sqliteStores,
  startTurn,
  toolCallFixture,
  turnFixture,
} from '../test-support/sqlite-stores.ts'
import { INTERRUPTED_CALL_RESULT, recoverFromCrash } from './crash-recovery.ts'

const MAC = new IntegrityMac(Buffer.alloc(32, 11))
const RESTARTED_AT = 50_000
let db: DatabaseSync
let close: () => void

beforeEach(() => {
  ;({ db, close } = openTempDatabase('assent-recovery-'))
})

afterEach(() => close())

/** One runtime instance's view of the store, as runtime-storage.ts wires it. */
function instance(now: () => number) {
  const audit = new SqliteAuditLog(db, { mac: MAC })
  const events = new EventBus()
  const seen: RuntimeEvent[] = []
  events.subscribe((event) => seen.push(event))
  const tampered: IntegrityProblem[] = []
  const stores = sqliteStores(db, {
    mac: MAC,
    audit,
    onTampered: (problem) => tampered.push(problem),
  })
  const gate = new ApprovalGate({ approvals: stores.approvals, events, now })
  const inputs = new InputRequestService({
    requests: stores.inputs,
    events,
    now,
    roomExists: () => true,
  })
  const recover = () =>
    recoverFromCrash({
      interrupted: stores.conversations,
      expireOrphanedApprovals: (reason) => gate.expireOrphans(reason),
      staleOrphanedInputs: () => inputs.staleOrphans(),
      rooms: stores.rooms,
      grants: stores.grants,
      now,
    })
  return { ...stores, audit, seen, tampered, gate, inputs, recover }
}

const turn = (id: string, status: 'running' | 'waiting') =>
  turnFixture({ id, status, text: 'work' })
const call = (id: string, turnId: string, status: 'running' | 'awaiting-approval') =>
  toolCallFixture({ id, turnId, status, arguments: { path: id, content: 'x' } })

/** What a crash leaves: a tool running, a call waiting for a decision, a
 *  question nobody answered, and a grant row edited while nothing ran. */
function crashMidWork(): { approval: ApprovalRecord } {
  const before = instance(() => 1_000)
  createRoom(before)
  startTurn(before, turn('turn-running', 'running'))
  before.conversations.insertToolCall(call('call-running', 'turn-running', 'running'))
  startTurn(before, turn('turn-waiting', 'waiting'))
  before.conversations.insertToolCall(call('call-waiting', 'turn-waiting', 'awaiting-approval'))
  const approval = before.gate.open({
    id: 'approval-waiting',
    roomId: 'room-1',
    turnId: 'turn-waiting',
    toolCallId: 'call-waiting',
    kind: 'apply-changes',
    toolName: 'write_file',
    arguments: { path: 'call-waiting', content: 'x' },
    workingDirectory: '/ws',
    sandboxMode: 'workspace-write',
    summary: 'Write',
    ttlMs: 600_000,
  })
  void before.inputs.askQuestions({
    roomId: 'room-1',
    turnId: 'turn-waiting',
    questions: [{ id: 'q1', title: 'Which?', text: '', options: [], secret: false }],
    blocking: true,
  })
  before.approvals.open({ ...approval, id: 'approval-granted', toolCallId: 'call-running' })
  before.approvals.resolve(
    {
      ...approval,
      id: 'approval-granted',
      toolCallId: 'call-running',
      status: 'allowed',
      decision: 'allow-always',
      decidedBy: 'user',
      decidedAt: 2_000,
    },
    {
      decision: 'allow-always',
      decidedBy: 'user',
      actionDigest: actionDigest(canonicalAction(approval)),
    },
    2_000,
    () => ({
      id: 'grant-1',
      roomId: 'room-1',
      toolName: 'write_file',
      scope: 'tool',
      command: null,
      approvalId: 'approval-granted',
      createdAt: 2_000,
    }),
  )
  db.prepare("UPDATE grants SET tool_name = 'run_command' WHERE id = 'grant-1'").run()
  return { approval }
}

describe('crash recovery at start', () => {
  it('marks a running execution unknown, with its audit event, and interrupts its turn', () => {
    crashMidWork()
    const after = instance(() => RESTARTED_AT)
    const report = after.recover()
    expect(report.unknownExecutions.map((unknown) => unknown.id)).toEqual(['call-running'])
    expect(after.conversations.getToolCall('call-running')).toMatchObject({
      status: 'unknown',
      updatedAt: RESTARTED_AT,
    })
    expect(after.conversations.getTurn('turn-running')?.status).toBe('interrupted')
    expect(after.audit.list().filter((event) => event.type === 'execution_unknown')).toEqual([
      expect.objectContaining({
        subjectId: 'call-running',
        payload: { roomId: 'room-1', turnId: 'turn-running', toolName: 'write_file' },
        at: RESTARTED_AT,
      }),
    ])
  })

  it('ends a call that waited for a decision as expired and expires its approval', () => {
    crashMidWork()
    const after = instance(() => RESTARTED_AT)
    const report = after.recover()
    expect(after.conversations.getToolCall('call-waiting')).toMatchObject({
      status: 'expired',
      result: INTERRUPTED_CALL_RESULT,
    })
    expect(after.conversations.getTurn('turn-waiting')?.status).toBe('interrupted')
    expect(report.expiredApprovals.map((expired) => expired.id)).toEqual(['approval-waiting'])
    expect(after.approvals.get('approval-waiting')).toMatchObject({
      status: 'expired',
      decidedBy: 'timeout',
      reason: RESTART_EXPIRY_REASON,
      decidedAt: RESTARTED_AT,
    })
    expect(after.seen.map((event) => event.type)).toContain('approval.resolved')
  })

  it('turns an unanswered question stale and says so', () => {
    crashMidWork()
    const after = instance(() => RESTARTED_AT)
    after.recover()
    expect(after.inputs.list('room-1').map((request) => request.status)).toEqual(['stale'])
    expect(after.audit.list().map((event) => event.type)).toContain('input_request_stale')
    expect(after.seen.map((event) => event.type)).toContain('input.resolved')
  })

  it('reports a grant row edited while the runtime was down before anyone reads it', () => {
    crashMidWork()
    const after = instance(() => RESTARTED_AT)
    expect(after.tampered).toEqual([])
    after.recover()
    expect(after.tampered).toEqual([
      expect.objectContaining({ table: 'grants', rowId: 'grant-1', problem: 'mac_mismatch' }),
    ])
  })

  it('finds nothing left to settle when it runs again', () => {
    crashMidWork()
    instance(() => RESTARTED_AT).recover()
    const again = instance(() => RESTARTED_AT + 1)
    const eventsBefore = again.audit.list().length
    const report = again.recover()
    expect(report).toEqual({ unknownExecutions: [], expiredApprovals: [] })
    expect(again.audit.list()).toHaveLength(eventsBefore)
    expect(again.conversations.getToolCall('call-running')?.status).toBe('unknown')
  })
})
