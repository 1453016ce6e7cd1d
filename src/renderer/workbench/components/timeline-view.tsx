import {
  useCallback,
  useDeferredValue,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
  type KeyboardEvent,
} from 'react'
import { useTranslation } from 'react-i18next'
import { defaultRangeExtractor, useVirtualizer } from '@tanstack/react-virtual'
import type { TimelinePage } from '../../../contracts/room.ts'
import type { TimelineItem } from '../state/timeline-items.ts'
import { TimelineEntry, type TimelineEntryProps } from './timeline-entry.tsx'
import { FindLayer } from './timeline-find-layer.tsx'
import { timelineFindText } from './timeline-find-text.ts'
import { useRuntimeWords } from './runtime-text.tsx'

export interface TimelineViewProps extends Omit<TimelineEntryProps, 'item'> {
  items: readonly TimelineItem[]
  timeline: TimelinePage | undefined
}

/** Space between two entries; the list lays entries out itself, so the
 *  stylesheet has no gap of its own. */
const ITEM_GAP_PX = 10
/** Entries mounted beyond each edge of the viewport: enough that Tab from
 *  the last visible control lands on a mounted one, which the browser then
 *  scrolls into view (and the list mounts the next). */
const OVERSCAN_ITEMS = 4
/** Within this distance of the bottom the timeline counts as following new
 *  entries; further up, the person is reading and it stays put. */
const FOLLOW_WITHIN_PX = 48
/** First guesses at an entry's height, until it is measured. */
const ESTIMATED_HEIGHT_PX: Record<TimelineItem['kind'], number> = {
  message: 72,
  tool: 150,
  approval: 230,
  input: 200,
  mode: 120,
  'turn-end': 56,
}

/**
 * The conversation: messages, tool calls with their results, and decided
 * cards in place. Only the entries near the viewport are mounted, so a room
 * with hundreds of cards opens and scrolls as fast as a short one:
 * - it follows new entries to the bottom, unless the person has scrolled up
 *   to read, and an entry that changes height keeps the rest in place;
 * - every entry not mounted leaves its words in a `hidden="until-found"`
 *   block at its place (FindLayer, filled just after the entries are
 *   drawn), so the browser's find bar finds it, and scrolling there mounts
 *   the entry;
 * - the entries form one keyboard stop (the newest, or the last one
 *   visited): the arrow keys, Home and End on an entry, and Page Up / Page
 *   Down anywhere inside one, move between entries, mounted or not;
 * - a long room arrives newest page first (use-room.ts): while earlier
 *   turns are loading a note at the top says so, and entries that arrive
 *   above the viewport leave what the person reads where it was.
 */
