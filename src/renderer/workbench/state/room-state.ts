import type { ApprovalSummary } from '../../../contracts/approval.ts'
import type { Grant, RoomPermissions, TimelinePage } from '../../../contracts/room.ts'
import {
  markApprovalGone,
  markOpenCardsStale,
  mergeApproval,
  reconcileApprovals,
  type Cards,
} from './approval-cards.ts'

/** What the page knows of one room; every field is the runtime's answer. */
export interface RoomState {
  /** The turns loaded so far, from the oldest on (timeline-pages.ts). */
  timeline: TimelinePage | undefined
  cards: Cards
  permissions: RoomPermissions | undefined
  grants: readonly Grant[]
  /** Why the last load failed, as thrown (worded by error-text.ts). */
  loadError: { failure: unknown } | undefined
  runtimeDown: boolean
}

export const EMPTY_ROOM_STATE: RoomState = {
  timeline: undefined,
  cards: new Map(),
  permissions: undefined,
  grants: [],
  loadError: undefined,
  runtimeDown: false,
}

export type RoomAction =
  /** The timeline as held now (timeline-pages.ts), with the approvals of
   *  the answer that made it so. `askedAt`: how many approval events had
   *  arrived when that answer was asked for. */
  | {
      type: 'timeline'
      timeline: TimelinePage
      approvals: readonly ApprovalSummary[]
      askedAt?: number
    }
  /** `seenAt`: this event's number, counted from 1 per room view. */
  | { type: 'approval'; approval: ApprovalSummary; seenAt?: number }
  /** The runtime said it no longer waits on this approval. */
  | { type: 'approval-gone'; approval: ApprovalSummary }
  | { type: 'permissions'; permissions: RoomPermissions }
  | { type: 'grants'; grants: readonly Grant[] }
  | { type: 'load-failed'; failure: unknown }
  | { type: 'runtime-gone'; down: boolean }
  | { type: 'runtime-up' }

export function roomReducer(state: RoomState, action: RoomAction): RoomState {
  switch (action.type) {
    case 'timeline':
      // Only answers asked for after the runtime was last seen going away
      // reach here (see useRoom), so the timeline may settle stale cards.
      return {
        ...state,
        timeline: action.timeline,
        // Every page lists every approval still pending, so an answer
        // settles cards as a whole timeline does.
        cards: reconcileApprovals(state.cards, action.approvals, action.askedAt),
        loadError: undefined,
      }
    case 'approval':
      return {
        ...state,
        cards: mergeApproval(
          state.cards,
          action.approval,
          action.seenAt === undefined ? {} : { seenAt: action.seenAt },
        ),
      }
    case 'approval-gone':
      return { ...state, cards: markApprovalGone(state.cards, action.approval) }
    case 'permissions':
      return { ...state, permissions: action.permissions }
    case 'grants':
      return { ...state, grants: action.grants }
    case 'load-failed':
      return { ...state, loadError: { failure: action.failure } }
    case 'runtime-gone':
      return {
        ...state,
        cards: markOpenCardsStale(state.cards),
        runtimeDown: state.runtimeDown || action.down,
      }
    case 'runtime-up':
      return { ...state, runtimeDown: false }
  }
}
