import { randomUUID } from 'node:crypto'
import type { DatabaseSync } from 'node:sqlite'
import { canonicalJson } from '../../contracts/canonical-json.ts'
import type {
  AuditEvent,
  AuditTrail,
  IntegrityProblem,
  McpConfigApplied,
  McpConfigRefusal,
  AgentsConfigRefusal,
  NewAuditEvent,
} from '../ports/audit-trail.ts'
import { GENESIS_HASH, auditEventHash } from './audit-chain.ts'
import { inTransaction } from './database.ts'
import type { IntegrityMac } from './integrity-mac.ts'
import { permissionWatchOf, permissionsDigest } from './permission-digest.ts'
import { headSealContent, readAuditHead, type AuditHead } from './sealed-head.ts'

export type { AuditEvent, NewAuditEvent } from '../ports/audit-trail.ts'
export { readAuditHead, type AuditHead } from './sealed-head.ts'

export interface AppendOptions {
  /**
   * The event records a change the rollback counter counts (a room's mode,
   * a grant written or revoked, a rollback, a clean shutdown): `'next'`
   * moves the counter one step, a number sets it (past what it was).
   */
  count?: 'next' | number
}

/**
 * How the store's repositories append to the audit trail. Invariant the
 * appender keeps: `append` writes inside the caller's open transaction, so
 * the event becomes durable exactly when the change it records commits, and
 * a failed append makes the caller roll the change back with it. The sealed
 * head it moves carries the rollback counter and the digest of the rooms
 * and grants as they are after the change, so a change to them is
 * followed, in its transaction, by the event that records it.
 */
export interface AuditAppender {
  append(event: NewAuditEvent, options?: AppendOptions): AuditEvent
}

export interface SqliteAuditLogOptions {
  mac: IntegrityMac
  newId?: () => string
}

export class SqliteAuditLog implements AuditAppender, AuditTrail {
  private readonly db: DatabaseSync
  private readonly mac: IntegrityMac
  private readonly newId: () => string
  /** The counter never moves to or below this (what the start check knew). */
  private counterFloor = 0
  private onCounted: () => void = () => undefined

  constructor(db: DatabaseSync, options: SqliteAuditLogOptions) {
    this.db = db
    this.mac = options.mac
    this.newId = options.newId ?? randomUUID
  }

  /** The rollback counter counts on from at least `counter`. */
  countFrom(counter: number): void {
    this.counterFloor = Math.max(this.counterFloor, counter)
  }

  /** The counter the next `count: 'next'` append would seal. */
  nextRollbackCounter(): number {
    return Math.max(this.counterFloor, readAuditHead(this.db)?.rollbackCounter ?? 0) + 1
  }

  /** Called, inside the transaction, after every counted append. */
  onCountedAppend(listener: () => void): void {
    this.onCounted = listener
  }

