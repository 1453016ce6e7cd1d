import type { DatabaseSync } from 'node:sqlite'
import { canonicalJson } from '../../contracts/canonical-json.ts'
import { ApprovalRecordSchema, type ApprovalRecord } from '../../contracts/approval.ts'
import type { Grant } from '../../contracts/room.ts'
import { actionDigest, canonicalAction } from '../domain/approval.ts'
import type { ApprovalStore, Resolution } from '../ports/approval-store.ts'
import type { AuditAppender } from './audit-log.ts'
import { inTransaction } from './database.ts'
import { messageJson, storedMessage } from './stored-message.ts'
import type { RuntimeMessage } from '../../contracts/runtime-message.ts'
import type { SqliteGrantRepository } from './grant-repository.ts'

type Row = Record<string, unknown>

export interface ApprovalRepositoryOptions {
  audit: AuditAppender
  /** Where an allow-always decision's grant is written. Without it, a
   *  decision that carries a grant is refused (and rolled back) rather than
   *  recorded as "always" with nothing granted. */
  grants?: Pick<SqliteGrantRepository, 'insert'>
}

export class SqliteApprovalRepository implements ApprovalStore {
  private readonly db: DatabaseSync
  private readonly options: ApprovalRepositoryOptions

  constructor(db: DatabaseSync, options: ApprovalRepositoryOptions) {
    this.db = db
    this.options = options
  }

  open(approval: ApprovalRecord, digest = actionDigest(canonicalAction(approval))): void {
    inTransaction(this.db, () => {
      this.insert(approval)
      this.options.audit.append({
        type: 'approval_requested',
        subjectId: approval.id,
        payload: {
          roomId: approval.roomId,
          turnId: approval.turnId,
          toolName: approval.toolName,
          actionDigest: digest,
        },
        at: approval.createdAt,
      })
    })
  }

  resolve(
    decided: ApprovalRecord,
    resolution: Resolution,
    at: number,
    grantFor?: (decided: ApprovalRecord) => Grant | undefined,
  ): void {
    // If the audit append (or the grant) throws, the transaction rolls back:
    // the approval stays pending and nothing downstream learns of a decision.
    inTransaction(this.db, () => {
      this.saveOutcome(decided)
      this.options.audit.append({
        type: 'approval_resolved',
        subjectId: decided.id,
        payload: {
          roomId: decided.roomId,
          turnId: decided.turnId,
          toolName: decided.toolName,
          decision: resolution.decision,
          decidedBy: resolution.decidedBy,
          reason: resolution.reason ?? null,
          actionDigest: resolution.actionDigest,
        },
        at,
      })
      const grant = grantFor?.(decided)
      if (grant) this.insertGrant(grant)
    })
  }

  expire(expired: ApprovalRecord, reason: string, at: number): void {
    inTransaction(this.db, () => {
      this.saveOutcome(expired)
      this.options.audit.append({
        type: 'approval_expired',
        subjectId: expired.id,
        payload: { roomId: expired.roomId, turnId: expired.turnId, reason },
        at,
      })
    })
  }

  escalate(
    approval: ApprovalRecord,
    reason: string,
    at: number,
    message?: RuntimeMessage,
    options: { reviewFailed?: boolean } = {},
  ): void {
    inTransaction(this.db, () => {
      this.setEscalationReason(approval.id, reason, message)
      this.options.audit.append({
        type: 'review_escalated',
        subjectId: approval.id,
        payload: {
          roomId: approval.roomId,
          turnId: approval.turnId,
          toolName: approval.toolName,
          reason,
          reviewFailed: options.reviewFailed === true,
        },
        at,
      })
    })
  }

  private insertGrant(grant: Grant): void {
    const grants = this.options.grants
    if (!grants) throw new Error('this store cannot record a grant')
    grants.insert(grant)
    this.options.audit.append(
      { type: 'grant_created', subjectId: grant.id, payload: grant, at: grant.createdAt },
      { count: 'next' },
    )
  }

