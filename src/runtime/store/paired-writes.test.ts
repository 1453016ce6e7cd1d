import type { DatabaseSync } from 'node:sqlite'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { InputRequestRecord } from '../../contracts/input-request.ts'
import type { Grant } from '../../contracts/room.ts'
import { policyForMode } from '../policy/permission-modes.ts'
import {
  approvalFixture as approval,
  createRoom,
  openTempDatabase,
  sqliteStores,
  startTurn,
  toolCallFixture,
  turnFixture,
  type SqliteStores,
} from '../test-support/sqlite-stores.ts'
import { SqliteAuditLog, type AuditAppender } from './audit-log.ts'
import { IntegrityMac } from './integrity-mac.ts'

// Every write of the store that records an audit event: the change and its
// event are one transaction, so an append that fails leaves the change
// unwritten too. Each case names the event, how to prepare the rows, the
// write itself, and what of the store it changes.

const MAC = new IntegrityMac(Buffer.alloc(32, 3))
const AT = 5_000
/** What the gate hands the store with a decision: the decided action's digest. */
const DIGEST = 'd'.repeat(64)
let db: DatabaseSync
let close: () => void

beforeEach(() => {
  ;({ db, close } = openTempDatabase('assent-paired-'))
})

afterEach(() => close())

type Stores = SqliteStores
const storesWith = (audit: AuditAppender & Pick<SqliteAuditLog, 'firstSealed'>) =>
  sqliteStores(db, { mac: MAC, audit })

/** The real log, except that appending `failing` throws. */
function auditFailingOn(failing: string) {
  const real = new SqliteAuditLog(db, { mac: MAC })
  return {
    append: (event: Parameters<AuditAppender['append']>[0]) => {
      if (event.type === failing) throw new Error(`disk full while appending ${failing}`)
      return real.append(event)
    },
    firstSealed: real.firstSealed.bind(real),
  }
}

const call = toolCallFixture

const grant: Grant = {
  id: 'grant-1',
  roomId: 'room-1',
  toolName: 'write_file',
  scope: 'tool',
  command: null,
  approvalId: 'approval-1',
  createdAt: AT,
}

function question(): InputRequestRecord {
  return {
    id: 'input-1',
    roomId: 'room-1',
    turnId: 'turn-1',
    kind: 'questions',
    questions: [{ id: 'q1', title: 'Which?', text: '', options: [], secret: false }],
    form: null,
    blocking: false,
    timing: { silentMs: 10, countdownMs: 10 },
    autoResolveAt: 21,
    sensitive: false,
    status: 'pending',
    answers: null,
    content: null,
    createdAt: 1,
    resolvedAt: null,
  }
}

/** A room with one turn, written through a log that never fails. */
function seedRoomAndTurn(stores: Stores): void {
  createRoom(stores)
  startTurn(stores, turnFixture())
}

/** Why an allowed call was refused when it was about to run. */
const TARGET_CHANGED = {
  ok: false,
  output: 'notes.txt is now another file',
  code: 'target_changed',
}

/** The room, its turn waiting for a decision, and the call it waits on. */
function seedWaitingCall(stores: Stores): void {
  seedRoomAndTurn(stores)
  stores.conversations.setTurnStatus('turn-1', 'waiting')
  stores.conversations.insertToolCall(call())
}

/** The call's status and result, and its turn's status. */
function callAndTurn(): unknown[] {
  return [
    db.prepare('SELECT status, result_json FROM tool_calls').all(),
    db.prepare('SELECT status FROM turns').all(),
  ]
}

/** The room and turn with one open approval. */
function seedOpenApproval(stores: Stores): void {
  seedRoomAndTurn(stores)
  stores.approvals.open(approval())
}

/** Allows the open approval always, with its grant. */
function allowAlways(stores: Stores): void {
  stores.approvals.resolve(
    approval({ status: 'allowed', decision: 'allow-always', decidedBy: 'user', decidedAt: AT }),
    { decision: 'allow-always', decidedBy: 'user', actionDigest: DIGEST },
    AT,
    () => grant,
  )
}

interface PairedWrite {
  event: string
  arrange?: (stores: Stores) => void
  act: (stores: Stores) => unknown
  /** What the write changes, read back from the database. */
  observe: () => unknown
}

const rowOf = (sql: string) => () => db.prepare(sql).all()

