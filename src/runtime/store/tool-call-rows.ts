import type { DatabaseSync } from 'node:sqlite'
import { canonicalJson } from '../../contracts/canonical-json.ts'
import { ToolCallRecordSchema, type ToolCallRecord } from '../../contracts/room.ts'
import type { ToolCallResult, ToolCallUpdate } from '../ports/conversation-store.ts'

type Row = Record<string, unknown>

/** The `tool_calls` table, row by row. It writes no audit event and opens
 *  no transaction: `SqliteConversationRepository` does both around it, so
 *  a change is never written without its event. */
export class ToolCallRows {
  private readonly db: DatabaseSync

  constructor(db: DatabaseSync) {
    this.db = db
  }

  insert(call: ToolCallRecord): void {
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

  update(id: string, update: ToolCallUpdate): void {
    this.db
      .prepare(
        `UPDATE tool_calls SET status = ?, result_json = COALESCE(?, result_json),
           approval_id = COALESCE(?, approval_id), tool_name = COALESCE(?, tool_name),
           arguments_json = COALESCE(?, arguments_json), updated_at = ? WHERE id = ?`,
      )
      .run(
        update.status,
        update.result ? canonicalJson(update.result) : null,
        update.approvalId ?? null,
        update.described?.toolName ?? null,
        update.described ? canonicalJson(update.described.arguments) : null,
        update.at,
        id,
      )
  }

  get(id: string): ToolCallRecord | undefined {
    const row = this.db.prepare('SELECT * FROM tool_calls WHERE id = ?').get(id)
    return row ? toToolCall(row) : undefined
  }

  list(roomId: string): ToolCallRecord[] {
    return this.db
      .prepare('SELECT * FROM tool_calls WHERE room_id = ? ORDER BY created_at, seq, rowid')
      .all(roomId)
      .map(toToolCall)
  }

  /** The tool calls of the room's turns `turnIds`, in `list`'s order. */
  listOfTurns(roomId: string, turnIds: readonly string[]): ToolCallRecord[] {
    return this.db
      .prepare(
        `SELECT * FROM tool_calls
         WHERE turn_id IN (SELECT value FROM json_each(?)) AND room_id = ?
         ORDER BY created_at, seq, rowid`,
      )
      .all(JSON.stringify(turnIds), roomId)
      .map(toToolCall)
  }

  listOfTurn(turnId: string): ToolCallRecord[] {
    return this.db
      .prepare('SELECT * FROM tool_calls WHERE turn_id = ? ORDER BY seq')
      .all(turnId)
      .map(toToolCall)
  }

  /** Marks executions that were running when the runtime stopped: nobody knows
   *  whether the tool finished, so a retry must wait for a reconcile. */
  markRunningAsUnknown(at: number): ToolCallRecord[] {
    const running = this.db
      .prepare("SELECT * FROM tool_calls WHERE status = 'running'")
      .all()
      .map(toToolCall)
    this.db
      .prepare("UPDATE tool_calls SET status = 'unknown', updated_at = ? WHERE status = 'running'")
      .run(at)
    return running
  }

  /** Settles calls that were waiting for a decision when the runtime stopped:
   *  their approvals expire at start and no turn is left to run them, so
   *  showing them as still awaiting approval would promise a decision that
   *  can no longer happen. */
  expireAwaitingApproval(at: number, result: ToolCallResult): void {
    this.db
      .prepare(
        `UPDATE tool_calls SET status = 'expired', result_json = ?, updated_at = ?
           WHERE status = 'awaiting-approval'`,
      )
      .run(canonicalJson(result), at)
  }
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
