import type { DatabaseSync } from 'node:sqlite'
import type { ApprovalRecord } from '../../contracts/approval.ts'
import { canonicalJson } from '../../contracts/canonical-json.ts'
import { RoomPolicySchema } from '../../contracts/policy-axes.ts'
import {
  ToolCallRecordSchema,
  TurnSchema,
  type Message,
  type ReconcileRequest,
  type ToolCallRecord,
  type ToolCallStatus,
  type Turn,
  type TurnStatus,
} from '../../contracts/room.ts'
import type {
  CallAllowance,
  ConversationStore,
  ToolCallResult,
  ToolCallUpdate,
} from '../ports/conversation-store.ts'
import type { InterruptedWorkStore } from '../ports/interrupted-work-store.ts'
import type { AuditAppender } from './audit-log.ts'
import { inTransaction } from './database.ts'
import { messageJson, storedMessage } from './stored-message.ts'

type Row = Record<string, unknown>

/** Turns, messages and tool calls: what a room's timeline is made of. */
export class SqliteConversationRepository implements ConversationStore, InterruptedWorkStore {
  private readonly db: DatabaseSync
  private readonly audit: AuditAppender

  constructor(db: DatabaseSync, options: { audit: AuditAppender }) {
    this.db = db
    this.audit = options.audit
  }

  startTurn(turn: Turn, message: Message | null): void {
    inTransaction(this.db, () => {
      this.insertTurn(turn)
      if (message) this.insertMessage(message)
    })
  }

  openCall(turn: Turn, call: ToolCallRecord): void {
    inTransaction(this.db, () => {
      this.insertTurn(turn)
      this.insertToolCall(call)
    })
  }

  markRunning(call: ToolCallRecord, at: number, allowedBy: CallAllowance | null): void {
    inTransaction(this.db, () => {
      if (allowedBy) {
        this.appendAllowed(
          call,
          allowedBy.type,
          allowedBy.type === 'tool_allowed_by_grant' ? allowedBy.grantId : null,
          at,
        )
      }
      this.updateToolCall(call.id, { status: 'running', at })
    })
  }

  recordAllowedByGrant(call: ToolCallRecord, grantId: string, at: number): void {
    inTransaction(this.db, () => this.appendAllowed(call, 'tool_allowed_by_grant', grantId, at))
  }

  startAllowedByGrant(call: ToolCallRecord, grantId: string, at: number): void {
    inTransaction(this.db, () => {
      this.appendAllowed(call, 'tool_allowed_by_grant', grantId, at)
      this.updateToolCall(call.id, { status: 'running', at })
      this.setTurnStatus(call.turnId, 'running')
    })
  }

  settleCall(
    call: ToolCallRecord,
    ended: { status: ToolCallStatus; result: ToolCallResult },
    turnStatus: TurnStatus,
    at: number,
  ): void {
    inTransaction(this.db, () => {
      this.updateToolCall(call.id, { ...ended, at })
      this.setTurnStatus(call.turnId, turnStatus)
    })
  }

  recordWidening(
    call: ToolCallRecord,
    approval: ApprovalRecord,
    result: ToolCallResult,
    at: number,
  ): void {
    const permission = approval.permission
    // Only an allowed permission request of this very call widens anything.
    if (!permission || approval.status !== 'allowed' || approval.toolCallId !== call.id) {
      throw new Error(`approval ${approval.id} grants no permission to call ${call.id}`)
    }
    inTransaction(this.db, () => {
      this.updateToolCall(call.id, { status: 'succeeded', result, at })
      this.audit.append({
        type: 'turn_permission_widened',
        subjectId: call.turnId,
        payload: {
          roomId: call.roomId,
          toolCallId: call.id,
          approvalId: approval.id,
          widen: permission.widen,
          duration: permission.duration,
        },
        at,
      })
    })
  }

  refuseExecution(
    call: ToolCallRecord,
    result: ToolCallResult,
    approvalId: string | null,
    at: number,
  ): void {
    inTransaction(this.db, () => {
      this.updateToolCall(call.id, { status: 'refused', result, at })
      this.audit.append({
        type: 'execution_refused',
        subjectId: call.id,
        payload: {
          roomId: call.roomId,
          turnId: call.turnId,
          toolName: call.toolName,
          approvalId,
          code: result.code ?? null,
          reason: result.output,
        },
        at,
      })
    })
  }

