import type { DatabaseSync } from 'node:sqlite'
import type { SealedCounter } from '../ports/rollback-store.ts'
import type { IntegrityMac } from './integrity-mac.ts'
import { permissionsDigest } from './permission-digest.ts'

/**
 * The newest event as of the last append, MAC'd: what makes deleting the
 * newest events visible. Since the rollback anchor (docs/integrity.md#rollback)
 * it also carries the rollback counter and the digest of every room's and
 * grant's permission state, sealed together, so neither can be taken from
 * one copy of the database and set into another.
 */
export interface AuditHead {
  seq: number
  hash: string
  mac: string
  /** Null on a head sealed before the anchor existed. */
  rollbackCounter?: number | null
  permissionsDigest?: string | null
}

/** What the head's MAC covers. The counter and digest are sealed when
 *  present and left out when absent, so heads sealed before they existed
 *  still verify. */
export function headSealContent(head: Omit<AuditHead, 'mac'>): Record<string, unknown> {
  const counted = head.rollbackCounter !== undefined && head.rollbackCounter !== null
  return {
    seq: head.seq,
    hash: head.hash,
    ...(counted
      ? { rollbackCounter: head.rollbackCounter, permissionsDigest: head.permissionsDigest ?? null }
      : {}),
  }
}

export function readAuditHead(db: DatabaseSync): AuditHead | undefined {
  const row = db.prepare('SELECT * FROM audit_head WHERE id = 1').get()
  if (!row) return undefined
  return {
    seq: Number(row.seq),
    hash: String(row.hash),
    mac: String(row.mac),
    rollbackCounter: row.rollback_counter == null ? null : Number(row.rollback_counter),
    permissionsDigest: row.permissions_digest == null ? null : String(row.permissions_digest),
  }
}

/**
 * The database's rollback counter as its sealed head holds it, read-only
 * (the runtime at start, and `assent audit verify`). The head counts only
 * if the key sealed it and it names the newest event: a head from another
 * copy, or events added or removed after it, leave the counter saying
 * nothing, which reads as tampered.
 */
export function readSealedCounter(db: DatabaseSync, mac: IntegrityMac): SealedCounter {
  const head = readAuditHead(db)
  const last = db.prepare('SELECT seq, hash FROM audit_events ORDER BY seq DESC LIMIT 1').get()
  if (!head) return last ? { state: 'tampered' } : { state: 'absent' }
  if (!mac.verify('audit-head', headSealContent(head), head.mac)) return { state: 'tampered' }
  if (!last || Number(last.seq) !== head.seq || String(last.hash) !== head.hash) {
    return { state: 'tampered' }
  }
  const counter = head.rollbackCounter ?? null
  if (counter === null) return { state: 'absent' }
  if (!Number.isSafeInteger(counter) || counter < 0) return { state: 'tampered' }
  return { state: 'sealed', counter }
}

/** Whether the rooms and grants are the ones the sealed head vouches for
 *  (true when the head carries no digest yet: nothing was counted). Read
 *  only after `readSealedCounter` found the head sealed. */
export function rowsMatchHead(db: DatabaseSync): boolean {
  const head = readAuditHead(db)
  if (head?.permissionsDigest === undefined || head.permissionsDigest === null) return true
  return head.permissionsDigest === permissionsDigest(db)
}
