import type { ConsentView } from '../../common/consent-view.ts'

/**
 * One protected window, as a host (Electron or CDP) provides it.
 * Invariant the adapter must keep: `isVisible`/`isFocused` report the real
 * window state, and `onClosed` fires exactly once however it closes.
 */
export interface ProtectedWindow {
  /** The prompt this window serves; undefined only while it is a prepared
   *  spare (main/core/spare-window.ts), which decides nothing. */
  readonly promptId: string | undefined
  /** Sends the canonical view to the window's protected preload and shows
   *  the window: focused when `how.activate` (the default), otherwise
   *  without taking focus from whatever the person is in, drawing their
   *  attention instead. A host that learns when the page has drawn the
   *  view reports that time, on the controller's monotonic clock. */
  show(view: ConsentView, how?: ShowHow): Promise<ViewShown | void>
  focus(): void
  /** Asks for the person's attention without taking focus (a flashing
   *  taskbar entry): a review asked for again while the person was not
   *  pressing anything in the workbench. */
  requestAttention?(): void
  /** Main refused a decision from this window (too early, hidden,
   *  unfocused, no press just before it): the page re-arms its buttons,
   *  so a person whose click came too late can still decide. */
  decisionRefused?(): void
  close(): void
  isVisible(): boolean
  isFocused(): boolean
  onClosed(listener: () => void): void
  /** Fires each time the window gains focus, so main can time the enable
   *  delay from the latest focus itself (docs/architecture.md §3). A host
   *  without it leaves main timing from when the view was shown. */
  onFocused?(listener: () => void): void
  /** Fires when the window's main frame shows a new document after its view
   *  was shown: a reload (`onConsentPage` true: the consent page came back,
   *  empty) or a navigation elsewhere (false). Main then shows the prompt
   *  again or closes it, so a window never sits blank while its card says
   *  "decide there". */
  onPageReset?(listener: (onConsentPage: boolean) => void): void
}

export interface ShowHow {
  /** Whether the window may take focus as it is shown. */
  activate: boolean
}

export interface ViewShown {
  /** When the page reported it had drawn the view, just before the window
   *  was shown (the controller's monotonic clock). */
  drawnAtMs: number
}

/**
 * Port: opens a protected window in a fresh isolated session with only the
 * consent page and the protected preload. The host routes decision messages
 * to `ConsentController.handleDecision` only after it has validated that the
 * sender is this window's main frame on the consent page.
 */
export interface ProtectedWindowFactory {
  open(promptId: string, size: { width: number; height: number }): Promise<ProtectedWindow>
}

/** Where main forwards runtime events and status for the workbench. */
export interface WorkbenchNotifier {
  send(event: { type: string; data: unknown }): void
}

/** A notice of something that waits for the person, in their language. */
export interface WaitNotice {
  /** The approval it is about, if any: a click focuses its card. */
  approvalId?: string
  /** Lets the workbench open the room even if it never saw the event. */
  roomId?: string
  title: string
  body: string
}

/**
 * Port: a system notification that something waits for the person (what
 * and when is decided once, in wait-notices.ts). Invariant the adapter must
 * keep: it shows nothing while the workbench has focus (the card is already
 * in view), it shows only the text it is given (a tool's name or a
 * question's title, never arguments or answers), and a click brings the
 * workbench forward and, for an approval, tells it which card to focus.
 */
export interface WaitNotifier {
  notify(notice: WaitNotice): void
}
