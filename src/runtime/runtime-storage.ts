import type { DatabaseSync } from 'node:sqlite'
import type { EventBus } from './events/event-bus.ts'
import type { RollbackAnchor } from './ports/rollback-anchor.ts'
import { RollbackGuard } from './rollback/rollback-guard.ts'
import { narrowestRoomPolicy } from './policy/room-policy.ts'
import { IntegrityReporter } from './rooms/integrity-reporter.ts'
import { SqliteApprovalRepository } from './store/approval-repository.ts'
import { SqliteApproverWebhookRepository } from './store/approver-webhook-repository.ts'
import { SqliteAuditLog } from './store/audit-log.ts'
import { SqliteConversationRepository } from './store/conversation-repository.ts'
import { openDatabase } from './store/database.ts'
import { durabilityOf, type WalDurability } from './store/durability.ts'
import { SqliteGrantRepository } from './store/grant-repository.ts'
import { SqliteInputRequestRepository } from './store/input-request-repository.ts'
import { IntegrityMac } from './store/integrity-mac.ts'
import { SqliteRollbackRepository } from './store/rollback-repository.ts'
import { SqliteRoomRepository } from './store/room-repository.ts'
import { SecretSealer } from './store/secret-sealer.ts'
import { SqliteSettingsRepository } from './store/settings-repository.ts'

export interface RuntimeStorageOptions {
  /** Seals the audit log, room permissions, grants and webhook secrets. */
  integrityKey: Buffer
  dataDir: string
  /** The anchor main read before this start, and main's side of it. */
  rollback: { stored: number | null; anchor: RollbackAnchor }
  /** The store can no longer make writes durable; exits by default. */
  onFatal?: (error: Error) => void
  events: EventBus
  now: () => number
  onError: (error: unknown) => void
}

/** One runtime instance's store: every repository over one database, and
 *  the rollback guard that has already checked it against its anchor. */
export interface RuntimeStorage {
  db: DatabaseSync
  durability: WalDurability
  audit: SqliteAuditLog
  rooms: SqliteRoomRepository
  conversations: SqliteConversationRepository
  grants: SqliteGrantRepository
  webhooks: SqliteApproverWebhookRepository
  rollback: RollbackGuard
  approvals: SqliteApprovalRepository
  inputRequests: SqliteInputRequestRepository
  settings: SqliteSettingsRepository
}

function defaultOnFatal(error: Error): void {
  console.error(`[runtime] stopping: ${error.message}`)
  process.exit(70)
}

/**
 * Opens the data folder's database and wires its repositories, sealed with
 * the integrity key; a row whose seal fails is reported as tampered. The
 * rollback check runs before this resolves, so nothing reads a room of a
 * database older than its anchor before its rooms are marked and its grants
 * revoked.
 */
export async function openRuntimeStorage(options: RuntimeStorageOptions): Promise<RuntimeStorage> {
  const { events, now, onError } = options
  const mac = new IntegrityMac(options.integrityKey)
  const db = openDatabase(options.dataDir, {
    onDurabilityFailure: options.onFatal ?? defaultOnFatal,
  })
  const durability = durabilityOf(db)
  const audit = new SqliteAuditLog(db, { mac })
  const integrity = new IntegrityReporter({ audit, events, now, onError })
  const rooms = new SqliteRoomRepository(db, {
    mac,
    audit,
    onTampered: integrity.report,
    narrowestPolicy: narrowestRoomPolicy,
  })
  const conversations = new SqliteConversationRepository(db, { audit })
  const grants = new SqliteGrantRepository(db, {
    mac,
    audit,
    roomIntact: (roomId) => rooms.get(roomId)?.integrity === 'ok',
    onTampered: integrity.report,
  })
  const webhooks = new SqliteApproverWebhookRepository(db, {
    mac,
    sealer: new SecretSealer(options.integrityKey),
    audit,
    roomIntact: (roomId) => rooms.get(roomId)?.integrity === 'ok',
    onTampered: integrity.report,
  })
  const rollback = new RollbackGuard({
    store: new SqliteRollbackRepository(db, { mac, audit, rooms, grants, webhooks }),
    anchor: options.rollback.anchor,
    durable: () => durability.durable(),
    events,
    now,
    onError,
  })
  // Before anything reads a room: a database older than its anchor has its
  // rooms marked and its grants revoked first.
  await rollback.start(options.rollback.stored)
  const approvals = new SqliteApprovalRepository(db, { audit, grants })
  const settings = new SqliteSettingsRepository(db)
  settings.seedDefaults()
  return {
    db,
    durability,
    audit,
    rooms,
    conversations,
    grants,
    webhooks,
    rollback,
    approvals,
    inputRequests: new SqliteInputRequestRepository(db, { audit }),
    settings,
  }
}
