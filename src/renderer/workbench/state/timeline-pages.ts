import type { TimelinePage, TimelinePageRequest } from '../../../contracts/room.ts'

/**
 * The page holds one unbroken run of a room's turns, from the oldest it has
 * loaded to the newest, with what belongs to them. The runtime answers in
 * pages (`TimelinePageRequest`); these functions fold an answer into that
 * run. They decide nothing: every row is the runtime's, the newer answer's
 * when two answers hold the same row.
 */

/** Folds the answer to `request` into what the page held (`current`):
 * - `recent` starts the run again (the page asks for it when it has nothing
 *   yet, or after the runtime was reset), so nothing of `current` stays;
 * - `from` brings every turn from the oldest loaded one up to date: the
 *   turns of `current` before its first stay as they were;
 * - `before` is the page just above the run: it goes on top. */
export function foldTimelinePage(
  current: TimelinePage | undefined,
  request: TimelinePageRequest,
  answer: TimelinePage,
): TimelinePage {
  if (!current || request.kind === 'recent' || current.roomId !== answer.roomId) return answer
  if (request.kind === 'from') return withNewer(current, answer)
  // A page asked for above a turn that is no longer the first one held (the
  // run started again meanwhile) would leave a hole: it is dropped, and the
  // page asks again from what it holds now.
  return current.turns[0]?.id === request.turnId ? withEarlier(current, answer) : current
}

/** What the page asks for to bring everything it holds up to date: every
 *  turn from its oldest on, or the newest page when it holds no turn. */
export function refreshRequest(current: TimelinePage | undefined): TimelinePageRequest {
  const oldest = current?.turns[0]
  return oldest ? { kind: 'from', turnId: oldest.id } : { kind: 'recent' }
}

/** The page just above what the page holds, if the room has one. */
export function earlierRequest(current: TimelinePage | undefined): TimelinePageRequest | undefined {
  const oldest = current?.turns[0]
  return oldest && current.earlierTurns > 0 ? { kind: 'before', turnId: oldest.id } : undefined
}

/** `answer` brings the turns from its first one on up to date. It starts at
 *  the oldest turn the page held when it asked, so the turns before that one
 *  are those an earlier page added meanwhile: they stay as they were. */
function withNewer(current: TimelinePage, answer: TimelinePage): TimelinePage {
  const first = answer.turns[0]
  const cut = first ? current.turns.findIndex((turn) => turn.id === first.id) : -1
  if (cut <= 0) return answer
  const kept = current.turns.slice(0, cut)
  const keptIds = new Set(kept.map((turn) => turn.id))
  const ofKept = <Row extends { turnId: string }>(rows: readonly Row[]) =>
    rows.filter((row) => keptIds.has(row.turnId))
  const answered = new Set(answer.approvals.map((approval) => approval.id))
  return {
    ...answer,
    turns: [...kept, ...answer.turns],
    messages: [...ofKept(current.messages), ...answer.messages],
    toolCalls: [...ofKept(current.toolCalls), ...answer.toolCalls],
    approvals: [
      ...ofKept(current.approvals).filter((approval) => !answered.has(approval.id)),
      ...answer.approvals,
    ],
    earlierTurns: current.earlierTurns,
  }
}

/** `answer` is the page just above the run. Its approvals of later turns
 *  (every pending one is in every page) are older news than `current`'s, so
 *  only those of its own turns are taken. */
function withEarlier(current: TimelinePage, answer: TimelinePage): TimelinePage {
  const ownIds = new Set(answer.turns.map((turn) => turn.id))
  const held = new Set(current.approvals.map((approval) => approval.id))
  return {
    ...current,
    turns: [...answer.turns, ...current.turns],
    messages: [...answer.messages, ...current.messages],
    toolCalls: [...answer.toolCalls, ...current.toolCalls],
    approvals: [
      ...answer.approvals.filter(
        (approval) => ownIds.has(approval.turnId) && !held.has(approval.id),
      ),
      ...current.approvals,
    ],
    earlierTurns: answer.earlierTurns,
  }
}
