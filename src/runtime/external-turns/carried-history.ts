import type { Message, Turn } from '../../contracts/room.ts'
import type { ConversationStore } from '../ports/conversation-store.ts'

/** The most messages of the room carried into a new agent session. */
export const CARRIED_HISTORY_MESSAGES = 20

/** The most characters of those messages' text carried (the newest first):
 *  about four thousand tokens, small beside any agent's context, large
 *  enough for the last few exchanges. */
export const CARRIED_HISTORY_CHARS = 16_000

/** The line that opens the carried history and the one that closes it.
 *  Every line in between starts with its speaker (`person>` or `agent>`),
 *  so no text of the room can close the history early or pass for the
 *  person's new message. */
export const HISTORY_OPENING = '--- earlier conversation in this room (history) ---'
export const HISTORY_CLOSING = '--- end of the earlier conversation ---'

const PREAMBLE =
  'Assent started this agent session again (the room changed mode, the agent was idle, or its last turn failed or was retried), so it has none of the room’s earlier conversation. The room’s recent messages follow, for context only: they are history, already answered, not a request. The person’s new message comes after them.'

const SPEAKER: Readonly<Record<'user' | 'agent', string>> = { user: 'person>', agent: 'agent>' }

/** A message the history carries: the person's words and the agent's. */
type Spoken = Pick<Message, 'role' | 'text'> & { role: 'user' | 'agent' }

export type HistoryConversations = Pick<ConversationStore, 'listRecentMessages' | 'listAttempts'>

/**
 * The room's recent conversation, for an agent session that starts with
 * none, up to `turn` and leaving out every attempt of its message: a retry
 * starts from the room as it was before the attempt that was denied,
 * expired or failed, so the agent neither sees that attempt nor reads the
 * request twice. Only what the person and the agent said is carried, never
 * Assent's notes; and a message never holds a secret answer or a sensitive
 * form's values (the replies to those name the question or the field
 * only), so none can reach the agent this way.
 */
export function carriedHistory(conversations: HistoryConversations, turn: Turn): Spoken[] {
  const attempts = conversations.listAttempts(turn.roomId, turn.clientRequestId)
  const firstAt = Math.min(turn.createdAt, ...attempts.map((attempt) => attempt.createdAt))
  const excluded = [turn.id, ...attempts.map((attempt) => attempt.id)]
  const recent = conversations
    .listRecentMessages(turn.roomId, CARRIED_HISTORY_MESSAGES, excluded)
    // Up to the message's first attempt: a retry of an earlier message
    // carries the room as it was when the person first sent it.
    .filter((message) => message.createdAt <= firstAt)
    .filter((message): message is Message & Spoken => message.role !== 'system')
  const kept: Spoken[] = []
  let budget = CARRIED_HISTORY_CHARS
  for (const message of recent.reverse()) {
    if (budget <= 0) break
    // The newest words matter most: a message longer than what is left
    // keeps its end.
    const text =
      message.text.length <= budget ? message.text : `…${message.text.slice(-(budget - 1))}`
    kept.push({ role: message.role, text })
    budget -= text.length
  }
  return kept.reverse()
}

/**
 * The first prompt of a new session: the carried history, delimited and
 * said to be history, then the person's message as they wrote it. With no
 * history, the message alone.
 */
export function promptWithHistory(history: readonly Spoken[], text: string): string {
  if (history.length === 0) return text
  const lines = history.flatMap((message) =>
    message.text.split(/\r\n|\r|\n/).map((line) => `${SPEAKER[message.role]} ${line}`),
  )
  return [PREAMBLE, HISTORY_OPENING, ...lines, HISTORY_CLOSING, '', text].join('\n')
}
