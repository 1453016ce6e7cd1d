import type { ConsentView } from '../../src/common/consent-view.ts'
import type {
  ProtectedWindow,
  ProtectedWindowFactory,
  ShowHow,
  ViewShown,
} from '../../src/main/core/host-port.ts'
import { eventually } from './runtime-harness.ts'

// The host (a window system) is what main's core cannot bring along into a
// Node test, so these recording fakes stand in for the Electron or CDP
// protected windows; everything behind them is real.

export class FakeWindow implements ProtectedWindow {
  readonly promptId: string
  views: ConsentView[] = []
  visible = true
  focused = true
  closed = false
  focusCount = 0
  /** How each `show` was asked to show the window. */
  readonly shownHow: Array<ShowHow | undefined> = []
  attentionCount = 0
  refusedCount = 0
  /** When set, `show` reports the page drew the view at this time. */
  drawnAt: (() => number) | undefined
  private readonly closedListeners: Array<() => void> = []
  private readonly focusListeners: Array<() => void> = []
  private readonly resetListeners: Array<(onConsentPage: boolean) => void> = []

  constructor(promptId: string) {
    this.promptId = promptId
  }
  async show(view: ConsentView, how?: ShowHow): Promise<ViewShown | void> {
    this.views.push(view)
    this.shownHow.push(how)
    if (this.drawnAt) return { drawnAtMs: this.drawnAt() }
  }
  focus() {
    this.focusCount += 1
  }
  requestAttention() {
    this.attentionCount += 1
  }
  decisionRefused() {
    this.refusedCount += 1
  }
  close() {
    if (this.closed) return
    this.closed = true
    for (const listener of this.closedListeners) listener()
  }
  isVisible() {
    return this.visible && !this.closed
  }
  isFocused() {
    return this.focused && !this.closed
  }
  onClosed(listener: () => void) {
    this.closedListeners.push(listener)
  }
  onFocused(listener: () => void) {
    this.focusListeners.push(listener)
  }
  onPageReset(listener: (onConsentPage: boolean) => void) {
    this.resetListeners.push(listener)
  }
  /** The window gained focus again (the person came back to it). */
  regainFocus() {
    for (const listener of this.focusListeners) listener()
  }
  /** The window's page was reloaded (true) or navigated elsewhere (false). */
  resetPage(onConsentPage: boolean) {
    for (const listener of this.resetListeners) listener(onConsentPage)
  }
}

export class FakeWindows implements ProtectedWindowFactory {
  opened: FakeWindow[] = []
  private shown = 0

  async open(promptId: string) {
    const window = new FakeWindow(promptId)
    this.opened.push(window)
    return window
  }
  last(): FakeWindow {
    const window = this.opened.at(-1)
    if (!window) throw new Error('no window opened')
    return window
  }
  /** Waits for the next window to open and show its view. */
  async nextShown(): Promise<FakeWindow> {
    const seen = this.shown
    const window = await eventually(() => {
      const next = this.opened[seen]
      return next?.views.length ? next : undefined
    }, 'the view')
    this.shown = seen + 1
    return window
  }
}
