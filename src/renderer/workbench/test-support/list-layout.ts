// happy-dom lays nothing out and never scrolls: every element is 0 px tall
// and setting scrollTop fires no scroll event, so the timeline (which mounts
// only the entries that fit its viewport) would see no viewport at all. This
// stands in for the browser's layout in component tests, for what the list
// reads: the timeline's viewport, its scroll height (the canvas the list
// sizes), each entry's height, and scrolling (clamped, then a scroll event,
// as a browser does). The real layout is what `npm run bench` measures in
// Chromium.

export interface ListLayout {
  /** The timeline's viewport height. */
  viewportPx: number
  /** Every entry's height. */
  entryPx: number
}

export const listLayout: ListLayout = {
  viewportPx: 600,
  entryPx: 100,
}

/** Back to the defaults, between tests. */
export function resetListLayout(): void {
  listLayout.viewportPx = 600
  listLayout.entryPx = 100
}

function override(
  name: 'clientHeight' | 'clientWidth' | 'offsetHeight' | 'scrollHeight',
  size: (element: HTMLElement) => number | undefined,
): void {
  const original =
    Object.getOwnPropertyDescriptor(Element.prototype, name) ??
    Object.getOwnPropertyDescriptor(HTMLElement.prototype, name)
  Object.defineProperty(HTMLElement.prototype, name, {
    configurable: true,
    get(this: HTMLElement) {
      return size(this) ?? (original?.get?.call(this) as number | undefined) ?? 0
    },
  })
}

const scrollTops = new WeakMap<HTMLElement, number>()

function isTimeline(element: HTMLElement): boolean {
  return element.dataset.testid === 'timeline'
}

function scrollHeightOf(element: HTMLElement): number {
  const canvas = element.querySelector<HTMLElement>('.timeline__canvas')
  return Math.max(listLayout.viewportPx, Number.parseFloat(canvas?.style.height ?? '') || 0)
}

let installed = false

/** Installs the stand-in layout once per test file (a DOM environment). */
export function installListLayout(): void {
  if (installed || typeof HTMLElement === 'undefined') return
  installed = true
  override('clientHeight', (element) => (isTimeline(element) ? listLayout.viewportPx : undefined))
  override('clientWidth', (element) => (isTimeline(element) ? 800 : undefined))
  override('scrollHeight', (element) => (isTimeline(element) ? scrollHeightOf(element) : undefined))
  const scrollTop = Object.getOwnPropertyDescriptor(Element.prototype, 'scrollTop')
  Object.defineProperty(HTMLElement.prototype, 'scrollTop', {
    configurable: true,
    get(this: HTMLElement) {
      if (!isTimeline(this)) return scrollTop?.get?.call(this) as number
      return scrollTops.get(this) ?? 0
    },
    set(this: HTMLElement, value: number) {
      if (!isTimeline(this)) return scrollTop?.set?.call(this, value)
      const top = Math.max(0, Math.min(value, scrollHeightOf(this) - listLayout.viewportPx))
      if (top === (scrollTops.get(this) ?? 0)) return
      scrollTops.set(this, top)
      setTimeout(() => this.dispatchEvent(new Event('scroll')), 0)
    },
  })
  override('offsetHeight', (element) =>
    element.classList.contains('timeline__item') ? listLayout.entryPx : undefined,
  )
}
