// @vitest-environment happy-dom
import { act, cleanup, screen, waitFor } from '@testing-library/react'
import { useState } from 'react'
import { afterEach, describe, expect, it } from 'vitest'
import type { TimelineItem } from '../state/timeline-items.ts'
import { deferred, emptyTimeline, longTimeline, roomFixture } from '../test-support/fake-gui.ts'
import { resetListLayout } from '../test-support/list-layout.ts'
import { renderWithI18n } from '../test-support/render.tsx'
import { cardsIn, setupRoomView } from '../test-support/room-view-setup.tsx'
import { TimelineView } from './timeline-view.tsx'

// A long room arrives newest page first: the room view draws it, says that
// earlier turns are loading, loads them while the page is idle, and the
// person reading higher up is not moved when they arrive above.

afterEach(() => {
  cleanup()
  resetListLayout()
})

const timelineElement = () => screen.getByTestId('timeline')
const setSize = () =>
  Number(timelineElement().querySelector('.timeline__list > li')?.getAttribute('aria-setsize'))

describe('RoomView: a long room in pages', () => {
  it('draws the newest page with every open card, says earlier turns are loading, and ends with the whole room', async () => {
    const earlier = deferred<void>()
    const { gui } = setupRoomView(roomFixture(), longTimeline(150, [2]))
    // The newest page is answered; the pages above it wait.
    gui.timelineGate = earlier.promise
    await waitFor(() => expect(timelineElement().dataset.earlierTurns).toBe('90'))
    expect(screen.getByTestId('timeline-earlier').textContent).toBe(
      'Loading earlier turns: 90 to go',
    )
    // A message and a write per turn, for the 60 newest turns.
    expect(setSize()).toBe(120)
    // The approval still waiting in the third turn is open already.
    expect(cardsIn('open-requests')).toEqual(['ap2'])
    await waitFor(() => expect(gui.callsOf('timeline')).toHaveLength(2))
    expect(gui.callsOf('timeline')).toEqual([
      ['room-1', { kind: 'recent' }],
      ['room-1', { kind: 'before', turnId: 't90' }],
    ])

    act(() => earlier.resolve())
    await waitFor(() => expect(timelineElement().dataset.earlierTurns).toBe('0'))
    expect(screen.queryByTestId('timeline-earlier')).toBeNull()
    expect(setSize()).toBe(300)
    expect(gui.callsOf('timeline').slice(2)).toEqual([
      ['room-1', { kind: 'before', turnId: 't30' }],
    ])
    expect(cardsIn('open-requests')).toEqual(['ap2'])
  })

  it('brings everything it holds up to date from its oldest turn, and starts again at the newest page after a reset', async () => {
    const { gui } = setupRoomView(roomFixture(), longTimeline(70))
    await waitFor(() => expect(setSize()).toBe(140))
    expect(timelineElement().dataset.earlierTurns).toBe('0')
    act(() => gui.emit('timeline.updated', { roomId: 'room-1' }))
    await waitFor(() =>
      expect(gui.callsOf('timeline').at(-1)).toEqual(['room-1', { kind: 'from', turnId: 't0' }]),
    )
    gui.timelines.set('room-1', emptyTimeline('room-1'))
    act(() => gui.emit('runtime.reset', {}))
    await waitFor(() =>
      expect(gui.callsOf('timeline').at(-1)).toEqual(['room-1', { kind: 'recent' }]),
    )
    // The new store's newest page is all there is: none of the old turns'
    // messages and calls stay (the cards already decided keep their place).
    await waitFor(() => expect(setSize()).toBe(70))
    expect(timelineElement().querySelector('li[data-key^="message:"]')).toBeNull()
  })
})

function messages(count: number, prefix: string): TimelineItem[] {
  return Array.from({ length: count }, (_, index) => ({
    kind: 'message' as const,
    key: `message:${prefix}${index + 1}`,
    message: {
      id: `${prefix}${index + 1}`,
      roomId: 'room-1',
      turnId: `turn-${prefix}`,
      role: 'user' as const,
      text: `${prefix} entry ${index + 1}`,
      createdAt: 1_000 + index,
    },
  }))
}

const NO_CALLS = {
  activity: new Map(),
  retryErrors: new Map(),
  onReview: () => undefined,
  onShowCard: () => undefined,
  onRetry: () => undefined,
}

/** Where `key`'s entry sits in the viewport, in px from its top. */
function inViewport(key: string): number | undefined {
  const entry = timelineElement().querySelector<HTMLElement>(`li[data-key="${key}"]`)
  if (!entry) return undefined
  const offset = Number(/translateY\(([\d.]+)px\)/.exec(entry.style.transform)?.[1])
  return offset - timelineElement().scrollTop
}

describe('TimelineView: entries arriving above', () => {
  it('leaves the entry the person reads where it was when an earlier page arrives above it', async () => {
    const later = messages(200, 'n')
    let setItems: (items: readonly TimelineItem[]) => void = () => undefined
    function Room() {
      const [items, set] = useState<readonly TimelineItem[]>(later)
      setItems = set
      const earlierTurns = items.length === later.length ? 40 : 0
      return (
        <TimelineView
          items={items}
          timeline={{ ...emptyTimeline('room-1'), earlierTurns }}
          {...NO_CALLS}
        />
      )
    }
    renderWithI18n(<Room />)
    await waitFor(() => expect(inViewport('message:n200')).toBeDefined())
    // The person scrolls up to read.
    act(() => {
      timelineElement().scrollTop = timelineElement().scrollTop / 2
    })
    await waitFor(() => expect(inViewport('message:n100')).toBeDefined())
    const key = 'message:n100'
    const before = inViewport(key)!
    act(() => setItems([...messages(40, 'e'), ...later]))
    await waitFor(() => expect(timelineElement().dataset.earlierTurns).toBe('0'))
    await waitFor(() => expect(inViewport(key)).toBe(before))
    expect(timelineElement().querySelector('li[data-key="message:e1"]')).toBeNull()
  })
})
