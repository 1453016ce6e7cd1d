import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { DatabaseSync } from 'node:sqlite'
import type { ApprovalRecord } from '../../contracts/approval.ts'
import type { ToolCallRecord, Turn } from '../../contracts/room.ts'
import { policyForMode } from '../policy/permission-modes.ts'
import type { RoomNow } from '../policy/allower-stands.ts'
import { narrowestRoomPolicy } from '../policy/room-policy.ts'
import { SqliteApprovalRepository } from '../store/approval-repository.ts'
import { SqliteApproverWebhookRepository } from '../store/approver-webhook-repository.ts'
import { SqliteAuditLog, type AuditAppender } from '../store/audit-log.ts'
import { SqliteConversationRepository } from '../store/conversation-repository.ts'
import { openDatabase } from '../store/database.ts'
import { SqliteGrantRepository } from '../store/grant-repository.ts'
import { SqliteInputRequestRepository } from '../store/input-request-repository.ts'
import type { IntegrityMac, OnTampered } from '../store/integrity-mac.ts'
import { SqliteRoomRepository } from '../store/room-repository.ts'
import { SecretSealer } from '../store/secret-sealer.ts'

/** A real SQLite store in a fresh temporary data folder, for one test. */
export function openTempDatabase(prefix: string): { db: DatabaseSync; close: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  const db = openDatabase(dir)
  return {
    db,
    close: () => {
      db.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

export interface StoreOptions {
  mac: IntegrityMac
  /** The log the repositories append to; the real one by default. */
  audit?: AuditAppender & Pick<SqliteAuditLog, 'firstSealed'>
  /** Every read of a row whose seal fails; throws by default, so a test
   *  that did not mean to tamper with anything notices. */
  onTampered?: OnTampered
}

/** Every repository the runtime wires, over one database, as runtime-storage.ts
 *  wires them. */
export function sqliteStores(db: DatabaseSync, options: StoreOptions) {
  const { mac } = options
  const audit = options.audit ?? new SqliteAuditLog(db, { mac })
  const onTampered =
    options.onTampered ??
    ((problem) => {
      throw new Error(`unexpected integrity problem: ${JSON.stringify(problem)}`)
    })
  const rooms = new SqliteRoomRepository(db, {
    mac,
    audit,
    narrowestPolicy: narrowestRoomPolicy,
    onTampered,
  })
  const grants = new SqliteGrantRepository(db, {
    mac,
    audit,
    roomIntact: (roomId) => rooms.get(roomId)?.integrity === 'ok',
    onTampered,
  })
  return {
    audit,
    rooms,
    grants,
    approvals: new SqliteApprovalRepository(db, { audit, grants }),
    conversations: new SqliteConversationRepository(db, { audit }),
    inputs: new SqliteInputRequestRepository(db, { audit }),
    webhooks: new SqliteApproverWebhookRepository(db, {
      mac,
      sealer: new SecretSealer(Buffer.alloc(32, 7)),
      audit,
      roomIntact: (roomId) => rooms.get(roomId)?.integrity === 'ok',
      onTampered,
    }),
  }
}
export type SqliteStores = ReturnType<typeof sqliteStores>

export const ROOM_ID = 'room-1'

export function turnFixture(overrides: Partial<Turn> = {}): Turn {
  return {
    id: 'turn-1',
    roomId: ROOM_ID,
    clientRequestId: overrides.id ?? 'c-1',
    text: 'do it',
    attempt: 1,
    retryOf: null,
    workspace: '/ws',
    policy: policyForMode('ask-for-approval'),
    status: 'running',
    createdAt: 1,
    ...overrides,
  }
}

export function toolCallFixture(overrides: Partial<ToolCallRecord> = {}): ToolCallRecord {
  return {
    id: 'call-1',
    roomId: ROOM_ID,
    turnId: 'turn-1',
    seq: 0,
    toolName: 'write_file',
    arguments: { path: 'a', content: 'b' },
    status: 'awaiting-approval',
    result: null,
    approvalId: null,
    createdAt: 1,
    updatedAt: 1,
    ...overrides,
  }
}

export function approvalFixture(overrides: Partial<ApprovalRecord> = {}): ApprovalRecord {
  return {
    id: 'approval-1',
    roomId: ROOM_ID,
    turnId: 'turn-1',
    toolCallId: 'call-1',
    kind: 'apply-changes',
    toolName: 'write_file',
    arguments: { path: 'a', content: 'b' },
    workingDirectory: '/ws',
    sandboxMode: 'workspace-write',
    summary: 'Write a',
    status: 'pending',
    createdAt: 1,
    expiresAt: 100_000,
    ...overrides,
  }
}

/** The direct room every fixture belongs to, written through the store. */
export function createRoom(stores: Pick<SqliteStores, 'rooms'>): void {
  stores.rooms.create({
    id: ROOM_ID,
    kind: 'direct',
    agentId: 'assistant',
    workspace: '/ws',
    title: 'Room',
    policy: policyForMode('ask-for-approval'),
    revision: 0,
    createdAt: 1,
  })
}

/** Writes `turn` with the person's message that starts it. */
export function startTurn(stores: Pick<SqliteStores, 'conversations'>, turn: Turn): void {
  stores.conversations.startTurn(turn, {
    id: `message-${turn.id}`,
    roomId: turn.roomId,
    turnId: turn.id,
    role: 'user',
    text: turn.text,
    createdAt: turn.createdAt,
  })
}

/**
 * The room now, for a test whose turns carry the policy under test (the
 * room row, where there is one, may be at another mode): never narrower
 * than any turn (it reads as full access, so the turn's frozen policy is
 * the one in force), its grants the store's, and its approver webhook
 * `delegate`, where one is given. The rule's own tests narrow a real row
 * (storedRoomNow); this stands in only where narrowing is not the subject.
 */
export function roomAsFrozen(
  stores: Pick<SqliteStores, 'grants'>,
  delegate?: { id: string },
): RoomNow {
  return {
    policyOf: () => policyForMode('full-access'),
    grantActive: (roomId, grantId) =>
      stores.grants.listActive(roomId).some((grant) => grant.id === grantId),
    webhookOf: () => (delegate === undefined ? undefined : { id: delegate.id, setAt: 0 }),
  }
}
