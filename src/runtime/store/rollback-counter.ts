import type { DatabaseSync } from 'node:sqlite'
import type {
  AnchorLag,
  RollbackDetection,
  RollbackRecord,
  RollbackStore,
  SealedCounter,
} from '../ports/rollback-store.ts'
import type { AuditAppender } from './audit-log.ts'
import { inTransaction } from './database.ts'
import type { SqliteGrantRepository } from './grant-repository.ts'
import type { IntegrityMac } from './integrity-mac.ts'
import type { SqliteRoomRepository } from './room-repository.ts'

/**
 * The database's sealed rollback counter (docs/integrity.md#rollback), as
 * it is on disk. Read-only, so `assent audit verify` reads it the same way;
 * a database from before the counter existed has no table and reads as
 * absent.
 */
export function readSealedCounter(db: DatabaseSync, mac: IntegrityMac): SealedCounter {
  const table = db
    .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'rollback_counter'")
    .get()
  if (!table) return { state: 'absent' }
  const row = db.prepare('SELECT counter, mac FROM rollback_counter WHERE id = 1').get()
  if (!row) return { state: 'absent' }
  const counter = Number(row.counter)
  const seal = row.mac == null ? null : String(row.mac)
  if (!Number.isSafeInteger(counter) || counter < 0) return { state: 'tampered' }
  return mac.verify('rollback-counter', { counter }, seal)
    ? { state: 'sealed', counter }
    : { state: 'tampered' }
}

/**
 * The counter the repositories advance, inside the transaction of the
 * change it counts. It counts from the highest value this instance knows
 * (the sealed row, or what the start check settled on), so a row edited
 * while the runtime runs can neither hold the counter back nor be vouched
 * for: the next advance seals a value of this instance's own.
 */
export class SqliteRollbackCounter {
  private readonly db: DatabaseSync
  private readonly mac: IntegrityMac
  private floor = 0
  private listener: () => void = () => undefined

  constructor(db: DatabaseSync, mac: IntegrityMac) {
    this.db = db
    this.mac = mac
  }

  read(): SealedCounter {
    return readSealedCounter(this.db, this.mac)
  }

  countFrom(counter: number): void {
    this.floor = Math.max(this.floor, counter)
  }

  onAdvanced(listener: () => void): void {
    this.listener = listener
  }

  /** Moves the counter one past the highest known value; inside the
   *  caller's transaction, so it commits with the change it counts. */
  advance(): number {
    const current = this.read()
    return this.seal(Math.max(this.floor, current.state === 'sealed' ? current.counter : 0) + 1)
  }

  /** Seals exactly `counter` (the start check's choice after a rollback). */
  seal(counter: number): number {
    if (!this.db.isTransaction) {
      throw new Error('the rollback counter moves only inside the transaction it counts')
    }
    this.db
      .prepare(
        `INSERT INTO rollback_counter (id, counter, mac) VALUES (1, ?, ?)
         ON CONFLICT (id) DO UPDATE SET counter = excluded.counter, mac = excluded.mac`,
      )
      .run(counter, this.mac.sign('rollback-counter', { counter }))
    this.floor = Math.max(this.floor, counter)
    this.listener()
    return counter
  }
}

export interface RollbackStoreOptions {
  counter: SqliteRollbackCounter
  audit: AuditAppender
  rooms: Pick<SqliteRoomRepository, 'markAllRolledBack'>
  grants: Pick<SqliteGrantRepository, 'revokeAllActive'>
}

/** Rollback detection's records, each a change with its audit event. */
export class SqliteRollbackStore implements RollbackStore {
  private readonly db: DatabaseSync
  private readonly options: RollbackStoreOptions

  constructor(db: DatabaseSync, options: RollbackStoreOptions) {
    this.db = db
    this.options = options
  }

  readCounter(): SealedCounter {
    return this.options.counter.read()
  }

  countFrom(counter: number): void {
    this.options.counter.countFrom(counter)
  }

  onAdvanced(listener: () => void): void {
    this.options.counter.onAdvanced(listener)
  }

  recordRollback(detection: RollbackDetection): RollbackRecord {
    return inTransaction(this.db, () => {
      const roomIds = this.options.rooms.markAllRolledBack()
      const revokedGrantIds = this.options.grants.revokeAllActive(detection.at, 'rollback')
      const counter = this.options.counter.seal(detection.counter)
      this.options.audit.append({
        type: 'rollback_detected',
        subjectId: 'database',
        payload: {
          reason: detection.reason,
          databaseCounter: detection.databaseCounter,
          anchor: detection.anchor,
          counter,
          roomIds,
          revokedGrantIds,
        },
        at: detection.at,
      })
      return { roomIds, revokedGrantIds }
    })
  }

  recordCleanShutdown(instanceId: string, at: number): number {
    return inTransaction(this.db, () => {
      const counter = this.options.counter.advance()
      this.options.audit.append({
        type: 'clean_shutdown',
        subjectId: instanceId,
        payload: { rollbackCounter: counter },
        at,
      })
      return counter
    })
  }

  recordAnchorLag(lag: AnchorLag, at: number): void {
    inTransaction(this.db, () => {
      this.options.audit.append({
        type: 'rollback_anchor_lagging',
        subjectId: 'rollback-anchor',
        payload: { counter: lag.counter, anchored: lag.anchored, error: lag.error },
        at,
      })
    })
  }
}
