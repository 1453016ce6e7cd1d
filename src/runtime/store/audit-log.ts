import { randomUUID } from 'node:crypto'
import type { DatabaseSync } from 'node:sqlite'
import { canonicalJson, sha256Hex } from '../../common/canonical-json.ts'

export const GENESIS_HASH = '0'.repeat(64)

export interface NewAuditEvent {
  type: string
  subjectId: string
  payload: Record<string, unknown>
  at: number
}

export interface AuditEvent extends NewAuditEvent {
  seq: number
  id: string
  prevHash: string
  hash: string
}

/**
 * Port for the audit trail. Invariant the adapter must keep: `append` writes
 * inside the caller's open transaction, so the event becomes durable exactly
 * when the decision it records commits, and a failed append makes the caller
 * roll back the decision with it.
 */
export interface AuditAppender {
  append(event: NewAuditEvent): AuditEvent
}

/** The fields an event's hash covers, in one place so the writer and the
 *  verifier can never disagree about them. */
export function auditEventHash(event: Omit<AuditEvent, 'hash'>): string {
  return sha256Hex(
    canonicalJson({
      seq: event.seq,
      id: event.id,
      type: event.type,
      subjectId: event.subjectId,
      payload: event.payload,
      at: event.at,
      prevHash: event.prevHash,
    }),
  )
}

export class SqliteAuditLog implements AuditAppender {
  private readonly db: DatabaseSync
  private readonly newId: () => string

  constructor(db: DatabaseSync, newId: () => string = randomUUID) {
    this.db = db
    this.newId = newId
  }

  append(event: NewAuditEvent): AuditEvent {
    if (!this.db.isTransaction) {
      throw new Error('audit events are appended only inside the transaction they record')
    }
    const last = this.db
      .prepare('SELECT seq, hash FROM audit_events ORDER BY seq DESC LIMIT 1')
      .get() as { seq: number; hash: string } | undefined
    const unhashed = {
      ...event,
      seq: (last?.seq ?? 0) + 1,
      id: this.newId(),
      prevHash: last?.hash ?? GENESIS_HASH,
    }
    const full: AuditEvent = { ...unhashed, hash: auditEventHash(unhashed) }
    this.db
      .prepare(
        `INSERT INTO audit_events (seq, id, type, subject_id, payload_json, created_at, prev_hash, hash)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        full.seq,
        full.id,
        full.type,
        full.subjectId,
        canonicalJson(full.payload),
        full.at,
        full.prevHash,
        full.hash,
      )
    return full
  }

  list(options: { afterSeq?: number; limit?: number } = {}): AuditEvent[] {
    const rows = this.db
      .prepare('SELECT * FROM audit_events WHERE seq > ? ORDER BY seq LIMIT ?')
      .all(options.afterSeq ?? 0, options.limit ?? 1_000_000)
    return rows.map((row) => ({
      seq: Number(row.seq),
      id: String(row.id),
      type: String(row.type),
      subjectId: String(row.subject_id),
      payload: JSON.parse(String(row.payload_json)) as Record<string, unknown>,
      at: Number(row.created_at),
      prevHash: String(row.prev_hash),
      hash: String(row.hash),
    }))
  }
}

export type ChainVerdict =
  { ok: true; checked: number } | { ok: false; checked: number; seq: number; problem: string }

/** Walks the chain from genesis: a gap in `seq`, a link that does not point
 *  at its predecessor, or a hash that does not cover its own fields each stop
 *  the walk at the first broken event. */
export function verifyAuditChain(events: readonly AuditEvent[]): ChainVerdict {
  let prevHash = GENESIS_HASH
  let expectedSeq = 1
  for (const [index, event] of events.entries()) {
    if (event.seq !== expectedSeq) {
      return {
        ok: false,
        checked: index,
        seq: event.seq,
        problem: `expected event ${expectedSeq}, found ${event.seq} (deleted or reordered)`,
      }
    }
    if (event.prevHash !== prevHash) {
      return {
        ok: false,
        checked: index,
        seq: event.seq,
        problem: 'link does not point at the previous event',
      }
    }
    const { hash, ...unhashed } = event
    if (auditEventHash(unhashed) !== hash) {
      return {
        ok: false,
        checked: index,
        seq: event.seq,
        problem: 'event content does not match its hash',
      }
    }
    prevHash = hash
    expectedSeq += 1
  }
  return { ok: true, checked: events.length }
}
