import type { DatabaseSync } from 'node:sqlite'
import { canonicalJson } from '../../contracts/canonical-json.ts'
import { sha256Hex } from '../domain/sha256.ts'

/**
 * One digest of every room's and grant's permission state: each room's
 * revision and rolled-back mark, each grant's revocation, each room's
 * approver webhook. The sealed head
 * of the audit log carries it (docs/integrity.md#rollback), so rows, or a
 * whole table, put back from an older copy of the database no longer match
 * a head the key sealed, even where each row's own MAC still verifies.
 * Values are read as text: a row edited into something odd must change the
 * digest, never stop it from being computed.
 *
 * A room's workspace identity is left out, so a database from before it was
 * kept still matches the head it sealed. Putting an older copy back gains
 * nothing there: a re-pin comes with a consented mode change, whose revision
 * is in the digest, and a pin at first use is only ever taken again.
 */
export function permissionsDigest(db: DatabaseSync): string {
  const rooms = db
    .prepare('SELECT id, revision, rolled_back FROM rooms ORDER BY id')
    .all()
    .map((row) => [String(row.id), String(row.revision), String(row.rolled_back)])
  const grants = db
    .prepare('SELECT id, revoked_at FROM grants ORDER BY id')
    .all()
    .map((row) => [String(row.id), String(row.revoked_at)])
  const webhooks = db
    .prepare('SELECT room_id, webhook_id FROM approver_webhooks ORDER BY room_id')
    .all()
    .map((row) => [String(row.room_id), String(row.webhook_id)])
  return sha256Hex(canonicalJson({ rooms, grants, webhooks }))
}

/** The SQL function the watch's triggers call. */
const WRITTEN_FUNCTION = 'assent_permissions_written'

/**
 * Notices every write this connection makes to `rooms` and `grants`
 * (temporary triggers calling a function), so the next audit append
 * recomputes the digest; appends after other writes carry it forward.
 * Temporary triggers see only this connection: a write from elsewhere is
 * what the digest exists to catch, at the next start.
 */
export class PermissionWatch {
  private written = true

  constructor(db: DatabaseSync) {
    db.function(WRITTEN_FUNCTION, { deterministic: false }, () => {
      this.written = true
      return null
    })
    for (const table of ['rooms', 'grants', 'approver_webhooks']) {
      for (const operation of ['INSERT', 'UPDATE', 'DELETE']) {
        db.exec(
          `CREATE TEMP TRIGGER IF NOT EXISTS assent_${table}_${operation.toLowerCase()}_watch
           AFTER ${operation} ON main.${table} BEGIN SELECT ${WRITTEN_FUNCTION}(); END`,
        )
      }
    }
  }

  /** Whether rooms or grants were written since the last call. */
  takeWritten(): boolean {
    const written = this.written
    this.written = false
    return written
  }
}

const watches = new WeakMap<DatabaseSync, PermissionWatch>()

/** The connection's one watch, made on first use. */
export function permissionWatchOf(db: DatabaseSync): PermissionWatch {
  let watch = watches.get(db)
  if (!watch) {
    watch = new PermissionWatch(db)
    watches.set(db, watch)
  }
  return watch
}
