// Functions the bench runs inside Chromium pages (page.evaluate). Each is
// self-contained: Playwright sends its source to the page, so it may use
// nothing from this module at run time. The bench compiles without the DOM
// library (it is a Node script), so the page globals it touches are typed
// here, narrowly.

/** Epoch milliseconds with sub-millisecond precision: the wall clock when
 *  this process (or page) began, plus a monotonic clock since. Two processes
 *  agree only while the wall clock has not been stepped between their
 *  starts (a virtual machine's clock is, by hundreds of milliseconds), so a
 *  span is timed on one clock: within a page, or in Node from the call
 *  that starts it to the report that ends it (consent-latency-bench.ts). */
export function epochNow(): number {
  return performance.timeOrigin + performance.now()
}

interface ProbeElement {
  getAttribute(name: string): string | null
  checkVisibility(): boolean
  getBoundingClientRect(): { top: number; bottom: number }
  querySelectorAll(selector: string): ArrayLike<ProbeElement>
  addEventListener(
    type: string,
    listener: (event: { timeStamp: number }) => void,
    capture?: boolean,
  ): void
  hidden: boolean
  scrollTop: number
  scrollHeight: number
  clientHeight: number
  dataset: Record<string, string | undefined>
}

interface ProbeGui {
  sendMessage(roomId: string, input: unknown): Promise<unknown>
  reviewApproval(approvalId: string): Promise<unknown>
}

export interface PageGlobals {
  document: {
    querySelector(selector: string): ProbeElement | null
    querySelectorAll(selector: string): ArrayLike<ProbeElement>
    getElementById(id: string): ProbeElement | null
    documentElement: ProbeElement
    body: ProbeElement
  }
  MutationObserver: new (callback: () => void) => {
    observe(target: ProbeElement, options: { childList?: boolean; subtree?: boolean }): void
    disconnect(): void
  }
  PerformanceObserver: new (
    callback: (list: { getEntries(): Array<{ duration: number }> }) => void,
  ) => {
    observe(options: { type: string; buffered?: boolean }): void
    disconnect(): void
  }
  requestAnimationFrame(callback: (time: number) => void): number
  performance: { timeOrigin: number; now(): number }
  assentGui: ProbeGui
  /** Bench state kept in the page between evaluate calls. */
  assentBench?: Record<string, unknown>
}

export interface CardProbeResult {
  startedAt: number
  visibleAt: number
  approvalId: string
}

/**
 * In the workbench: sends a message through `assentGui` and resolves at the
 * first animation frame after a new, visible approval card is in the DOM.
 */
export function sendAndAwaitCard(input: {
  roomId: string
  text: string
  clientRequestId: string
  timeoutMs: number
}): Promise<CardProbeResult> {
  const page = globalThis as unknown as PageGlobals
  const now = () => page.performance.timeOrigin + page.performance.now()
  const selector = '[data-testid="approval-card"]'
  const known = new Set(
    Array.from(page.document.querySelectorAll(selector), (card) =>
      card.getAttribute('data-approval-id'),
    ),
  )
  return new Promise((resolve, reject) => {
    let startedAt = 0
    const timer = setTimeout(() => {
      observer.disconnect()
      reject(new Error('no new approval card appeared'))
    }, input.timeoutMs)
    const observer = new page.MutationObserver(() => {
      for (const card of Array.from(page.document.querySelectorAll(selector))) {
        const id = card.getAttribute('data-approval-id')
        if (id === null || known.has(id) || !card.checkVisibility()) continue
        observer.disconnect()
        clearTimeout(timer)
        page.requestAnimationFrame(() => resolve({ startedAt, visibleAt: now(), approvalId: id }))
        return
      }
    })
    observer.observe(page.document.body, { childList: true, subtree: true })
    startedAt = now()
    page.assentGui
      .sendMessage(input.roomId, { clientRequestId: input.clientRequestId, text: input.text })
      .catch((error: unknown) => reject(error as Error))
  })
}

/** In the workbench: asks main to open the review; the outcome is kept in
 *  the page for `reviewOutcome`. */
export function startReview(approvalId: string): void {
  const page = globalThis as unknown as PageGlobals
  const bench = (page.assentBench ??= {})
  bench.review = page.assentGui.reviewApproval(approvalId)
}

/** In the workbench: the outcome of the last `startReview`. */
export function reviewOutcome(): Promise<unknown> {
  const page = globalThis as unknown as PageGlobals
  return (page.assentBench?.review as Promise<unknown> | undefined) ?? Promise.resolve(undefined)
}

/**
 * In a consent page: resolves at the first animation frame once the view is
 * on screen (the approval section and the Deny button visible, the theme
 * set); rejects after `timeoutMs`.
 */