  reconcile(
    call: ToolCallRecord,
    ended: { status: ToolCallStatus; result: ToolCallResult },
    request: ReconcileRequest,
    at: number,
  ): void {
    inTransaction(this.db, () => {
      this.updateToolCall(call.id, { ...ended, at })
      this.audit.append({
        type: 'execution_reconciled',
        subjectId: call.id,
        payload: {
          roomId: call.roomId,
          turnId: call.turnId,
          outcome: request.outcome,
          note: request.note ?? null,
        },
        at,
      })
    })
  }

  settleInterrupted(at: number, awaitingResult: ToolCallResult): ToolCallRecord[] {
    return inTransaction(this.db, () => {
      const unknown = this.markRunningAsUnknown(at)
      for (const call of unknown) {
        this.audit.append({
          type: 'execution_unknown',
          subjectId: call.id,
          payload: { roomId: call.roomId, turnId: call.turnId, toolName: call.toolName },
          at,
        })
      }
      this.expireAwaitingApproval(at, awaitingResult)
      return unknown
    })
  }

  private appendAllowed(
    call: ToolCallRecord,
    type: CallAllowance['type'],
    grantId: string | null,
    at: number,
  ): void {
    this.audit.append({
      type,
      subjectId: call.id,
      payload: { roomId: call.roomId, turnId: call.turnId, toolName: call.toolName, grantId },
      at,
    })
  }

