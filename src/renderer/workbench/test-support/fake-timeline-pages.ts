import type { Timeline, TimelinePage, TimelinePageRequest } from '../../../contracts/room.ts'

/** How the runtime refuses a page asked for from a turn that is not the
 *  room's. */
export const NO_SUCH_TURN = { error: 'turnId: no turn of this room', code: 'not_found' }

/**
 * The page of `timeline` that `request` names, as the runtime answers it
 * (RoomService.timelinePage): turns in order, at most `size` of them for
 * `recent` and `before`, with their rows, and every pending approval. A
 * timeline whose turns all fit one page is answered whole, rows without a
 * turn included, so a fixture need not list the turns of its rows.
 */
export function timelinePageOf(
  timeline: Timeline,
  request: TimelinePageRequest,
  size: number,
): TimelinePage | undefined {
  const { turns } = timeline
  const at =
    request.kind === 'recent' ? turns.length : turns.findIndex((turn) => turn.id === request.turnId)
  if (at === -1) return undefined
  const [start, end] =
    request.kind === 'recent'
      ? [Math.max(0, turns.length - size), turns.length]
      : request.kind === 'from'
        ? [at, turns.length]
        : [Math.max(0, at - size), at]
  if (start === 0 && end === turns.length) return { ...timeline, earlierTurns: 0 }
  const ids = new Set(turns.slice(start, end).map((turn) => turn.id))
  const ofPage = <Row extends { turnId: string }>(rows: readonly Row[]) =>
    rows.filter((row) => ids.has(row.turnId))
  return {
    roomId: timeline.roomId,
    turns: turns.slice(start, end),
    messages: ofPage(timeline.messages),
    toolCalls: ofPage(timeline.toolCalls),
    approvals: timeline.approvals.filter(
      (approval) => approval.status === 'pending' || ids.has(approval.turnId),
    ),
    earlierTurns: start,
  }
}
