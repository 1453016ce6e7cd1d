import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { DatabaseSync } from 'node:sqlite'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { RESTART_EXPIRY_REASON, type ApprovalRecord } from '../../contracts/approval.ts'
import type { ToolCallRecord, Turn } from '../../contracts/room.ts'
import { EventBus, type RuntimeEvent } from '../events/event-bus.ts'
import { ApprovalGate } from '../gate/approval-gate.ts'
import { InputRequestService } from '../input/input-request-service.ts'
import { policyForMode } from '../policy/permission-modes.ts'
import { narrowestRoomPolicy } from '../policy/room-policy.ts'
import { SqliteApprovalRepository } from '../store/approval-repository.ts'
import { SqliteAuditLog } from '../store/audit-log.ts'
import { SqliteConversationRepository } from '../store/conversation-repository.ts'
import { openDatabase } from '../store/database.ts'
import { SqliteGrantRepository } from '../store/grant-repository.ts'
import { SqliteInputRequestRepository } from '../store/input-request-repository.ts'
import { IntegrityMac, type IntegrityProblem } from '../store/integrity-mac.ts'
import { SqliteRoomRepository } from '../store/room-repository.ts'
import { INTERRUPTED_CALL_RESULT, recoverFromCrash } from './crash-recovery.ts'

const MAC = new IntegrityMac(Buffer.alloc(32, 11))
const RESTARTED_AT = 50_000
let dir: string
let db: DatabaseSync

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'assent-recovery-'))
  db = openDatabase(dir)
})

afterEach(() => {
  db.close()
  rmSync(dir, { recursive: true, force: true })
})

/** One runtime instance's view of the store, as runtime-app wires it. */
function instance(now: () => number) {
  const audit = new SqliteAuditLog(db, { mac: MAC })
  const events = new EventBus()
  const seen: RuntimeEvent[] = []
  events.subscribe((event) => seen.push(event))
  const tampered: IntegrityProblem[] = []
  const rooms = new SqliteRoomRepository(db, {
    mac: MAC,
    audit,
    narrowestPolicy: narrowestRoomPolicy,
    onTampered: (problem) => tampered.push(problem),
  })
  const grants = new SqliteGrantRepository(db, {
    mac: MAC,
    audit,
    roomIntact: () => true,
    onTampered: (problem) => tampered.push(problem),
  })
  const approvals = new SqliteApprovalRepository(db, { audit, grants })
  const conversations = new SqliteConversationRepository(db, { audit })
  const gate = new ApprovalGate({ approvals, events, now, grantFor: () => undefined })
  const inputs = new InputRequestService({
    requests: new SqliteInputRequestRepository(db, { audit }),
    events,
    now,
    roomExists: () => true,
  })
  const recover = () =>
    recoverFromCrash({
      interrupted: conversations,
      expireOrphanedApprovals: (reason) => gate.expireOrphans(reason),
      staleOrphanedInputs: () => inputs.staleOrphans(),
      rooms,
      grants,
      now,
    })
  return { audit, seen, tampered, rooms, grants, approvals, conversations, gate, inputs, recover }
}

function turn(id: string, status: Turn['status']): Turn {
  return {
    id,
    roomId: 'room-1',
    clientRequestId: id,
    text: 'work',
    attempt: 1,
    retryOf: null,
    workspace: '/ws',
    policy: policyForMode('ask-for-approval'),
    status,
    createdAt: 1,
  }
}

function call(id: string, turnId: string, status: ToolCallRecord['status']): ToolCallRecord {
  return {
    id,
    roomId: 'room-1',
    turnId,
    seq: 0,
    toolName: 'write_file',
    arguments: { path: id, content: 'x' },
    status,
    result: null,
    approvalId: null,
    createdAt: 1,
    updatedAt: 1,
  }
}

/** What a crash leaves: a tool running, a call waiting for a decision, a
 *  question nobody answered, and a grant row edited while nothing ran. */
function crashMidWork(): { approval: ApprovalRecord } {
  const before = instance(() => 1_000)
  before.rooms.create({
    id: 'room-1',
    kind: 'direct',
    agentId: 'assistant',
    workspace: '/ws',
    title: 'Room',
    policy: policyForMode('ask-for-approval'),
    revision: 0,
    createdAt: 1,
  })
  const message = (turnId: string) => ({
    id: `m-${turnId}`,
    roomId: 'room-1',
    turnId,
    role: 'user' as const,
    text: 'work',
    createdAt: 1,
  })
  before.conversations.startTurn(turn('turn-running', 'running'), message('turn-running'))
  before.conversations.insertToolCall(call('call-running', 'turn-running', 'running'))
  before.conversations.startTurn(turn('turn-waiting', 'waiting'), message('turn-waiting'))
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
    { decision: 'allow-always', decidedBy: 'user' },
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
