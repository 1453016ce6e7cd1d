// @vitest-environment happy-dom
import { act, cleanup, fireEvent, screen, waitFor } from '@testing-library/react'
import { useState } from 'react'
import { afterEach, describe, expect, it } from 'vitest'
import type { TimelineItem } from '../state/timeline-items.ts'
import { listLayout, resetListLayout } from '../test-support/list-layout.ts'
import { renderWithI18n } from '../test-support/render.tsx'
import { TimelineView } from './timeline-view.tsx'

// The list mounts what fits the viewport: happy-dom has no layout, so the
// stand-in of test-support/list-layout.ts gives the timeline a 600 px
// viewport and every entry 100 px.

afterEach(() => {
  cleanup()
  resetListLayout()
})

const ENTRIES = 500

function messages(count: number): TimelineItem[] {
  return Array.from({ length: count }, (_, index) => ({
    kind: 'message' as const,
    key: `message:m${index + 1}`,
    message: {
      id: `m${index + 1}`,
      roomId: 'room-1',
      turnId: 'turn-1',
      role: index % 2 === 0 ? ('user' as const) : ('agent' as const),
      text: `entry number ${index + 1} says ${index % 7 === 0 ? 'zebra' : 'hello'}`,
      createdAt: 1_000 + index,
    },
  }))
}

const NO_CALLS = {
  timeline: undefined,
  activity: new Map(),
  retryErrors: new Map(),
  onReview: () => undefined,
  onShowCard: () => undefined,
  onRetry: () => undefined,
}

/** Renders the list once; `rerender` gives the same list new items, as the
 *  room view does when the conversation grows. */
function renderList(items: readonly TimelineItem[]) {
  let setItems: (next: readonly TimelineItem[]) => void = () => undefined
  function Room() {
    const [current, set] = useState(items)
    setItems = set
    return <TimelineView items={current} {...NO_CALLS} />
  }
  renderWithI18n(<Room />)
  return { rerender: (next: readonly TimelineItem[]) => act(() => setItems(next)) }
}

const mounted = () => [
  ...screen.getByTestId('timeline').querySelectorAll<HTMLElement>('.timeline__list > li'),
]
const positions = () => mounted().map((entry) => Number(entry.getAttribute('aria-posinset')))
const entry = (position: number) =>
  mounted().find((element) => element.getAttribute('aria-posinset') === String(position))
const findTexts = () => screen.queryAllByTestId('entry-find-text')

/** Waits until the list has settled on showing `position`. */
async function shown(position: number): Promise<HTMLElement> {
  let found: HTMLElement | undefined
  await waitFor(() => {
    found = entry(position)
    expect(found).toBeDefined()
  })
  return found!
}

