import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { verifyAuditChain, type ChainVerdict } from './audit-chain.ts'
import { readAuditEvents, readAuditHead } from './audit-log.ts'
import { DATABASE_FILE_NAME } from './database.ts'
import type { IntegrityMac } from './integrity-mac.ts'
import { readSealedCounter, rowsMatchHead } from './sealed-head.ts'
import type { AuditEvent } from '../ports/audit-trail.ts'
import type { SealedCounter } from '../ports/rollback-store.ts'

export type AuditFileVerdict =
  (ChainVerdict & { ok: true; lastSeq: number }) | (ChainVerdict & { ok: false })

/**
 * Verifies the audit log of a data folder as it is on disk, read-only (it
 * never migrates, repairs or appends): every hash link, every MAC under the
 * integrity key, and the sealed head. Throws, rather than answering, when
 * there is nothing to verify (no database, a database from before sealed
 * heads), so "could not check" is never mistaken for "intact".
 */
export function verifyAuditFile(dataDir: string, mac: IntegrityMac): AuditFileVerdict {
  const path = join(dataDir, DATABASE_FILE_NAME)
  if (!existsSync(path)) throw new Error(`there is no Assent database in ${dataDir}`)
  const db = new DatabaseSync(path, { readOnly: true })
  try {
    const hasHead = db
      .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'audit_head'")
      .get()
    if (!hasHead) {
      const migrated = db.prepare('SELECT 1 FROM schema_migrations WHERE version >= 2').get()
      if (migrated) {
        return { ok: false, checked: 0, seq: 1, problem: 'the sealed head table was removed' }
      }
      throw new Error(
        `${path} predates sealed audit logs (it has no audit_head table): start Assent on it once`,
      )
    }
    const events = readAuditEvents(db)
    const verdict = verifyAuditChain(events, { mac, head: readAuditHead(db) })
    return verdict.ok ? { ...verdict, lastSeq: events.at(-1)?.seq ?? 0 } : verdict
  } finally {
    db.close()
  }
}

/** What a data folder's database says about rollbacks. */
export interface RollbackEvidence {
  /** Its sealed rollback counter, to compare with the anchor. */
  counter: SealedCounter
  /** Whether its rooms and grants are those its sealed head vouches for. */
  rowsMatch: boolean
  /** The `rollback_detected` events in its log: rollbacks a start found. */
  detections: AuditEvent[]
}

/** Reads a data folder's rollback counter and recorded rollbacks, read-only. */
export function readRollbackEvidence(dataDir: string, mac: IntegrityMac): RollbackEvidence {
  const db = new DatabaseSync(join(dataDir, DATABASE_FILE_NAME), { readOnly: true })
  try {
    const counter = readSealedCounter(db, mac)
    return {
      counter,
      rowsMatch: counter.state !== 'sealed' || rowsMatchHead(db),
      detections: readAuditEvents(db).filter((event) => event.type === 'rollback_detected'),
    }
  } finally {
    db.close()
  }
}
