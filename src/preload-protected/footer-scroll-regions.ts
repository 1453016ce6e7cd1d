/** Class a footer region gets while its text does not fit: the stylesheet
 *  draws its edge and a shadow where more text waits. */
export const FOOTER_CUT_CLASS = 'consent-cut'

/**
 * The footer's parts whose length the agent decides (the notices, the lines
 * under the buttons) shrink before the buttons do and scroll on their own
 * (src/renderer/consent/consent.css). This keeps that cut visible: a region
 * whose text does not fit is marked, drawn with an edge and a shadow, and
 * made a tab stop so the keyboard can scroll it; one that fits is neither,
 * so the keyboard does not stop on empty text. Measured now and whenever
 * a region's size changes (the window resized, the scroll cue above them
 * shown or hidden).
 */
export function watchFooterRegions(
  window: Window,
  regions: readonly HTMLElement[],
  signal: AbortSignal,
): void {
  const mark = () => {
    for (const region of regions) {
      // One pixel of slack for fractional layout at odd zoom levels.
      const cut = region.scrollHeight > region.clientHeight + 1
      region.classList.toggle(FOOTER_CUT_CLASS, cut)
      if (cut) region.tabIndex = 0
      else region.removeAttribute('tabindex')
    }
  }
  mark()
  window.addEventListener('resize', mark, { signal })
  // The page's own window's observer, not this world's global: happy-dom
  // test windows have none, and then resize alone has to do.
  const Observer = (window as Window & { ResizeObserver?: typeof ResizeObserver }).ResizeObserver
  if (!Observer) return
  const observer = new Observer(mark)
  for (const region of regions) observer.observe(region)
  signal.addEventListener('abort', () => observer.disconnect(), { once: true })
}
