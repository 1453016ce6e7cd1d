import type { ToolCallRecord, Turn } from '../../contracts/room.ts'
import { proposedCall } from '../domain/proposed-call.ts'
import type { ConversationStore } from '../ports/conversation-store.ts'

/** What recording a proposed call needs of the runner that proposes it. */
export interface CallRecordDeps {
  conversations: ConversationStore
  now: () => number
  newId: () => string
}

/** Records a call the agent proposed in the turn's timeline (`proposedCall`). */
export function recordProposedCall(
  deps: CallRecordDeps,
  turn: Turn,
  seq: number,
  toolName: string,
  args: ToolCallRecord['arguments'],
): ToolCallRecord {
  // The clock is read before the id is made, as the runners always did.
  const at = deps.now()
  const call = proposedCall({ id: deps.newId(), turn, seq, toolName, args, at })
  deps.conversations.insertToolCall(call)
  return call
}
