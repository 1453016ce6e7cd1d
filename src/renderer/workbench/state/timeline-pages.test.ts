import { describe, expect, it } from 'vitest'
import type { Timeline, TimelinePage, TimelinePageRequest } from '../../../contracts/room.ts'
import { FakeGui, longTimeline } from '../test-support/fake-gui.ts'
import { earlierRequest, foldTimelinePage, refreshRequest } from './timeline-pages.ts'

// The page folds the runtime's answers (the fake answers them as the
// runtime's RoomService.timelinePage does) into one run of turns. Walked
// from the newest page to the first, in any order of refreshes, the run
// ends as the whole timeline.

const PAGE = 5

async function answer(timeline: Timeline, request: TimelinePageRequest): Promise<TimelinePage> {
  const gui = new FakeGui()
  gui.pageTurns = PAGE
  gui.timelines.set(timeline.roomId, timeline)
  const response = await gui.timelinePage(timeline.roomId, request)
  expect(response.status).toBe(200)
  return response.body as TimelinePage
}

const ids = (rows: ReadonlyArray<{ id: string }>) => rows.map((row) => row.id).sort()

function expectWhole(held: TimelinePage, timeline: Timeline) {
  expect(held.turns.map((turn) => turn.id)).toEqual(timeline.turns.map((turn) => turn.id))
  expect(ids(held.messages)).toEqual(ids(timeline.messages))
  expect(ids(held.toolCalls)).toEqual(ids(timeline.toolCalls))
  expect(ids(held.approvals)).toEqual(ids(timeline.approvals))
  expect(held.earlierTurns).toBe(0)
}

/** Loads the newest page, then every page above it. */
async function loadAll(timeline: Timeline): Promise<TimelinePage> {
  let held = foldTimelinePage(
    undefined,
    refreshRequest(undefined),
    await answer(timeline, refreshRequest(undefined)),
  )
  for (let request = earlierRequest(held); request; request = earlierRequest(held)) {
    held = foldTimelinePage(held, request, await answer(timeline, request))
  }
  return held
}

describe('timeline pages', () => {
  it('asks for the newest page first, then for the pages above it, and ends with the whole room', async () => {
    const timeline = longTimeline(12, [1])
    expect(refreshRequest(undefined)).toEqual({ kind: 'recent' })
    const first = foldTimelinePage(
      undefined,
      { kind: 'recent' },
      await answer(timeline, { kind: 'recent' }),
    )
    expect(first.turns.map((turn) => turn.id)).toEqual(['t7', 't8', 't9', 't10', 't11'])
    expect(first.earlierTurns).toBe(7)
    // The approval still pending in an earlier turn is in the first page.
    expect(first.approvals.map((approval) => approval.id)).toContain('ap1')
    expect(earlierRequest(first)).toEqual({ kind: 'before', turnId: 't7' })
    expect(refreshRequest(first)).toEqual({ kind: 'from', turnId: 't7' })
    expectWhole(await loadAll(timeline), timeline)
  })

  it('asks for nothing above the first turn, and for the newest page while it holds no turn', async () => {
    const whole = await loadAll(longTimeline(3))
    expect(earlierRequest(whole)).toBeUndefined()
    const empty = await loadAll(longTimeline(0))
    expect(refreshRequest(empty)).toEqual({ kind: 'recent' })
    expect(earlierRequest(empty)).toBeUndefined()
  })

  it('keeps the earlier pages it loaded when a refresh brings the turns from its oldest on up to date', async () => {
    const timeline = longTimeline(12, [11])
    const whole = await loadAll(timeline)
    // The newest turn's approval is decided, and a turn is added.
    const later = longTimeline(13)
    const refreshed = foldTimelinePage(
      whole,
      refreshRequest(whole),
      await answer(later, refreshRequest(whole)),
    )
    expectWhole(refreshed, later)
    expect(refreshed.approvals.find((approval) => approval.id === 'ap11')?.status).toBe('denied')
  })

  it('folds a refresh and an earlier page in either order of arrival', async () => {
    const timeline = longTimeline(12)
    const held = foldTimelinePage(
      undefined,
      { kind: 'recent' },
      await answer(timeline, { kind: 'recent' }),
    )
    const refresh = refreshRequest(held)
    const earlier = earlierRequest(held)!
    const [refreshAnswer, earlierAnswer] = [
      await answer(timeline, refresh),
      await answer(timeline, earlier),
    ]
    const refreshFirst = foldTimelinePage(
      foldTimelinePage(held, refresh, refreshAnswer),
      earlier,
      earlierAnswer,
    )
    const earlierFirst = foldTimelinePage(
      foldTimelinePage(held, earlier, earlierAnswer),
      refresh,
      refreshAnswer,
    )
    expect(refreshFirst).toEqual(earlierFirst)
    expect(refreshFirst.turns.map((turn) => turn.id)).toEqual(
      timeline.turns.slice(2, 12).map((turn) => turn.id),
    )
    expect(refreshFirst.earlierTurns).toBe(2)
  })

  it('drops an earlier page asked above a turn that is no longer the first held, rather than leave a hole', async () => {
    const timeline = longTimeline(20)
    const held = foldTimelinePage(
      undefined,
      { kind: 'recent' },
      await answer(timeline, { kind: 'recent' }),
    )
    const stale: TimelinePageRequest = { kind: 'before', turnId: 't5' }
    expect(foldTimelinePage(held, stale, await answer(timeline, stale))).toBe(held)
  })

  it('starts again from the newest page, dropping what it held (a reset store)', async () => {
    const held = await loadAll(longTimeline(12))
    const fresh = longTimeline(2)
    const folded = foldTimelinePage(
      held,
      { kind: 'recent' },
      await answer(fresh, { kind: 'recent' }),
    )
    expectWhole(folded, fresh)
  })

  it('takes an earlier page’s approvals of its own turns only: a later turn’s is older news there', async () => {
    const timeline = longTimeline(12, [11])
    const held = foldTimelinePage(
      undefined,
      { kind: 'recent' },
      await answer(timeline, { kind: 'recent' }),
    )
    const earlier = earlierRequest(held)!
    const earlierAnswer = await answer(timeline, earlier)
    // Decided after the earlier page was answered: the held timeline knows.
    const decided = {
      ...held,
      approvals: held.approvals.map((approval) =>
        approval.id === 'ap11' ? { ...approval, status: 'denied' as const } : approval,
      ),
    }
    const folded = foldTimelinePage(decided, earlier, earlierAnswer)
    expect(folded.approvals.filter((approval) => approval.id === 'ap11')).toEqual([
      expect.objectContaining({ status: 'denied' }),
    ])
  })
})
