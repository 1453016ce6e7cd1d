/**
 * Whether the end of the action has been in view. The page scrolls as one
 * (the footer with the buttons stays put), and the action ends with a
 * marker; once the marker's bottom has been inside the scrolling area the
 * person has had all of the action in front of them, and it stays seen.
 */
export class ActionEndWatch {
  private seen = false
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
    this.container = container
    this.marker = marker
    this.onSeen = onSeen
    const check = () => this.check()
    container.addEventListener('scroll', check, { passive: true, signal })
    window.addEventListener('resize', check, { signal })
  }

  get hasBeenSeen(): boolean {
    return this.seen
  }

  /** Measures now; calls `onSeen` the first time the end is in view. */
  check(): boolean {
    if (this.seen) return true
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
