import type { Timeline, TimelinePage } from '../../contracts/room.ts'
import { summarizeApproval } from '../domain/approval.ts'
import type { ApprovalStore } from '../ports/approval-store.ts'
import type { ConversationStore, TimelinePageRequest } from '../ports/conversation-store.ts'

/** Turns in one page of a timeline: enough to fill a tall window several
 *  times over, few enough that the newest page of a room with hundreds of
 *  decided cards is drawn in a fraction of the time the whole one takes
 *  (docs/benchmarks.md, the 520-card room). */
export const TIMELINE_PAGE_TURNS = 60

interface TimelineStores {
  conversations: ConversationStore
  approvals: ApprovalStore
}

/** A room's whole timeline: every turn, message, call and approval. */
export function readTimeline(stores: TimelineStores, roomId: string): Timeline {
  return {
    roomId,
    turns: stores.conversations.listTurns(roomId),
    messages: stores.conversations.listMessages(roomId),
    toolCalls: stores.conversations.listToolCalls(roomId),
    approvals: stores.approvals.listByRoom(roomId).map(summarizeApproval),
  }
}

/**
 * A page of a room's timeline (see `TimelinePage`): what the workbench
 * draws first is the newest `TIMELINE_PAGE_TURNS` turns, so a long room
 * opens as fast as a short one, and it reads earlier pages after that.
 * Undefined when `request` names a turn that is not the room's.
 */
export function readTimelinePage(
  stores: TimelineStores,
  roomId: string,
  request: TimelinePageRequest,
): TimelinePage | undefined {
  const { conversations, approvals } = stores
  const page = conversations.turnPage(roomId, request, TIMELINE_PAGE_TURNS)
  if (!page) return undefined
  const turnIds = page.turns.map((turn) => turn.id)
  return {
    roomId,
    turns: page.turns,
    ...conversations.listOfTurns(roomId, turnIds),
    approvals: approvals.listForTurns(roomId, turnIds).map(summarizeApproval),
    earlierTurns: page.earlierTurns,
  }
}