const PAIRED_WRITES: Record<string, PairedWrite> = {
  'opening an approval': {
    event: 'approval_requested',
    arrange: seedRoomAndTurn,
    act: (stores) => stores.approvals.open(approval()),
    observe: rowOf('SELECT id, status FROM approvals'),
  },
  'deciding an approval': {
    event: 'approval_resolved',
    arrange: seedOpenApproval,
    act: (stores) =>
      stores.approvals.resolve(
        approval({ status: 'allowed', decision: 'allow-once', decidedBy: 'user', decidedAt: AT }),
        { decision: 'allow-once', decidedBy: 'user', actionDigest: DIGEST },
        AT,
      ),
    observe: rowOf('SELECT status, decision FROM approvals'),
  },
  'deciding allow-always with its grant': {
    event: 'grant_created',
    arrange: seedOpenApproval,
    act: allowAlways,
    observe: () => [
      db.prepare('SELECT status FROM approvals').all(),
      db.prepare('SELECT id FROM grants').all(),
    ],
  },
  'expiring an approval': {
    event: 'approval_expired',
    arrange: seedOpenApproval,
    act: (stores) =>
      stores.approvals.expire(
        approval({ status: 'expired', decidedBy: 'timeout', decidedAt: AT, reason: 'late' }),
        'late',
        AT,
      ),
    observe: rowOf('SELECT status FROM approvals'),
  },
  'noting why the reviewer escalated': {
    event: 'review_escalated',
    arrange: seedOpenApproval,
    act: (stores) => stores.approvals.escalate(approval(), 'touches a credentials file', AT),
    observe: rowOf('SELECT escalation_reason FROM approvals'),
  },
  'creating a room': {
    event: 'room_created',
    act: seedRoomAndTurn,
    observe: rowOf('SELECT id FROM rooms'),
  },
  'changing a room’s mode': {
    event: 'room_permission_changed',
    arrange: seedRoomAndTurn,
    act: (stores) =>
      stores.rooms.changePolicy(
        {
          roomId: 'room-1',
          clientRequestId: 'change-1',
          bodyDigest: 'd'.repeat(64),
          policy: policyForMode('approve-for-me'),
          expectedRevision: 0,
          fromMode: 'ask-for-approval',
          toMode: 'approve-for-me',
          at: AT,
        },
        () => ({
          roomId: 'room-1',
          revision: 1,
          policy: policyForMode('approve-for-me'),
          mode: 'approve-for-me',
          fullAccessUnavailable: null,
          integrity: 'ok',
        }),
      ),
    observe: () => [
      db.prepare('SELECT revision, policy_json, mac FROM rooms').all(),
      db.prepare('SELECT client_request_id FROM permission_requests').all(),
    ],
  },
  'revoking a grant': {
    event: 'grant_revoked',
    arrange: (stores) => {
      seedOpenApproval(stores)
      allowAlways(stores)
    },
    act: (stores) => stores.grants.revoke('room-1', 'grant-1', AT),
    observe: rowOf('SELECT revoked_at, mac FROM grants'),
  },
  'asking a question': {
    event: 'input_requested',
    arrange: seedRoomAndTurn,
    act: (stores) => stores.inputs.open(question()),
    observe: rowOf('SELECT id, status FROM input_requests'),
  },
  'closing a question': {
    event: 'input_resolved',
    arrange: (stores) => {
      seedRoomAndTurn(stores)
      stores.inputs.open(question())
    },
    act: (stores) =>
      stores.inputs.close(
        { ...question(), status: 'dismissed', resolvedAt: AT },
        'dismiss',
        AT,
        'workbench',
      ),
    observe: rowOf('SELECT status FROM input_requests'),
  },
  "moving a question's deadline": {
    event: 'input_deadline_extended',
    arrange: (stores) => {
      seedRoomAndTurn(stores)
      stores.inputs.open(question())
    },
    act: (stores) => stores.inputs.extendDeadline({ ...question(), autoResolveAt: AT + 20 }, AT),
    observe: rowOf('SELECT auto_resolve_at FROM input_requests'),
  },
  'marking orphaned questions stale': {
    event: 'input_request_stale',
    arrange: (stores) => {
      seedRoomAndTurn(stores)
      stores.inputs.open(question())
    },
    act: (stores) => stores.inputs.markPendingStale(AT),
    observe: rowOf('SELECT status FROM input_requests'),
  },
  'running a call the policy allows': {
    event: 'tool_allowed_by_policy',
    arrange: (stores) => {
      seedRoomAndTurn(stores)
      stores.conversations.insertToolCall(call())
    },
    act: (stores) =>
      stores.conversations.markRunning(call(), AT, { type: 'tool_allowed_by_policy' }),
    observe: rowOf('SELECT status FROM tool_calls'),
  },
  'running a call in a turn that waited, with the turn running again': {
    event: 'tool_allowed_by_policy',
    arrange: seedWaitingCall,
    act: (stores) =>
      stores.conversations.markRunning(call(), AT, { type: 'tool_allowed_by_policy' }, 'running'),
    observe: callAndTurn,
  },
  'opening a gateway call a grant answers for': {
    event: 'tool_allowed_by_grant',
    arrange: createRoom,
    act: (stores) =>
      stores.conversations.openCallAllowedByGrant(
        turnFixture({ status: 'waiting' }),
        call(),
        'grant-1',
        AT,
      ),
    observe: () => [
      db.prepare('SELECT status FROM tool_calls').all(),
      db.prepare('SELECT status FROM turns').all(),
    ],
  },
  'reconciling an execution': {
    event: 'execution_reconciled',
    arrange: (stores) => {
      seedRoomAndTurn(stores)
      stores.conversations.insertToolCall(call({ status: 'unknown' }))
    },
    act: (stores) =>
      stores.conversations.reconcile(
        call({ status: 'unknown' }),
        { status: 'succeeded', result: { ok: true, output: 'Reconciled', code: 'reconciled' } },
        { outcome: 'succeeded' },
        AT,
      ),
    observe: rowOf('SELECT status, result_json FROM tool_calls'),
  },
  'refusing an allowed call whose target changed': {
    event: 'execution_refused',
    arrange: (stores) => {
      seedRoomAndTurn(stores)
      stores.conversations.insertToolCall(call())
    },
    act: (stores) => stores.conversations.refuseExecution(call(), TARGET_CHANGED, 'approval-1', AT),
    observe: rowOf('SELECT status, result_json FROM tool_calls'),
  },
  'refusing an allowed call in a turn that waited, with the turn running again': {
    event: 'execution_refused',
    arrange: seedWaitingCall,
    act: (stores) =>
      stores.conversations.refuseExecution(call(), TARGET_CHANGED, 'approval-1', AT, 'running'),
    observe: callAndTurn,
  },
  'settling what a crash interrupted': {
    event: 'execution_unknown',
    arrange: (stores) => {
      seedRoomAndTurn(stores)
      stores.conversations.insertToolCall(call({ status: 'running' }))
    },
    act: (stores) =>
      stores.conversations.settleInterrupted(AT, {
        ok: false,
        output: 'restarted',
        code: 'approval_expired',
      }),
    observe: () => [
      db.prepare('SELECT status FROM tool_calls').all(),
      db.prepare('SELECT status FROM turns').all(),
    ],
  },
}

function eventTypes(): string[] {
  return new SqliteAuditLog(db, { mac: MAC }).list().map((event) => event.type)
}

describe('the store writes each state change with its audit event', () => {
  for (const [name, write] of Object.entries(PAIRED_WRITES)) {
    it(`records ${write.event} when ${name}`, () => {
      const stores = storesWith(new SqliteAuditLog(db, { mac: MAC }))
      write.arrange?.(stores)
      const before = write.observe()
      const eventsBefore = eventTypes().filter((type) => type === write.event).length
      write.act(stores)
      expect(write.observe()).not.toEqual(before)
      expect(eventTypes().filter((type) => type === write.event).length).toBe(eventsBefore + 1)
    })

    it(`writes nothing when ${name} and its ${write.event} event cannot be appended`, () => {
      write.arrange?.(storesWith(new SqliteAuditLog(db, { mac: MAC })))
      const before = write.observe()
      const eventsBefore = eventTypes()
      const stores = storesWith(auditFailingOn(write.event))
      expect(() => write.act(stores)).toThrow(`disk full while appending ${write.event}`)
      expect(write.observe()).toEqual(before)
      expect(eventTypes()).toEqual(eventsBefore)
      expect(db.isTransaction).toBe(false)
    })
  }
})