  private insertTurn(turn: Turn): void {
    this.db
      .prepare(
        `INSERT INTO turns (id, room_id, client_request_id, text, attempt, retry_of, workspace, policy_json, plan, status, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        turn.id,
        turn.roomId,
        turn.clientRequestId,
        turn.text,
        turn.attempt,
        turn.retryOf,
        turn.workspace,
        canonicalJson(turn.policy),
        turn.plan === true ? 1 : 0,
        turn.status,
        turn.createdAt,
      )
  }

  getTurn(id: string): Turn | undefined {
    const row = this.db.prepare('SELECT * FROM turns WHERE id = ?').get(id)
    return row ? toTurn(row) : undefined
  }

  findTurnByClientRequest(roomId: string, clientRequestId: string): Turn | undefined {
    const row = this.db
      .prepare('SELECT * FROM turns WHERE room_id = ? AND client_request_id = ? AND attempt = 1')
      .get(roomId, clientRequestId)
    return row ? toTurn(row) : undefined
  }

  listAttempts(roomId: string, clientRequestId: string): Turn[] {
    return this.db
      .prepare(
        'SELECT * FROM turns WHERE room_id = ? AND client_request_id = ? ORDER BY attempt, rowid',
      )
      .all(roomId, clientRequestId)
      .map(toTurn)
  }

  latestAttempt(roomId: string, clientRequestId: string): number {
    const row = this.db
      .prepare(
        'SELECT MAX(attempt) AS attempt FROM turns WHERE room_id = ? AND client_request_id = ?',
      )
      .get(roomId, clientRequestId)
    return Number(row?.attempt ?? 0)
  }

  setTurnStatus(id: string, status: TurnStatus): void {
    this.db.prepare('UPDATE turns SET status = ? WHERE id = ?').run(status, id)
  }

  listTurns(roomId: string): Turn[] {
    return this.db
      .prepare('SELECT * FROM turns WHERE room_id = ? ORDER BY created_at, rowid')
      .all(roomId)
      .map(toTurn)
  }

  insertMessage(message: Message): void {
    this.db
      .prepare(
        'INSERT INTO messages (id, room_id, turn_id, role, text, message_json, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      )
      .run(
        message.id,
        message.roomId,
        message.turnId,
        message.role,
        message.text,
        messageJson(message.message),
        message.createdAt,
      )
  }

  listMessages(roomId: string): Message[] {
    return this.db
      .prepare('SELECT * FROM messages WHERE room_id = ? ORDER BY created_at, rowid')
      .all(roomId)
      .map(toMessage)
  }

  /** The room's last `limit` messages, oldest first, without those of the
   *  excluded turns. */
  listRecentMessages(
    roomId: string,
    limit: number,
    excludeTurnIds: readonly string[] = [],
  ): Message[] {
    // The ids travel as one JSON parameter, so the statement is the same
    // whatever their number and no id is ever spliced into the SQL.
    return this.db
      .prepare(
        `SELECT * FROM (SELECT *, rowid AS seq FROM messages
           WHERE room_id = ? AND turn_id NOT IN (SELECT value FROM json_each(?))
           ORDER BY created_at DESC, rowid DESC LIMIT ?)
         ORDER BY created_at, seq`,
      )
      .all(roomId, JSON.stringify(excludeTurnIds), limit)
      .map(toMessage)
  }

  insertToolCall(call: ToolCallRecord): void {
    this.db
      .prepare(
        `INSERT INTO tool_calls (id, room_id, turn_id, seq, tool_name, arguments_json, status, result_json, approval_id, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        call.id,
        call.roomId,
        call.turnId,
        call.seq,
        call.toolName,
        canonicalJson(call.arguments),
        call.status,
        call.result === null ? null : canonicalJson(call.result),
        call.approvalId,
        call.createdAt,
        call.updatedAt,
      )
  }

  updateToolCall(id: string, update: ToolCallUpdate): void {
    this.db
      .prepare(
        `UPDATE tool_calls SET status = ?, result_json = COALESCE(?, result_json),
           approval_id = COALESCE(?, approval_id), updated_at = ? WHERE id = ?`,
      )
      .run(
        update.status,
        update.result ? canonicalJson(update.result) : null,
        update.approvalId ?? null,
        update.at,
        id,
      )
  }

  getToolCall(id: string): ToolCallRecord | undefined {
    const row = this.db.prepare('SELECT * FROM tool_calls WHERE id = ?').get(id)
    return row ? toToolCall(row) : undefined
  }

  listToolCalls(roomId: string): ToolCallRecord[] {
    return this.db
      .prepare('SELECT * FROM tool_calls WHERE room_id = ? ORDER BY created_at, seq, rowid')
      .all(roomId)
      .map(toToolCall)
  }

  listToolCallsOfTurn(turnId: string): ToolCallRecord[] {
    return this.db
      .prepare('SELECT * FROM tool_calls WHERE turn_id = ? ORDER BY seq')
      .all(turnId)
      .map(toToolCall)
  }

  /** Marks executions that were running when the runtime stopped: nobody knows
   *  whether the tool finished, so a retry must wait for a reconcile. */
  private markRunningAsUnknown(at: number): ToolCallRecord[] {
    const running = this.db
      .prepare("SELECT * FROM tool_calls WHERE status = 'running'")
      .all()
      .map(toToolCall)
    this.db
      .prepare("UPDATE tool_calls SET status = 'unknown', updated_at = ? WHERE status = 'running'")
      .run(at)
    this.db
      .prepare("UPDATE turns SET status = 'interrupted' WHERE status IN ('running', 'waiting')")
      .run()
    return running
  }

  /** Settles calls that were waiting for a decision when the runtime stopped:
   *  their approvals expire at start and no turn is left to run them, so
   *  showing them as still awaiting approval would promise a decision that
   *  can no longer happen. */
  private expireAwaitingApproval(at: number, result: ToolCallResult): void {
    this.db
      .prepare(
        `UPDATE tool_calls SET status = 'expired', result_json = ?, updated_at = ?
           WHERE status = 'awaiting-approval'`,
      )
      .run(canonicalJson(result), at)
  }
}

function toTurn(row: Row): Turn {
  return TurnSchema.parse({
    id: row.id,
    roomId: row.room_id,
    clientRequestId: row.client_request_id,
    text: row.text,
    attempt: Number(row.attempt),
    retryOf: row.retry_of ?? null,
    workspace: row.workspace,
    policy: RoomPolicySchema.parse(JSON.parse(String(row.policy_json))),
    plan: Number(row.plan) === 1,
    status: row.status,
    createdAt: Number(row.created_at),
  })
}

function toToolCall(row: Row): ToolCallRecord {
  return ToolCallRecordSchema.parse({
    id: row.id,
    roomId: row.room_id,
    turnId: row.turn_id,
    seq: Number(row.seq),
    toolName: row.tool_name,
    arguments: JSON.parse(String(row.arguments_json)),
    status: row.status,
    result: row.result_json == null ? null : JSON.parse(String(row.result_json)),
    approvalId: row.approval_id ?? null,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  })
}

function toMessage(row: Record<string, unknown>): Message {
  return {
    id: String(row.id),
    roomId: String(row.room_id),
    turnId: String(row.turn_id),
    role: row.role as Message['role'],
    text: String(row.text),
    ...storedMessage('message', row.message_json),
    createdAt: Number(row.created_at),
  }
}