describe('TimelineView: a long room mounts only what is near the viewport', () => {
  it('mounts a window of a 500-entry room, opening at the newest entry', async () => {
    renderList(messages(ENTRIES))
    await shown(ENTRIES)
    // 600 px of 100 px entries, plus the overscan on each side.
    expect(mounted().length).toBeGreaterThanOrEqual(6)
    expect(mounted().length).toBeLessThan(20)
    expect(Math.min(...positions())).toBeGreaterThan(ENTRIES - 20)
    expect(entry(ENTRIES)?.textContent).toContain('entry number 500')
    for (const element of mounted()) {
      expect(element.getAttribute('aria-setsize')).toBe(String(ENTRIES))
    }
  })

  it('leaves the words of every entry it does not mount to the find bar, once each, hidden until found', async () => {
    renderList(messages(ENTRIES))
    await shown(ENTRIES)
    // The layer is filled in the render after the entries are drawn.
    await waitFor(() => expect(findTexts().length + mounted().length).toBe(ENTRIES))
    const texts = findTexts()
    const mountedKeys = new Set(mounted().map((element) => element.dataset.key))
    for (const text of texts) {
      expect(text.getAttribute('hidden')).toBe('until-found')
      expect(mountedKeys.has(text.dataset.key)).toBe(false)
    }
    const first = texts.find((text) => text.dataset.key === 'message:m1')
    expect(first?.textContent).toBe('You\nentry number 1 says zebra')
  })

  it('mounts the entry whose hidden words the find bar matched', async () => {
    renderList(messages(ENTRIES))
    await shown(ENTRIES)
    expect(entry(1)).toBeUndefined()
    await waitFor(() => expect(findTexts().length).toBeGreaterThan(0))
    const first = findTexts().find((text) => text.dataset.key === 'message:m1')!
    act(() => {
      first.dispatchEvent(new Event('beforematch'))
    })
    const found = await shown(1)
    expect(found.textContent).toContain('entry number 1 says zebra')
    // Its words leave the find layer, so a match is never counted twice.
    expect(findTexts().some((text) => text.dataset.key === 'message:m1')).toBe(false)
  })

  it('gives the words of entries that arrive later to the find bar too', async () => {
    const list = renderList(messages(ENTRIES))
    await shown(ENTRIES)
    list.rerender(messages(ENTRIES + 40))
    await shown(ENTRIES + 40)
    await waitFor(() => expect(findTexts().length + mounted().length).toBe(ENTRIES + 40))
    const keys = new Set(findTexts().map((text) => text.dataset.key))
    expect(keys.has(`message:m${ENTRIES + 1}`)).toBe(true)
  })

  it('keeps the find layer in reading order as the window moves, so matches come in timeline order', async () => {
    renderList(messages(ENTRIES))
    const newest = await shown(ENTRIES)
    act(() => newest.focus())
    fireEvent.keyDown(newest, { key: 'Home' })
    await shown(1)
    const timeline = screen.getByTestId('timeline')
    act(() => {
      timeline.scrollTop = timeline.scrollHeight / 2
    })
    await waitFor(() =>
      expect(positions().filter((at) => at > 100 && at < 400).length).toBeGreaterThan(5),
    )
    const order = findTexts().map((text) => Number(text.dataset.key!.replace('message:m', '')))
    // Entries from the newest end came back into the layer after the others.
    expect(order).toContain(ENTRIES)
    expect(order).toEqual([...order].sort((a, b) => a - b))
    expect(order.length + mounted().length).toBe(ENTRIES)
  })
})

describe('TimelineView: the keyboard moves across entries, mounted or not', () => {
  it('keeps one tab stop among the entries, on the newest one', async () => {
    renderList(messages(ENTRIES))
    await shown(ENTRIES)
    const stops = mounted().filter((element) => element.tabIndex === 0)
    expect(stops.map((element) => element.getAttribute('aria-posinset'))).toEqual([String(ENTRIES)])
  })

  it('moves focus with Home, End and the arrows to entries that were not mounted', async () => {
    renderList(messages(ENTRIES))
    const newest = await shown(ENTRIES)
    act(() => newest.focus())
    expect(entry(1)).toBeUndefined()

    fireEvent.keyDown(newest, { key: 'Home' })
    await waitFor(() => expect(document.activeElement?.getAttribute('aria-posinset')).toBe('1'))
    expect(document.activeElement?.textContent).toContain('entry number 1 says')

    fireEvent.keyDown(document.activeElement!, { key: 'ArrowDown' })
    await waitFor(() => expect(document.activeElement?.getAttribute('aria-posinset')).toBe('2'))

    fireEvent.keyDown(document.activeElement!, { key: 'PageDown' })
    await waitFor(() => expect(document.activeElement?.getAttribute('aria-posinset')).toBe('3'))

    fireEvent.keyDown(document.activeElement!, { key: 'ArrowUp' })
    await waitFor(() => expect(document.activeElement?.getAttribute('aria-posinset')).toBe('2'))

    fireEvent.keyDown(document.activeElement!, { key: 'End' })
    await waitFor(() =>
      expect(document.activeElement?.getAttribute('aria-posinset')).toBe(String(ENTRIES)),
    )
    // The tab stop went along with the focus.
    expect(mounted().filter((element) => element.tabIndex === 0)).toEqual([document.activeElement])
  })

  it('keeps the focused entry mounted when the list scrolls away from it', async () => {
    renderList(messages(ENTRIES))
    const newest = await shown(ENTRIES)
    act(() => newest.focus())
    fireEvent.keyDown(newest, { key: 'Home' })
    await waitFor(() => expect(document.activeElement?.getAttribute('aria-posinset')).toBe('1'))
    const timeline = screen.getByTestId('timeline')
    act(() => {
      timeline.scrollTop = timeline.scrollHeight / 2
    })
    await waitFor(() =>
      expect(positions().filter((at) => at > 100 && at < 400).length).toBeGreaterThan(5),
    )
    expect(entry(1)).toBe(document.activeElement)
    expect(entry(2)).toBeUndefined()
  })

  it('leaves arrows to the controls inside an entry, and is not moved past either end', async () => {
    renderList(messages(3))
    const newest = await shown(3)
    const text = newest.querySelector('.message__text') as HTMLElement
    expect(fireEvent.keyDown(text, { key: 'ArrowUp' })).toBe(true)
    expect(fireEvent.keyDown(newest, { key: 'ArrowDown' })).toBe(true)
    expect(fireEvent.keyDown(newest, { key: 'End' })).toBe(true)
    expect(fireEvent.keyDown(newest, { key: 'ArrowUp' })).toBe(false)
  })
})

