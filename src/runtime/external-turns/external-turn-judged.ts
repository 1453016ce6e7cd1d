import type { Turn } from '../../contracts/room.ts'
import type { Allower } from '../policy/allower-stands.ts'
import type { ConversationStore } from '../ports/conversation-store.ts'
import type { ShownAgentRequest } from './agent-request-action.ts'

// What the external turn asker (external-turn-asker.ts) keeps of a request
// between judging it and answering it.

/** A request as shown and judged: the real paths the sandbox check
 *  resolved what it names to (agent-request-where.ts). */
export interface Judged {
  /** The turn as it was judged: under its policy in force then. */
  turn: Turn
  shown: ShownAgentRequest
  realPaths: string[]
}

/** What allowed a request: for its running mark, and for the rule that
 *  judges it again right before the agent hears "yes". */
export interface AllowedBy {
  allowedBy: Parameters<ConversationStore['markRunning']>[2]
  allower: Allower
}

export function samePaths(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((each, index) => each === b[index])
}
