import type { DatabaseSync } from 'node:sqlite'
import { canonicalJson } from '../../contracts/canonical-json.ts'
import {
  InputRequestRecordSchema,
  type InputRequestRecord,
  type InputResponse,
} from '../../contracts/input-request.ts'
import type { ResponseSource } from '../domain/input-request.ts'
import type { InputRequestStore } from '../ports/input-request-store.ts'
import type { AuditAppender } from './audit-log.ts'
import { inTransaction } from './database.ts'

type Row = Record<string, unknown>

/** Questions and forms. Stores only what history may show: the service
 *  redacts secret answers and sensitive content before they get here. */
export class SqliteInputRequestRepository implements InputRequestStore {
  private readonly db: DatabaseSync
  private readonly audit: AuditAppender

  constructor(db: DatabaseSync, options: { audit: AuditAppender }) {
    this.db = db
    this.audit = options.audit
  }

  open(request: InputRequestRecord): void {
    inTransaction(this.db, () => {
      this.insert(request)
      this.audit.append({
        type: 'input_requested',
        subjectId: request.id,
        payload: {
          roomId: request.roomId,
          turnId: request.turnId,
          kind: request.kind,
          questions: request.questions.length,
          blocking: request.blocking,
          sensitive: request.sensitive,
        },
        at: request.createdAt,
      })
    })
  }

  close(
    record: InputRequestRecord,
    action: InputResponse['action'],
    at: number,
    by: ResponseSource,
  ): void {
    inTransaction(this.db, () => {
      this.saveOutcome(record)
      // Never the answer itself: the audit log outlives every secret, and a
      // digest of a short answer could be guessed back.
      this.audit.append({
        type: 'input_resolved',
        subjectId: record.id,
        payload: {
          roomId: record.roomId,
          turnId: record.turnId,
          kind: record.kind,
          action,
          status: record.status,
          by,
        },
        at,
      })
    })
  }

  extendDeadline(record: InputRequestRecord, at: number): void {
    inTransaction(this.db, () => {
      const result = this.db
        .prepare(
          "UPDATE input_requests SET auto_resolve_at = ? WHERE id = ? AND status = 'pending'",
        )
        .run(record.autoResolveAt, record.id)
      if (Number(result.changes) !== 1) {
        throw new Error(`input request ${record.id} was no longer pending`)
      }
      this.audit.append({
        type: 'input_deadline_extended',
        subjectId: record.id,
        payload: {
          roomId: record.roomId,
          turnId: record.turnId,
          autoResolveAt: record.autoResolveAt,
        },
        at,
      })
    })
  }

  /** Used at start, when the instance that was waiting for them is gone. */
  markPendingStale(at: number): InputRequestRecord[] {
    return inTransaction(this.db, () => {
      const marked = this.markRowsStale(at)
      for (const request of marked) {
        this.audit.append({
          type: 'input_request_stale',
          subjectId: request.id,
          payload: { roomId: request.roomId, turnId: request.turnId, kind: request.kind },
          at,
        })
      }
      return marked
    })
  }

  private insert(request: InputRequestRecord): void {
    this.db
      .prepare(
        `INSERT INTO input_requests (id, room_id, turn_id, kind, questions_json, form_json, blocking,
           timing_json, sensitive, status, answers_json, content_json, created_at, resolved_at,
           auto_resolve_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        request.id,
        request.roomId,
        request.turnId,
        request.kind,
        canonicalJson(request.questions),
        // Not canonical JSON: that sorts keys, and a form's fields show in
        // the order the server gave them.
        request.form === null ? null : JSON.stringify(request.form),
        request.blocking ? 1 : 0,
        request.timing === null ? null : canonicalJson(request.timing),
        request.sensitive ? 1 : 0,
        request.status,
        request.answers === null ? null : canonicalJson(request.answers),
        request.content === null ? null : canonicalJson(request.content),
        request.createdAt,
        request.resolvedAt,
        request.autoResolveAt,
      )
  }

  /** Writes the outcome of a pending request; throws if it was no longer
   *  pending, so two answers can never both land. */
  private saveOutcome(request: InputRequestRecord): void {
    const result = this.db
      .prepare(
        `UPDATE input_requests SET status = ?, answers_json = ?, content_json = ?, resolved_at = ?
         WHERE id = ? AND status = 'pending'`,
      )
      .run(
        request.status,
        request.answers === null ? null : canonicalJson(request.answers),
        request.content === null ? null : canonicalJson(request.content),
        request.resolvedAt,
        request.id,
      )
    if (Number(result.changes) !== 1)
      throw new Error(`input request ${request.id} was no longer pending`)
  }

  get(id: string): InputRequestRecord | undefined {
    const row = this.db.prepare('SELECT * FROM input_requests WHERE id = ?').get(id)
    return row ? toRecord(row) : undefined
  }

  listByRoom(roomId: string): InputRequestRecord[] {
    return this.db
      .prepare('SELECT * FROM input_requests WHERE room_id = ? ORDER BY created_at, rowid')
      .all(roomId)
      .map(toRecord)
  }

  /** Marks every pending request stale and returns them as they were. */
  private markRowsStale(at: number): InputRequestRecord[] {
    const pending = this.db
      .prepare("SELECT * FROM input_requests WHERE status = 'pending'")
      .all()
      .map(toRecord)
    this.db
      .prepare(
        "UPDATE input_requests SET status = 'stale', resolved_at = ? WHERE status = 'pending'",
      )
      .run(at)
    return pending
  }
}

function toRecord(row: Row): InputRequestRecord {
  return InputRequestRecordSchema.parse({
    id: row.id,
    roomId: row.room_id,
    turnId: row.turn_id ?? null,
    kind: row.kind,
    questions: JSON.parse(String(row.questions_json)),
    form: row.form_json == null ? null : JSON.parse(String(row.form_json)),
    blocking: Number(row.blocking) === 1,
    timing: row.timing_json == null ? null : JSON.parse(String(row.timing_json)),
    autoResolveAt: row.auto_resolve_at == null ? null : Number(row.auto_resolve_at),
    sensitive: Number(row.sensitive) === 1,
    status: row.status,
    answers: row.answers_json == null ? null : JSON.parse(String(row.answers_json)),
    content: row.content_json == null ? null : JSON.parse(String(row.content_json)),
    createdAt: Number(row.created_at),
    resolvedAt: row.resolved_at == null ? null : Number(row.resolved_at),
  })
}