  /** Appends the event and moves the sealed head to it, in the caller's
   *  transaction: the two are durable together or not at all. */
  append(event: NewAuditEvent, options: AppendOptions = {}): AuditEvent {
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
    const hash = auditEventHash(unhashed)
    const full: AuditEvent = { ...unhashed, hash, mac: sealEvent(this.mac, hash) }
    this.db
      .prepare(
        `INSERT INTO audit_events (seq, id, type, subject_id, payload_json, created_at, prev_hash, hash, mac)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
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
        full.mac,
      )
    this.moveHead(full, options)
    return full
  }

  /**
   * The head names the new event, and carries the rollback counter (moved
   * when the event counts) and the permissions digest (recomputed when this
   * connection wrote rooms or grants since the last append, carried forward
   * otherwise), all under one MAC.
   */
  private moveHead(event: AuditEvent, options: AppendOptions): void {
    const previous = readAuditHead(this.db)
    const written = permissionWatchOf(this.db).takeWritten()
    const carried = previous?.rollbackCounter ?? null
    let rollbackCounter = carried ?? 0
    if (options.count === 'next') {
      rollbackCounter = this.nextRollbackCounter()
    } else if (options.count !== undefined) {
      // Set by the start check from the anchor and a head it verified; the
      // head found here may be the one it could not verify, so it decides
      // nothing.
      if (!Number.isSafeInteger(options.count) || options.count < 0) {
        throw new Error(`a rollback counter is a non-negative safe integer, not ${options.count}`)
      }
      rollbackCounter = options.count
    }
    const digest =
      written || carried === null || !previous?.permissionsDigest
        ? permissionsDigest(this.db)
        : previous.permissionsDigest
    const head: Omit<AuditHead, 'mac'> = {
      seq: event.seq,
      hash: event.hash,
      rollbackCounter,
      permissionsDigest: digest,
    }
    this.db
      .prepare(
        `INSERT INTO audit_head (id, seq, hash, mac, rollback_counter, permissions_digest)
         VALUES (1, ?, ?, ?, ?, ?)
         ON CONFLICT (id) DO UPDATE SET seq = excluded.seq, hash = excluded.hash, mac = excluded.mac,
           rollback_counter = excluded.rollback_counter, permissions_digest = excluded.permissions_digest`,
      )
      .run(
        head.seq,
        head.hash,
        this.mac.sign('audit-head', headSealContent(head)),
        rollbackCounter,
        digest,
      )
    this.counterFloor = Math.max(this.counterFloor, rollbackCounter)
    if (options.count !== undefined) this.onCounted()
  }

  list(options: { afterSeq?: number; limit?: number } = {}): AuditEvent[] {
    return readAuditEvents(this.db, options)
  }

  recordIntegrityError(problem: IntegrityProblem, at: number): void {
    const append = () =>
      this.append({
        type: 'integrity_error',
        subjectId: problem.rowId,
        payload: {
          table: problem.table,
          rowId: problem.rowId,
          roomId: problem.roomId,
          problem: problem.problem,
        },
        at,
      })
    // A read inside a writer's transaction reports in it; otherwise the
    // report is its own transaction.
    if (this.db.isTransaction) append()
    else inTransaction(this.db, append)
  }

  recordMcpConfigRefused(refusal: McpConfigRefusal, at: number): void {
    inTransaction(this.db, () =>
      this.append({
        type: 'mcp_config_refused',
        subjectId: 'mcp.json',
        payload: {
          field: refusal.field,
          message: refusal.message,
          serversInForce: refusal.serversInForce,
        },
        at,
      }),
    )
  }

  recordMcpConfigApplied(applied: McpConfigApplied, at: number): void {
    inTransaction(this.db, () =>
      this.append({
        type: 'mcp_config_applied',
        subjectId: 'mcp.json',
        payload: {
          serversInForce: applied.serversInForce,
          added: applied.added,
          changed: applied.changed,
          removed: applied.removed,
        },
        at,
      }),
    )
  }

  recordAgentsConfigRefused(refusal: AgentsConfigRefusal, at: number): void {
    inTransaction(this.db, () =>
      this.append({
        type: 'agents_config_refused',
        subjectId: 'agents.json',
        payload: {
          field: refusal.field,
          message: refusal.message,
          agentsInForce: refusal.agentsInForce,
        },
        at,
      }),
    )
  }

  /** The first event of `type` about `subjectId`, only if its own hash and
   *  MAC verify: a record the key holder wrote, for checking a row against
   *  what was true when it was made. */
  firstSealed(type: string, subjectId: string): AuditEvent | undefined {
    const row = this.db
      .prepare(
        'SELECT seq FROM audit_events WHERE type = ? AND subject_id = ? ORDER BY seq LIMIT 1',
      )
      .get(type, subjectId)
    if (!row) return undefined
    const [event] = readAuditEvents(this.db, { afterSeq: Number(row.seq) - 1, limit: 1 })
    if (!event) return undefined
    const { hash, mac, ...unhashed } = event
    const sealed =
      auditEventHash(unhashed) === hash && this.mac.verify('audit-event', { hash }, mac)
    return sealed ? event : undefined
  }
}

/** The events in `seq` order, as stored (nothing is verified here). */
export function readAuditEvents(
  db: DatabaseSync,
  options: { afterSeq?: number; limit?: number } = {},
): AuditEvent[] {
  const rows = db
    .prepare('SELECT * FROM audit_events WHERE seq > ? ORDER BY seq LIMIT ?')
    .all(options.afterSeq ?? 0, options.limit ?? -1)
  return rows.map((row) => ({
    seq: Number(row.seq),
    id: String(row.id),
    type: String(row.type),
    subjectId: String(row.subject_id),
    payload: parsePayload(String(row.payload_json)),
    at: Number(row.created_at),
    prevHash: String(row.prev_hash),
    hash: String(row.hash),
    mac: row.mac == null ? null : String(row.mac),
  }))
}

/** A payload that is not even JSON was edited on disk. It is kept as text
 *  (so an export still answers and the verifier reports it at its place in
 *  the chain, where its hash no longer matches) rather than thrown. */
function parsePayload(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text)
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      return value as Record<string, unknown>
    }
  } catch {
    // fall through
  }
  return { unreadablePayload: text }
}

function sealEvent(mac: IntegrityMac, hash: string): string {
  return mac.sign('audit-event', { hash })
}