export function consentRendered(input: { theme: string; timeoutMs: number }): Promise<void> {
  const page = globalThis as unknown as PageGlobals
  const now = () => page.performance.timeOrigin + page.performance.now()
  const rendered = () => {
    const deny = page.document.getElementById('assent-deny')
    const section = page.document.getElementById('assent-approval')
    return (
      deny !== null &&
      deny.checkVisibility() &&
      section !== null &&
      !section.hidden &&
      page.document.documentElement.dataset.theme === input.theme
    )
  }
  return new Promise((resolve, reject) => {
    const started = now()
    const check = () => {
      if (rendered()) resolve()
      else if (now() - started > input.timeoutMs)
        reject(new Error('the consent view never rendered'))
      else page.requestAnimationFrame(check)
    }
    page.requestAnimationFrame(check)
  })
}

/** Resolves at the next animation frame in this page. */
export function nextFrame(): Promise<void> {
  const page = globalThis as unknown as PageGlobals
  return new Promise((resolve) => page.requestAnimationFrame(() => resolve()))
}

/**
 * In the workbench: resolves at the first animation frame once the room is
 * on screen as a person sees it on opening: its timeline shows its newest
 * entry inside the timeline's viewport, and holds at least `entries`
 * entries (the list's `aria-setsize`) unless it says earlier turns are
 * still to load (`data-earlier-turns`: the room opens at its newest page
 * and loads the pages above it next), and at least `openCards` open
 * approval cards are visible; with the time this was called. The timeline
 * mounts only the entries near its viewport, so counting cards in the page
 * would measure the wrong thing.
 */
export function awaitRoomShown(input: {
  entries: number
  openCards: number
  timeoutMs: number
}): Promise<{ startedAt: number; renderedAt: number }> {
  const page = globalThis as unknown as PageGlobals
  const now = () => page.performance.timeOrigin + page.performance.now()
  const startedAt = now()
  const state = () => {
    const timeline = page.document.querySelector('[data-testid="timeline"]')
    const newest = Array.from(
      page.document.querySelectorAll('[data-testid="timeline"] li[aria-setsize]'),
    ).find((entry) => entry.getAttribute('aria-posinset') === entry.getAttribute('aria-setsize'))
    const size = Number(newest?.getAttribute('aria-setsize') ?? 0)
    const earlier = Number(timeline?.getAttribute('data-earlier-turns') ?? 0)
    let newestShown = false
    if (timeline && newest && newest.checkVisibility()) {
      const view = timeline.getBoundingClientRect()
      const box = newest.getBoundingClientRect()
      newestShown = box.bottom > view.top && box.top < view.bottom
    }
    const open = Array.from(
      page.document.querySelectorAll('[data-testid="approval-card"][data-outcome="pending"]'),
    ).filter((card) => card.checkVisibility()).length
    return { size, earlier, newestShown, open }
  }
  return new Promise((resolve, reject) => {
    const check = () => {
      const { size, earlier, newestShown, open } = state()
      if ((size >= input.entries || earlier > 0) && newestShown && open >= input.openCards) {
        resolve({ startedAt, renderedAt: now() })
        return
      }
      if (now() - startedAt > input.timeoutMs) {
        reject(
          new Error(
            `the room never showed: ${size} of ${input.entries} entries ` +
              `(${earlier} earlier turns to load), newest shown ` +
              `${newestShown}, ${open} of ${input.openCards} open cards`,
          ),
        )
        return
      }
      page.requestAnimationFrame(check)
    }
    page.requestAnimationFrame(check)
  })
}

export interface ScrollReport {
  /** Gaps between consecutive animation frames while scrolling, in ms. */
  frameGapsMs: number[]
  /** Durations of long tasks (over 50 ms) while scrolling, in ms. */
  longTasksMs: number[]
  /** How far the timeline actually moved, in px (proves it scrolled). */
  scrolledPx: number
}

/**
 * In the workbench: records frame gaps and long tasks from now until the
 * bench clears `assentBenchScrolling`, and how far `selector` scrolled.
 */
export function watchScrolling(input: { selector: string }): Promise<ScrollReport> {
  const page = globalThis as unknown as PageGlobals & { assentBenchScrolling?: boolean }
  const element = page.document.querySelector(input.selector)
  if (!element) return Promise.reject(new Error(`${input.selector} is not in the page`))
  const frameGapsMs: number[] = []
  const longTasksMs: number[] = []
  let lowest = element.scrollTop
  let highest = element.scrollTop
  const observer = new page.PerformanceObserver((list) => {
    for (const entry of list.getEntries()) longTasksMs.push(entry.duration)
  })
  observer.observe({ type: 'longtask' })
  page.assentBenchScrolling = true
  return new Promise((resolve) => {
    let last = page.performance.now()
    const frame = () => {
      const at = page.performance.now()
      frameGapsMs.push(at - last)
      last = at
      lowest = Math.min(lowest, element.scrollTop)
      highest = Math.max(highest, element.scrollTop)
      if (page.assentBenchScrolling) {
        page.requestAnimationFrame(frame)
        return
      }
      observer.disconnect()
      resolve({ frameGapsMs, longTasksMs, scrolledPx: highest - lowest })
    }
    page.requestAnimationFrame(frame)
  })
}
