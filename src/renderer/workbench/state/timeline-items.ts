import type { Message, Timeline, ToolCallRecord, Turn } from '../../../contracts/room.ts'
import { cardKey, isOpen, type CardState, type Cards } from './approval-cards.ts'
import { inputKey, isOpenInput, type InputCard, type InputCards } from './input-cards.ts'
import type { TimedModeRequest } from './open-requests.ts'

/** One entry of the conversation as the page lays it out. */
export type TimelineItem =
  | { kind: 'message'; key: string; message: Message }
  /** A tool call; `card` is its decided (or stale) approval, shown in place;
   *  `openCardKey` points at its card in the open block above the composer. */
  | { kind: 'tool'; key: string; call: ToolCallRecord; card?: CardState; openCardKey?: string }
  /** A decided card whose tool call the page has not loaded yet. */
  | { kind: 'approval'; key: string; card: CardState }
  /** A question or form no longer open (answered, dismissed, stale…). */
  | { kind: 'input'; key: string; card: InputCard }
  /** A request that stopped (failed or interrupted) and may be retried. */
  | { kind: 'turn-end'; key: string; turn: Turn }
  /** A permissions request whose protected window closed, at its time. */
  | { kind: 'mode'; key: string; mode: TimedModeRequest }

interface Placed {
  turnId: string
  at: number
  rank: number
  seq: number
  item: TimelineItem
}

// Within one turn: the person's message, the agent's reply, its tool calls
// in order, then Assent's own notes.
const RANK = { user: 0, agent: 1, tool: 2, system: 3, end: 4 } as const

/**
 * Lays the conversation out turn by turn (turns in the order they were
 * made), each turn's entries in the order they happened. Open cards are not
 * here: they collect above the composer. Decided ones stay with their tool
 * call.
 */
export function timelineItems(
  timeline: Timeline | undefined,
  cards: Cards,
  inputs: InputCards = new Map(),
  modes: readonly TimedModeRequest[] = [],
): TimelineItem[] {
  const placed: Placed[] = []
  const cardsById = new Map([...cards.values()].map((card) => [card.approval.id, card]))
  const shown = new Set<string>()

  for (const message of timeline?.messages ?? []) {
    placed.push({
      turnId: message.turnId,
      at: message.createdAt,
      rank: RANK[message.role],
      seq: 0,
      item: { kind: 'message', key: `message:${message.id}`, message },
    })
  }
  for (const call of timeline?.toolCalls ?? []) {
    const card = call.approvalId ? cardsById.get(call.approvalId) : undefined
    if (card) shown.add(cardKey(card.approval))
    const item: TimelineItem = { kind: 'tool', key: `tool:${call.id}`, call }
    if (card && isOpen(card)) item.openCardKey = cardKey(card.approval)
    else if (card) item.card = card
    placed.push({ turnId: call.turnId, at: call.createdAt, rank: RANK.tool, seq: call.seq, item })
  }
  for (const card of cards.values()) {
    const key = cardKey(card.approval)
    if (shown.has(key) || isOpen(card)) continue
    placed.push({
      turnId: card.approval.turnId,
      at: card.approval.createdAt,
      rank: RANK.tool,
      seq: 0,
      item: { kind: 'approval', key: `approval:${key}`, card },
    })
  }
  for (const card of inputs.values()) {
    if (isOpenInput(card)) continue
    placed.push({
      turnId: card.request.turnId ?? '',
      at: card.request.createdAt,
      rank: RANK.tool,
      seq: 0,
      item: { kind: 'input', key: `input:${inputKey(card.request)}`, card },
    })
  }
  for (const turn of timeline?.turns ?? []) {
    if (turn.status !== 'failed' && turn.status !== 'interrupted') continue
    placed.push({
      turnId: turn.id,
      at: Number.MAX_SAFE_INTEGER,
      rank: RANK.end,
      seq: 0,
      item: { kind: 'turn-end', key: `turn-end:${turn.id}`, turn },
    })
  }

  // A permissions request belongs to no turn: it takes its place by time.
  for (const [index, mode] of modes.entries()) {
    if (mode.request.status === 'waiting') continue
    placed.push({
      turnId: '',
      at: mode.at,
      rank: RANK.system,
      seq: index,
      item: { kind: 'mode', key: `mode:${mode.at}:${index}`, mode },
    })
  }

  const turnOrder = new Map((timeline?.turns ?? []).map((turn) => [turn.id, turn.createdAt]))
  const turnStart = (entry: Placed) => turnOrder.get(entry.turnId) ?? entry.at
  return placed
    .sort(
      (a, b) =>
        turnStart(a) - turnStart(b) ||
        a.turnId.localeCompare(b.turnId) ||
        a.at - b.at ||
        a.rank - b.rank ||
        a.seq - b.seq,
    )
    .map((entry) => entry.item)
}

/** The full arguments of the tool call behind an approval, when loaded. */
export function argumentsOf(
  timeline: Timeline | undefined,
  approvalId: string,
): Record<string, unknown> | undefined {
  return timeline?.toolCalls.find((call) => call.approvalId === approvalId)?.arguments
}
