import type { DatabaseSync } from 'node:sqlite'
import type {
  AnchorLag,
  RollbackDetection,
  RollbackRecord,
  RollbackStore,
  SealedCounter,
} from '../ports/rollback-store.ts'
import type { SqliteAuditLog } from './audit-log.ts'
import { inTransaction } from './database.ts'
import type { SqliteApproverWebhookRepository } from './approver-webhook-repository.ts'
import type { SqliteGrantRepository } from './grant-repository.ts'
import type { IntegrityMac } from './integrity-mac.ts'
import type { SqliteRoomRepository } from './room-repository.ts'
import { readSealedCounter, rowsMatchHead } from './sealed-head.ts'

export interface RollbackRepositoryOptions {
  mac: IntegrityMac
  audit: Pick<SqliteAuditLog, 'append' | 'countFrom' | 'onCountedAppend' | 'nextRollbackCounter'>
  rooms: Pick<SqliteRoomRepository, 'markAllRolledBack'>
  grants: Pick<SqliteGrantRepository, 'revokeAllActive'>
  webhooks: Pick<SqliteApproverWebhookRepository, 'removeAll'>
}

/** Rollback detection's side of the store (docs/integrity.md#rollback): the
 *  counter in the sealed head, and its records, each a change with its
 *  audit event. */
export class SqliteRollbackRepository implements RollbackStore {
  private readonly db: DatabaseSync
  private readonly options: RollbackRepositoryOptions

  constructor(db: DatabaseSync, options: RollbackRepositoryOptions) {
    this.db = db
    this.options = options
  }

  readCounter(): SealedCounter {
    return readSealedCounter(this.db, this.options.mac)
  }

  rowsMatchCounter(): boolean {
    return rowsMatchHead(this.db)
  }

  countFrom(counter: number): void {
    this.options.audit.countFrom(counter)
  }

  onAdvanced(listener: () => void): void {
    this.options.audit.onCountedAppend(listener)
  }

  recordRollback(detection: RollbackDetection): RollbackRecord {
    return inTransaction(this.db, () => {
      const roomIds = this.options.rooms.markAllRolledBack()
      const revokedGrantIds = this.options.grants.revokeAllActive(detection.at, 'rollback')
      // A webhook decides in the person's place: one read from an older
      // copy may be one they removed since, so none is kept.
      const webhookRoomIds = this.options.webhooks.removeAll()
      this.options.audit.append(
        {
          type: 'rollback_detected',
          subjectId: 'database',
          payload: {
            reason: detection.reason,
            databaseCounter: detection.databaseCounter,
            anchor: detection.anchor,
            counter: detection.counter,
            roomIds,
            revokedGrantIds,
            webhookRoomIds,
          },
          at: detection.at,
        },
        { count: detection.counter },
      )
      return { roomIds, revokedGrantIds }
    })
  }

  recordCleanShutdown(instanceId: string, at: number): number {
    return inTransaction(this.db, () => {
      const counter = this.options.audit.nextRollbackCounter()
      this.options.audit.append(
        {
          type: 'clean_shutdown',
          subjectId: instanceId,
          payload: { rollbackCounter: counter },
          at,
        },
        { count: counter },
      )
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
