import type { ToolCallRecord, Turn } from '../../contracts/room.ts'
import type { ConversationStore } from '../ports/conversation-store.ts'

/** What recording a proposed call needs of the runner that proposes it. */
export interface CallRecordDeps {
  conversations: ConversationStore
  now: () => number
  newId: () => string
}

/**
 * Records a call the agent proposed in the turn's timeline, before anything
 * about it is checked or asked: it starts `awaiting-approval` with no result
 * and no approval, so every way it ends afterwards (refused, denied, run) is
 * a settlement of this one record.
 */
export function recordProposedCall(
  deps: CallRecordDeps,
  turn: Turn,
  seq: number,
  toolName: string,
  args: ToolCallRecord['arguments'],
): ToolCallRecord {
  const at = deps.now()
  const call: ToolCallRecord = {
    id: deps.newId(),
    roomId: turn.roomId,
    turnId: turn.id,
    seq,
    toolName,
    arguments: args,
    status: 'awaiting-approval',
    result: null,
    approvalId: null,
    createdAt: at,
    updatedAt: at,
  }
  deps.conversations.insertToolCall(call)
  return call
}