describe('TimelineView: it follows new entries', () => {
  it('shows a new entry at the bottom while the person is there', async () => {
    const view = renderList(messages(ENTRIES))
    await shown(ENTRIES)
    const timeline = screen.getByTestId('timeline')
    const before = timeline.scrollTop
    view.rerender(messages(ENTRIES + 1))
    const added = await shown(ENTRIES + 1)
    expect(added.textContent).toContain('entry number 501')
    // It scrolled down by the new entry, to the new bottom.
    await waitFor(() => expect(timeline.scrollTop).toBeGreaterThan(before))
    expect(timeline.scrollHeight - timeline.scrollTop - timeline.clientHeight).toBeLessThan(1)
  })

  it('stays where the person scrolled up to read when a new entry arrives', async () => {
    const view = renderList(messages(ENTRIES))
    await shown(ENTRIES)
    const timeline = screen.getByTestId('timeline')
    act(() => {
      timeline.scrollTop = 10_000
    })
    // The window moved up; the newest entry stays mounted only as the tab stop.
    await waitFor(() => expect(Math.min(...positions())).toBeLessThan(200))
    const reading = positions().filter((at) => at < ENTRIES)
    view.rerender(messages(ENTRIES + 1))
    await waitFor(() => expect(mounted()[0]?.getAttribute('aria-setsize')).toBe('501'))
    await act(() => new Promise((settled) => setTimeout(settled, 50)))
    expect(timeline.scrollTop).toBe(10_000)
    expect(positions().filter((at) => at < ENTRIES)).toEqual(reading)
  })

  // A scroll event comes a frame after the scroll, for the list's own
  // scrolling too; by then the bottom can be further away although nobody
  // moved (an entry grew past its estimate, a card opened below and the
  // viewport shrank). Only the person moving up stops the following.
  it('keeps following when the bottom moves away without the person scrolling up', async () => {
    const view = renderList(messages(ENTRIES))
    await shown(ENTRIES)
    const timeline = screen.getByTestId('timeline')
    const before = timeline.scrollTop
    listLayout.viewportPx = 300
    act(() => {
      timeline.dispatchEvent(new Event('scroll'))
    })
    listLayout.viewportPx = 600
    view.rerender(messages(ENTRIES + 1))
    await shown(ENTRIES + 1)
    await waitFor(() => expect(timeline.scrollTop).toBeGreaterThan(before))
    expect(timeline.scrollHeight - timeline.scrollTop - timeline.clientHeight).toBeLessThan(1)
  })

  it('follows again once the person scrolls back down to the bottom', async () => {
    const view = renderList(messages(ENTRIES))
    await shown(ENTRIES)
    const timeline = screen.getByTestId('timeline')
    const bottom = timeline.scrollTop
    act(() => {
      timeline.scrollTop = 10_000
    })
    await waitFor(() => expect(Math.min(...positions())).toBeLessThan(200))
    // Down again, but not to the bottom: still reading.
    act(() => {
      timeline.scrollTop = 20_000
    })
    await act(() => new Promise((settled) => setTimeout(settled, 50)))
    view.rerender(messages(ENTRIES + 1))
    await waitFor(() => expect(mounted()[0]?.getAttribute('aria-setsize')).toBe('501'))
    await act(() => new Promise((settled) => setTimeout(settled, 50)))
    expect(timeline.scrollTop).toBe(20_000)
    // Within reach of the bottom: the next entry is followed.
    act(() => {
      timeline.scrollTop = timeline.scrollHeight - timeline.clientHeight - 20
    })
    await act(() => new Promise((settled) => setTimeout(settled, 50)))
    view.rerender(messages(ENTRIES + 2))
    await shown(ENTRIES + 2)
    await waitFor(() => expect(timeline.scrollTop).toBeGreaterThan(bottom))
    expect(timeline.scrollHeight - timeline.scrollTop - timeline.clientHeight).toBeLessThan(1)
  })
})
