/**
 * Whether the end of the action has been in view. The page scrolls as one
 * (the footer with the buttons stays put), and the action ends with a
 * marker; once the marker's bottom has been inside the scrolling area the
 * person has had all of the action in front of them, and it stays seen.
 *
 * Measured only while the page is shown (`visibilityState` 'visible'): the
 * Electron host draws the view in a hidden window and only then places it
 * (window-placement.ts), which shrinks it to fit a small screen. A measure
 * taken in the hidden window would pass an end the shrunk window draws
 * below the buttons, and the person cannot have seen anything of a hidden
 * window anyway. The window being shown measures again.
 */
export class ActionEndWatch {
  private seen = false
  private readonly document: Document
  private readonly container: HTMLElement
  private readonly marker: HTMLElement
  private readonly onSeen: () => void

  constructor(
    window: Window,
    container: HTMLElement,
    marker: HTMLElement,
    onSeen: () => void,
    signal: AbortSignal,
  ) {
    this.document = container.ownerDocument
    this.container = container
    this.marker = marker
    this.onSeen = onSeen
    const check = () => this.check()
    container.addEventListener('scroll', check, { passive: true, signal })
    window.addEventListener('resize', check, { signal })
    this.document.addEventListener('visibilitychange', check, { signal })
  }

  get hasBeenSeen(): boolean {
    return this.seen
  }

  /** Measures now; calls `onSeen` the first time the end is in view. */
  check(): boolean {
    if (this.seen) return true
    if (this.document.visibilityState !== 'visible') return false
    const end = this.marker.getBoundingClientRect().bottom
    const visibleBottom = this.container.getBoundingClientRect().bottom
    // One pixel of slack for fractional layout at odd zoom levels.
    if (end <= visibleBottom + 1) {
      this.seen = true
      this.onSeen()
    }
    return this.seen
  }
}