export function TimelineView(props: TimelineViewProps) {
  const { t } = useTranslation()
  const scroller = useRef<HTMLElement>(null)
  const list = useRef<HTMLOListElement>(null)
  const { items } = props
  const [activeKey, setActiveKey] = useState<string | null>(null)
  const focusNext = useRef<string | null>(null)
  const found = items.findIndex((item) => item.key === activeKey)
  const active = found === -1 ? items.length - 1 : found

  // The workbench is not built with React Compiler, so nothing memoizes
  // around the virtualizer's changing functions.
  // eslint-disable-next-line react-hooks/incompatible-library
  const virtualizer = useVirtualizer({
    count: items.length,
    getScrollElement: () => scroller.current,
    estimateSize: (index) => ESTIMATED_HEIGHT_PX[items[index]!.kind],
    getItemKey: (index) => items[index]!.key,
    gap: ITEM_GAP_PX,
    overscan: OVERSCAN_ITEMS,
    // The keyboard's entry stays mounted while it is scrolled away, so the
    // focus inside it is not lost.
    rangeExtractor: (range) => withIndex(defaultRangeExtractor(range), active),
  })

  // A room opens at its newest entry, and stays at the bottom while the
  // person is there: when an entry arrives, or one grows as it is measured.
  // Further up, an entry that changes height above the viewport moves the
  // scroll position with it (the library's default), so what the person
  // reads stays put.
  const following = useRef(true)
  useLayoutEffect(() => {
    const element = scroller.current
    if (!element) return
    let lastTop = element.scrollTop
    const track = () => {
      const top = element.scrollTop
      if (element.scrollHeight - top - element.clientHeight < FOLLOW_WITHIN_PX) {
        following.current = true
      } else if (top < lastTop) {
        // Only a move up leaves the bottom. A scroll event is also sent for
        // the list's own scrolling, and it arrives a frame later: by then an
        // entry may have grown past its estimate, or the viewport shrunk
        // when a card opened below it, so the bottom is further away
        // although nobody moved. Counting that as reading would stop the timeline
        // following for good, and new entries would arrive unseen.
        following.current = false
      }
      lastTop = top
    }
    // Capture: this runs before the list's own scroll listener, which
    // re-renders at once and could otherwise follow a scroll the person
    // just made away from the bottom.
    element.addEventListener('scroll', track, { capture: true, passive: true })
    return () => element.removeEventListener('scroll', track, { capture: true })
  }, [])
  // Entries that arrive above the viewport (an earlier page) push the rest
  // down by their height: the scroll position moves with the entry that was
  // at the top of the viewport, so the person goes on reading where they
  // were. At the bottom, following the newest entry does this already.
  const anchor = useRef<{ key: string; start: number } | null>(null)
  const firstKey = items[0]?.key
  useLayoutEffect(() => {
    const element = scroller.current
    const held = anchor.current
    if (!element || !held || following.current) return
    const index = items.findIndex((item) => item.key === held.key)
    const start = index === -1 ? undefined : virtualizer.measurementsCache[index]?.start
    if (start !== undefined && start !== held.start) element.scrollTop += start - held.start
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [firstKey])
  useLayoutEffect(() => {
    const top = scroller.current?.scrollTop ?? 0
    const first = virtualizer.getVirtualItems().find((virtual) => virtual.end > top)
    const item = first ? items[first.index] : undefined
    anchor.current = first && item ? { key: item.key, start: first.start } : null
  })

  const newestKey = items.at(-1)?.key
  const totalPx = virtualizer.getTotalSize()
  useLayoutEffect(() => {
    if (following.current && items.length > 0) {
      virtualizer.scrollToIndex(items.length - 1, { align: 'end' })
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [newestKey, totalPx])

  useLayoutEffect(() => {
    const key = focusNext.current
    if (key === null) return
    const element = list.current?.querySelector<HTMLElement>(`[data-key="${CSS.escape(key)}"]`)
    if (!element) return
    focusNext.current = null
    element.focus({ preventScroll: true })
  })

  const moveTo = (index: number) => {
    const key = items[index]!.key
    focusNext.current = key
    setActiveKey(key)
    virtualizer.scrollToIndex(index, { align: 'auto' })
  }

  const onKeyDown = (event: KeyboardEvent<HTMLElement>) => {
    if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return
    const entry = entryOf(event.target)
    if (!entry) return
    const from = Number(entry.dataset.index)
    const onEntry = entry === event.target
    const to = target(event.key, from, items.length - 1, onEntry)
    if (to === undefined) return
    event.preventDefault()
    moveTo(to)
  }

  const words = useRuntimeWords()
  // The find layer follows a render behind: a room opens (and a refresh
  // lands) with its entries drawn first, and the words of its thousands of
  // entries are worked out in the render React does after that one, once
  // the browser has painted it.
  const findItems = useDeferredValue(items)
  const texts = useMemo(
    () => findItems.map((item) => timelineFindText(item, t, words)),
    [findItems, t, words],
  )
  const keys = useMemo(() => findItems.map((item) => item.key), [findItems])
  const estimatedStarts = useMemo(() => estimatedOffsets(findItems), [findItems])
  const onFound = useCallback((key: string) => {
    setActiveKey(key)
    // The browser scrolls to the revealed words first; the entry then
    // mounts at its measured place, which this scrolls to.
    requestAnimationFrame(() => {
      const index = itemsRef.current.findIndex((item) => item.key === key)
      if (index !== -1) virtualizerRef.current?.scrollToIndex(index, { align: 'center' })
    })
  }, [])

  const itemsRef = useRef(items)
  const virtualizerRef = useRef(virtualizer)
  useLayoutEffect(() => {
    itemsRef.current = items
    virtualizerRef.current = virtualizer
  })

  const virtualItems = virtualizer.getVirtualItems()
  // The same set while the window has not moved, so the find layer is left alone.
  const mountedIndexes = virtualItems.map((virtual) => virtual.index).join(',')
  const mounted = useMemo(
    () =>
      new Set(
        mountedIndexes === ''
          ? []
          : mountedIndexes.split(',').map((index) => items[Number(index)]!.key),
      ),
    [mountedIndexes, items],
  )
  const { activity, retryErrors, onReview, onShowCard, onRetry } = props
  const earlierTurns = props.timeline?.earlierTurns ?? 0

  return (
    <section
      className="timeline"
      ref={scroller}
      aria-label={t('workbench.timeline.label')}
      data-testid="timeline"
      // Absent until the first page is in: only then is "0" a fact.
      data-earlier-turns={props.timeline ? earlierTurns : undefined}
      tabIndex={0}
      onKeyDown={onKeyDown}
      onFocus={(event) => {
        const entry = entryOf(event.target)
        if (entry?.dataset.key && entry.dataset.key !== activeKey) setActiveKey(entry.dataset.key)
      }}
    >
      {earlierTurns > 0 ? (
        <p className="timeline__earlier" role="status" data-testid="timeline-earlier">
          {t('workbench.timeline.earlier', { count: earlierTurns })}
        </p>
      ) : null}
      {items.length === 0 ? (
        <p className="timeline__empty">{t('workbench.room.empty')}</p>
      ) : (
        <div className="timeline__canvas" style={{ height: virtualizer.getTotalSize() }}>
          <ol className="timeline__list" ref={list}>
            {virtualItems.map((virtual) => {
              const item = items[virtual.index]!
              return (
                <li
                  key={item.key}
                  ref={virtualizer.measureElement}
                  className="timeline__item"
                  data-index={virtual.index}
                  data-key={item.key}
                  aria-posinset={virtual.index + 1}
                  aria-setsize={items.length}
                  tabIndex={virtual.index === active ? 0 : -1}
                  style={{ transform: `translateY(${virtual.start}px)` }}
                >
                  <TimelineEntry
                    item={item}
                    activity={activity}
                    retryErrors={retryErrors}
                    onReview={onReview}
                    onShowCard={onShowCard}
                    onRetry={onRetry}
                  />
                </li>
              )
            })}
          </ol>
          <FindLayer
            keys={keys}
            texts={texts}
            tops={estimatedStarts}
            mounted={mounted}
            onFound={onFound}
          />
        </div>
      )}
    </section>
  )
}

/** The timeline entry (`li`) that holds `target`, if any. */
function entryOf(target: EventTarget): HTMLElement | null {
  if (!(target instanceof HTMLElement)) return null
  return target.closest<HTMLElement>('li.timeline__item')
}

/** Where a key moves the keyboard from entry `from`; arrows, Home and End
 *  only when the entry itself has focus (inside it, they belong to its
 *  controls and scrolling), Page Up / Page Down from anywhere inside. */
function target(key: string, from: number, last: number, onEntry: boolean): number | undefined {
  const moves: Record<string, number | undefined> = {
    PageDown: from + 1,
    PageUp: from - 1,
    ...(onEntry ? { ArrowDown: from + 1, ArrowUp: from - 1, Home: 0, End: last } : {}),
  }
  const to = moves[key]
  if (to === undefined || to < 0 || to > last || to === from) return undefined
  return to
}

/** Each entry's offset by the estimated heights alone. */
function estimatedOffsets(items: readonly TimelineItem[]): number[] {
  const starts: number[] = []
  let at = 0
  for (const item of items) {
    starts.push(at)
    at += ESTIMATED_HEIGHT_PX[item.kind] + ITEM_GAP_PX
  }
  return starts
}

function withIndex(indexes: number[], extra: number): number[] {
  if (extra < 0 || indexes.includes(extra)) return indexes
  return [...indexes, extra].sort((a, b) => a - b)
}