  private insert(approval: ApprovalRecord): void {
    this.db
      .prepare(
        `INSERT INTO approvals (id, room_id, turn_id, tool_call_id, kind, tool_name, arguments_json,
           working_directory, sandbox_mode, summary, status, decision, decided_by, reason,
           created_at, expires_at, decided_at, mcp_json, target_json, file_change_json,
           permission_json, summary_message_json, reason_message_json, containment_json)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        approval.id,
        approval.roomId,
        approval.turnId,
        approval.toolCallId,
        approval.kind,
        approval.toolName,
        canonicalJson(approval.arguments),
        approval.workingDirectory,
        approval.sandboxMode,
        approval.summary,
        approval.status,
        approval.decision ?? null,
        approval.decidedBy ?? null,
        approval.reason ?? null,
        approval.createdAt,
        approval.expiresAt,
        approval.decidedAt ?? null,
        approval.mcp === undefined ? null : canonicalJson(approval.mcp),
        approval.target === undefined ? null : canonicalJson(approval.target),
        approval.fileChange === undefined ? null : canonicalJson(approval.fileChange),
        approval.permission === undefined ? null : canonicalJson(approval.permission),
        messageJson(approval.summaryMessage),
        messageJson(approval.reasonMessage),
        approval.containment === undefined ? null : canonicalJson(approval.containment),
      )
  }

  /** Writes only the outcome fields: the canonical action of an approval is
   *  immutable once created, so a decision can never change what was shown. */
  private saveOutcome(approval: ApprovalRecord): void {
    const result = this.db
      .prepare(
        `UPDATE approvals SET status = ?, decision = ?, decided_by = ?, reason = ?,
           reason_message_json = ?, decided_at = ?
         WHERE id = ? AND status = 'pending'`,
      )
      .run(
        approval.status,
        approval.decision ?? null,
        approval.decidedBy ?? null,
        approval.reason ?? null,
        messageJson(approval.reasonMessage),
        approval.decidedAt ?? null,
        approval.id,
      )
    if (Number(result.changes) !== 1) {
      throw new Error(`approval ${approval.id} was no longer pending`)
    }
  }

  /** Records why the reviewer escalated; only while the approval is
   *  pending, and never touching what the person is shown. */
  private setEscalationReason(id: string, reason: string, message?: RuntimeMessage): void {
    this.db
      .prepare(
        "UPDATE approvals SET escalation_reason = ?, escalation_message_json = ? WHERE id = ? AND status = 'pending'",
      )
      .run(reason, messageJson(message), id)
  }

  get(id: string): ApprovalRecord | undefined {
    const row = this.db.prepare('SELECT * FROM approvals WHERE id = ?').get(id)
    return row ? toApproval(row) : undefined
  }

  listByRoom(roomId: string): ApprovalRecord[] {
    return this.db
      .prepare('SELECT * FROM approvals WHERE room_id = ? ORDER BY created_at, rowid')
      .all(roomId)
      .map(toApproval)
  }

  listForTurns(roomId: string, turnIds: readonly string[]): ApprovalRecord[] {
    return this.db
      .prepare(
        `SELECT * FROM approvals
         WHERE room_id = ? AND (status = 'pending' OR turn_id IN (SELECT value FROM json_each(?)))
         ORDER BY created_at, rowid`,
      )
      .all(roomId, JSON.stringify(turnIds))
      .map(toApproval)
  }

  listPendingDue(now: number): ApprovalRecord[] {
    return this.db
      .prepare(
        "SELECT * FROM approvals WHERE status = 'pending' AND expires_at <= ? ORDER BY expires_at",
      )
      .all(now)
      .map(toApproval)
  }

  listPending(): ApprovalRecord[] {
    return this.db
      .prepare("SELECT * FROM approvals WHERE status = 'pending' ORDER BY created_at, rowid")
      .all()
      .map(toApproval)
  }
}

function toApproval(row: Row): ApprovalRecord {
  // Parsed through the schema: a row that does not fit is an error, never a
  // half-typed value that could reach a protected window.
  return ApprovalRecordSchema.parse({
    id: row.id,
    roomId: row.room_id,
    turnId: row.turn_id,
    toolCallId: row.tool_call_id,
    kind: row.kind,
    toolName: row.tool_name,
    arguments: JSON.parse(String(row.arguments_json)),
    workingDirectory: row.working_directory,
    sandboxMode: row.sandbox_mode,
    summary: row.summary,
    ...storedMessage('summaryMessage', row.summary_message_json),
    ...(row.mcp_json == null ? {} : { mcp: JSON.parse(String(row.mcp_json)) }),
    ...(row.target_json == null ? {} : { target: JSON.parse(String(row.target_json)) }),
    ...(row.file_change_json == null
      ? {}
      : { fileChange: JSON.parse(String(row.file_change_json)) }),
    ...(row.permission_json == null ? {} : { permission: JSON.parse(String(row.permission_json)) }),
    ...(row.containment_json == null
      ? {}
      : { containment: JSON.parse(String(row.containment_json)) }),
    status: row.status,
    ...optional('decision', row.decision),
    ...optional('decidedBy', row.decided_by),
    ...optional('reason', row.reason),
    ...storedMessage('reasonMessage', row.reason_message_json),
    ...optional('escalationReason', row.escalation_reason),
    ...storedMessage('escalationMessage', row.escalation_message_json),
    createdAt: Number(row.created_at),
    expiresAt: Number(row.expires_at),
    ...(row.decided_at == null ? {} : { decidedAt: Number(row.decided_at) }),
  })
}

export function optional(key: string, value: unknown): Record<string, unknown> {
  return value == null ? {} : { [key]: value }
}
