import type { DatabaseSync } from 'node:sqlite'
import type { ApprovalRecord } from '../../contracts/approval.ts'
import type {
  Message,
  ReconcileRequest,
  ToolCallRecord,
  ToolCallStatus,
  Turn,
  TurnStatus,
} from '../../contracts/room.ts'
import type {
  CallAllowance,
  ConversationStore,
  MessagesMark,
  RecentMessage,
  TimelinePageRequest,
  ToolCallResult,
  TurnPage,
  ToolCallUpdate,
} from '../ports/conversation-store.ts'
import { EVERY_MESSAGE } from './turn-rows.ts'
import type { InterruptedWorkStore } from '../ports/interrupted-work-store.ts'
import type { AuditAppender } from './audit-log.ts'
import { inTransaction } from './database.ts'
import { ToolCallRows } from './tool-call-rows.ts'
import { MessageRows, TurnRows } from './turn-rows.ts'

/** Turns, messages and tool calls: what a room's timeline is made of. Each
 *  change that has an audit event is written here, with its event, in one
 *  transaction; the rows themselves are read and written by `TurnRows`,
 *  `MessageRows` and `ToolCallRows`. */
export class SqliteConversationRepository implements ConversationStore, InterruptedWorkStore {
  private readonly db: DatabaseSync
  private readonly audit: AuditAppender
  private readonly turns: TurnRows
  private readonly messages: MessageRows
  private readonly calls: ToolCallRows

  constructor(db: DatabaseSync, options: { audit: AuditAppender }) {
    this.db = db
    this.audit = options.audit
    this.turns = new TurnRows(db)
    this.messages = new MessageRows(db)
    this.calls = new ToolCallRows(db)
  }

  startTurn(turn: Turn, message: Message | null): void {
    inTransaction(this.db, () => {
      this.turns.insert(turn)
      if (message) this.messages.insert(message)
    })
  }

  openCall(turn: Turn, call: ToolCallRecord): void {
    inTransaction(this.db, () => {
      this.turns.insert(turn)
      this.calls.insert(call)
    })
  }

  markRunning(
    call: ToolCallRecord,
    at: number,
    allowedBy: CallAllowance | null,
    turnStatus?: TurnStatus,
  ): void {
    inTransaction(this.db, () => {
      if (allowedBy) {
        this.appendAllowed(
          call,
          allowedBy.type,
          allowedBy.type === 'tool_allowed_by_grant' ? allowedBy.grantId : null,
          at,
        )
      }
      this.calls.update(call.id, { status: 'running', at })
      if (turnStatus !== undefined) this.turns.setStatus(call.turnId, turnStatus)
    })
  }

  recordAllowedByGrant(call: ToolCallRecord, grantId: string, at: number): void {
    inTransaction(this.db, () => this.appendAllowed(call, 'tool_allowed_by_grant', grantId, at))
  }

  openCallAllowedByGrant(turn: Turn, call: ToolCallRecord, grantId: string, at: number): void {
    inTransaction(this.db, () => {
      this.turns.insert(turn)
      this.calls.insert(call)
      this.appendAllowed(call, 'tool_allowed_by_grant', grantId, at)
      this.calls.update(call.id, { status: 'running', at })
      this.turns.setStatus(call.turnId, 'running')
    })
  }

  settleCall(
    call: ToolCallRecord,
    ended: { status: ToolCallStatus; result: ToolCallResult },
    turnStatus: TurnStatus,
    at: number,
  ): void {
    inTransaction(this.db, () => {
      this.calls.update(call.id, { ...ended, at })
      this.turns.setStatus(call.turnId, turnStatus)
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
      this.calls.update(call.id, { status: 'succeeded', result, at })
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
    turnStatus?: TurnStatus,
  ): void {
    inTransaction(this.db, () => {
      this.calls.update(call.id, { status: 'refused', result, at })
      if (turnStatus !== undefined) this.turns.setStatus(call.turnId, turnStatus)
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
      this.calls.update(call.id, { ...ended, at })
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
      const unknown = this.calls.markRunningAsUnknown(at)
      this.turns.interruptUnfinished()
      for (const call of unknown) {
        this.audit.append({
          type: 'execution_unknown',
          subjectId: call.id,
          payload: { roomId: call.roomId, turnId: call.turnId, toolName: call.toolName },
          at,
        })
      }
      this.calls.expireAwaitingApproval(at, awaitingResult)
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

  getTurn(id: string): Turn | undefined {
    return this.turns.get(id)
  }

  findTurnByClientRequest(roomId: string, clientRequestId: string): Turn | undefined {
    return this.turns.findByClientRequest(roomId, clientRequestId)
  }

  listAttempts(roomId: string, clientRequestId: string): Turn[] {
    return this.turns.listAttempts(roomId, clientRequestId)
  }

  latestAttempt(roomId: string, clientRequestId: string): number {
    return this.turns.latestAttempt(roomId, clientRequestId)
  }

  setTurnStatus(id: string, status: TurnStatus): void {
    this.turns.setStatus(id, status)
  }

  finishTurn(id: string, status: TurnStatus, messages: readonly Message[]): void {
    inTransaction(this.db, () => {
      for (const message of messages) this.messages.insert(message)
      this.turns.setStatus(id, status)
    })
  }

  listTurns(roomId: string): Turn[] {
    return this.turns.list(roomId)
  }

  turnPage(roomId: string, request: TimelinePageRequest, size: number): TurnPage | undefined {
    return this.turns.page(roomId, request, size)
  }

  listOfTurns(
    roomId: string,
    turnIds: readonly string[],
  ): { messages: Message[]; toolCalls: ToolCallRecord[] } {
    return {
      messages: this.messages.listOfTurns(roomId, turnIds),
      toolCalls: this.calls.listOfTurns(roomId, turnIds),
    }
  }

  insertMessage(message: Message): void {
    this.messages.insert(message)
  }

  listMessages(roomId: string): Message[] {
    return this.messages.list(roomId)
  }

  /** The room's last `limit` messages, oldest first, without those of the
   *  excluded turns nor any stored after the mark `upTo`. */
  listRecentMessages(
    roomId: string,
    limit: number,
    excludeTurnIds: readonly string[] = [],
    upTo: MessagesMark = EVERY_MESSAGE,
  ): RecentMessage[] {
    return this.messages.listRecent(roomId, limit, excludeTurnIds, upTo)
  }

  messagesMark(roomId: string): MessagesMark {
    return this.messages.mark(roomId)
  }

  insertToolCall(call: ToolCallRecord): void {
    this.calls.insert(call)
  }

  updateToolCall(id: string, update: ToolCallUpdate): void {
    this.calls.update(id, update)
  }

  getToolCall(id: string): ToolCallRecord | undefined {
    return this.calls.get(id)
  }

  listToolCalls(roomId: string): ToolCallRecord[] {
    return this.calls.list(roomId)
  }

  listToolCallsOfTurn(turnId: string): ToolCallRecord[] {
    return this.calls.listOfTurn(turnId)
  }
}
