import type { ApprovalRecord } from '../../contracts/approval.ts'
import type {
  Message,
  ReconcileRequest,
  ToolCallRecord,
  ToolCallStatus,
  TimelinePageRequest,
  Turn,
  TurnStatus,
} from '../../contracts/room.ts'

export type ToolCallResult = NonNullable<ToolCallRecord['result']>

/** What let a call run without a decision of its own, as its audit event
 *  names it. */
export type CallAllowance =
  { type: 'tool_allowed_by_policy' } | { type: 'tool_allowed_by_grant'; grantId: string }

export interface ToolCallUpdate {
  status: ToolCallStatus
  result?: ToolCallRecord['result']
  approvalId?: string
  /** What the call does, when an external agent named it only after
   *  announcing it (an ACP `tool_call` without its kind, completed by a
   *  later `tool_call_update`). */
  described?: Pick<ToolCallRecord, 'toolName' | 'arguments'>
  at: number
}

/**
 * Turns, messages and tool calls: what a room's timeline is made of.
 *
 * Invariants the adapter keeps: every method that names an audit event
 * writes it in the same transaction as the state change it records, and
 * every multi-row write is one transaction, so the timeline never shows
 * half of a change; a call is marked `running` only together with the
 * event that allowed it (when something other than a decision did).
 */
/**
 * The messages stored so far, as `listRecentMessages` reads them later:
 * the highest rowid (a message stored later has a higher one), and the
 * newest `created_at` among the room's messages then, which every message
 * under the mark has at most. The second adds no condition of its own: it
 * lets the read start in the room's index at the mark instead of walking
 * back over every message stored since.
 */
export interface MessagesMark {
  seq: number
  newest: number
}

export type { TimelinePageRequest }

export interface TurnPage {
  turns: Turn[]
  /** How many of the room's turns come before the first of `turns`. */
  earlierTurns: number
}

/** A message as a history carries it: who said what, and when. */
export type RecentMessage = Pick<Message, 'id' | 'role' | 'text' | 'createdAt'>

export interface ConversationStore {
  getTurn(id: string): Turn | undefined
  /** The first attempt of a message, by its idempotency key. */
  findTurnByClientRequest(roomId: string, clientRequestId: string): Turn | undefined
  /** The highest attempt number of a message (0 when there is none). */
  latestAttempt(roomId: string, clientRequestId: string): number
  listTurns(roomId: string): Turn[]
  /** The turns `request` names, at most `size` of them for `recent` and
   *  `before`, oldest first; undefined when its turn is not one of this
   *  room's. */
  turnPage(roomId: string, request: TimelinePageRequest, size: number): TurnPage | undefined
  /** The messages and tool calls of the room's turns `turnIds`. */
  listOfTurns(
    roomId: string,
    turnIds: readonly string[],
  ): { messages: Message[]; toolCalls: ToolCallRecord[] }
  setTurnStatus(id: string, status: TurnStatus): void
  /** Writes the turn's last messages (the agent's reply, Assent's note)
   *  and its final status together: one commit, and never a finished turn
   *  without its reply. */
  finishTurn(id: string, status: TurnStatus, messages: readonly Message[]): void
  /** Every attempt of one message (the first and its retries), oldest
   *  first. */
  listAttempts(roomId: string, clientRequestId: string): Turn[]
  /** Writes a new turn and the message that starts it, together. A retry
   *  has none (`null`): the person's request is the first attempt's message,
   *  and storing it again would put it in the room twice. */
  startTurn(turn: Turn, message: Message | null): void

  insertMessage(message: Message): void
  listMessages(roomId: string): Message[]
  /** The room's last `limit` messages, oldest first, leaving out those of
   *  the turns in `excludeTurnIds` (they do not count towards `limit`) and,
   *  given `upTo` (from `messagesMark`), those stored after that mark. */
  listRecentMessages(
    roomId: string,
    limit: number,
    excludeTurnIds?: readonly string[],
    upTo?: MessagesMark,
  ): RecentMessage[]
  /** A mark for "the room's messages stored so far", for
   *  `listRecentMessages`. */
  messagesMark(roomId: string): MessagesMark

  insertToolCall(call: ToolCallRecord): void
  updateToolCall(id: string, update: ToolCallUpdate): void
  getToolCall(id: string): ToolCallRecord | undefined
  listToolCalls(roomId: string): ToolCallRecord[]
  listToolCallsOfTurn(turnId: string): ToolCallRecord[]
  /** Writes a new turn and its one tool call together (an MCP gateway call). */
  openCall(turn: Turn, call: ToolCallRecord): void

  /** Marks the call running, with the `tool_allowed_by_*` event when the
   *  policy or a grant (not a decision) allowed it, and its turn's status
   *  with it when given (a turn that waited for the decision runs again). */
  markRunning(
    call: ToolCallRecord,
    at: number,
    allowedBy: CallAllowance | null,
    turnStatus?: TurnStatus,
  ): void
  /** Records that a grant answered for the call (`tool_allowed_by_grant`),
   *  before the call itself is marked running. */
  recordAllowedByGrant(call: ToolCallRecord, grantId: string, at: number): void
  /** Writes a new turn and its one tool call (an MCP gateway call) as
   *  running, with the `tool_allowed_by_grant` event of the grant that
   *  answered for it: one commit, so one flush to wait for. */
  openCallAllowedByGrant(turn: Turn, call: ToolCallRecord, grantId: string, at: number): void
  /** Writes how the call ended and its turn's status together. */
  settleCall(
    call: ToolCallRecord,
    ended: { status: ToolCallStatus; result: ToolCallResult },
    turnStatus: TurnStatus,
    at: number,
  ): void
  /** Writes a permission request the person granted (`approval`, allowed)
   *  as succeeded, with its `turn_permission_widened` event naming what
   *  widened, for which turn and by which approval. */
  recordWidening(
    call: ToolCallRecord,
    approval: ApprovalRecord,
    result: ToolCallResult,
    at: number,
  ): void
  /** Ends a call that a decision allowed but that was refused when it was
   *  about to run (its target is no longer what the person was shown), with
   *  the `execution_refused` event naming the approval and why, and its
   *  turn's status with it when given. */
  refuseExecution(
    call: ToolCallRecord,
    result: ToolCallResult,
    approvalId: string | null,
    at: number,
    turnStatus?: TurnStatus,
  ): void
  /** Writes the outcome a person reported for an execution whose outcome
   *  was unknown, with its `execution_reconciled` event. */
  reconcile(
    call: ToolCallRecord,
    ended: { status: ToolCallStatus; result: ToolCallResult },
    request: ReconcileRequest,
    at: number,
  ): void
}
