import { screen, type BrowserWindow, type Session } from 'electron'
import { z } from 'zod'
import type { ConsentAnswer, ConsentView } from '../../common/consent-view.ts'
import { IPC } from '../../common/ipc-channels.ts'
import type { ProtectedWindow, ShowHow, ViewShown } from '../core/host-port.ts'
import { TrustedInputLog } from '../core/input-recency.ts'
import { isExactPage, pageOf, validateSender } from '../core/sender-validator.ts'
import type { SpareCandidate } from '../core/spare-window.ts'
import { CONSENT_SITE } from '../core/page-sites.ts'
import type { SessionLease } from './consent-session-pool.ts'
import { takeDecision } from './decision-intake.ts'
import { WEBRTC_IP_HANDLING_POLICY } from './web-contents-guard.ts'
import { minimumSizeIn, placeInWorkArea, type Rect } from './window-placement.ts'

// One protected window as main holds it once made (protected-window.ts
// makes it): the guards on its page, the decisions that come from it, and
// how it is shown, focused and closed.

/** How long main waits for the page to report the view drawn before it
 *  shows the window anyway: a slow renderer delays a prompt, it does not
 *  block it. The page's own delay starts only once the window is shown and
 *  focused, so showing late never lets an answer through early. */
export const VIEW_DRAWN_TIMEOUT_MS = 1_500

/** The page's report that it drew the view of its prompt. */
const ViewDrawnSchema = z.strictObject({ promptId: z.string().min(1).max(128) })

export interface ElectronProtectedWindowFactoryOptions {
  /** `app.getAppPath()`: where `out/` lives. */
  appRoot: string
  /** The build-time flavour (see electron.vite.config.ts): DevTools only
   *  in a development build. */
  developmentBuild: boolean
  /** Called only for a decision that passed `takeDecision`; the consent
   *  controller checks the prompt itself. */
  onDecision: (
    promptId: string,
    answer: ConsentAnswer,
    window: ProtectedWindow,
    values?: Record<string, unknown>,
  ) => void
  /** A monotonic clock for input recency (`performance.now`). */
  now: () => number
  onDiagnostic?: (message: string) => void
  /** Told which BrowserWindow a prompt was handed (the smoke port only). */
  onOpened?: (promptId: string, windowId: number) => void
  /** The workbench, while it is open: each protected window is its child
   *  and opens on its display. */
  parent?: () => BrowserWindow | undefined
  /** How long to wait for the page to draw the view (VIEW_DRAWN_TIMEOUT_MS). */
  viewDrawnTimeoutMs?: number
}

export class ElectronProtectedWindow implements ProtectedWindow, SpareCandidate {
  /** Set once, when a prompt claims this window; until then every decision
   *  from it is refused. */
  promptId: string | undefined
  private readonly win: BrowserWindow
  private readonly inputs = new TrustedInputLog()
  private readonly closedListeners: Array<() => void> = []
  private readonly focusListeners: Array<() => void> = []
  private readonly resetListeners: Array<(onConsentPage: boolean) => void> = []
  private readonly options: ElectronProtectedWindowFactoryOptions
  /** Resolves the wait for the page's report that it drew the view. */
  private drawnWaiter: ((atMs: number) => void) | undefined
  private closed = false
  /** Set once a prompt's view was first sent: a later document in the main
   *  frame is a reset (a reload, a crash), the first load is not. */
  private shown = false

  constructor(
    win: BrowserWindow,
    lease: SessionLease<Session>,
    options: ElectronProtectedWindowFactoryOptions,
  ) {
    this.win = win
    this.options = options
    const contents = win.webContents
    const webContentsId = contents.id
    const expected = {
      webContentsId,
      mainFrame: () => win.webContents.mainFrame,
      ...pageOf(CONSENT_SITE.pageUrl),
    }
    // The session goes back to the pool (to be cleared) only once no page
    // of this window can use it any more.
    contents.once('destroyed', () => lease.release())

    // Nothing in this window may go anywhere, open anything, embed anything
    // or move itself. 'will-frame-navigate' comes first and, prevented,
    // cancels the navigation of any frame (electron_navigation_throttle.cc).
    contents.on('will-frame-navigate', (event) => event.preventDefault())
    contents.on('will-navigate', (event) => event.preventDefault())
    contents.on('will-redirect', (event) => event.preventDefault())
    contents.on('will-attach-webview', (event) => event.preventDefault())
    contents.on('content-bounds-updated', (event) => event.preventDefault())
    contents.setWindowOpenHandler(() => ({ action: 'deny' }))
    contents.setWebRTCIPHandlingPolicy(WEBRTC_IP_HANDLING_POLICY)

    // Recorded in the browser process, which a script in the page cannot
    // reach: the defense-in-depth half of the trusted-click check.
    contents.on('input-event', (_event, input) => this.inputs.record(input, options.now()))

    // Scoped to this webContents: another window's messages never arrive
    // here, and takeDecision still validates the sender frame and page.
    contents.ipc.on(IPC.consentDecide, (event, message: unknown) => {
      const promptId = this.promptId
      if (promptId === undefined) {
        options.onDiagnostic?.('refused a consent decision from a window with no prompt yet')
        return
      }
      const intake = takeDecision({
        event,
        message,
        promptId,
        expected,
        lastInputAtMs: this.inputs.lastInputAtMs,
        nowMs: options.now(),
      })
      if (!intake.ok) {
        options.onDiagnostic?.(`refused a consent decision for ${promptId}: ${intake.reason}`)
        // Whoever sent it, the page is told: a real page re-arms its
        // buttons; anything else learns only that nothing was taken.
        this.decisionRefused()
        return
      }
      options.onDecision(promptId, intake.answer, this, intake.values)
    })

    // The page drew the prompt's view: main shows the window only now.
    contents.ipc.on(IPC.consentDrawn, (event, message: unknown) => {
      if (!validateSender({ event, expected }).ok) return
      const parsed = ViewDrawnSchema.safeParse(message)
      if (!parsed.success || parsed.data.promptId !== this.promptId) return
      this.drawnWaiter?.(options.now())
    })

    win.on('focus', () => {
      if (this.isOpen()) win.flashFrame(false)
      for (const listener of this.focusListeners) listener()
    })
    // A reload shows an empty consent page: it says so only once the page
    // has loaded, so the view main sends again reaches its preload. Leaving
    // the page (navigation is refused above, so this is defense in depth)
    // or losing the renderer says so at once: the prompt cannot be decided
    // here any more.
    const consentPage = pageOf(CONSENT_SITE.pageUrl)
    contents.on('did-finish-load', () => {
      if (isExactPage(contents.getURL(), consentPage)) this.pageReset(true)
    })
    contents.on('did-navigate', (_event, url: string) => {
      if (!isExactPage(url, consentPage)) this.pageReset(false)
    })
    contents.on('render-process-gone', () => {
      // A spare whose renderer died can never serve a prompt: closed now,
      // or it would sit hidden with its session leased, keeping the app
      // from quitting.
      if (this.promptId === undefined) this.close()
      else this.pageReset(false)
    })

    win.once('closed', () => {
      this.closed = true
      for (const listener of this.closedListeners.splice(0)) listener()
    })
  }

  /** The BrowserWindow's id (for the smoke port's record of prompts). */
  get windowId(): number {
    return this.win.id
  }

  /** Binds this prepared window to its one prompt. */
  claim(promptId: string): this {
    if (this.promptId !== undefined) throw new Error('this protected window already has a prompt')
    this.promptId = promptId
    return this
  }

  isAlive(): boolean {
    return this.isOpen() && !this.win.webContents.isCrashed()
  }

  discard(): void {
    this.close()
  }

  /** Loads the consent page (from its own scheme, never `file://`). */
  async load(): Promise<void> {
    await this.win.loadURL(CONSENT_SITE.pageUrl)
  }

  /**
   * Sizes the window for where it will show, sends the view, waits
   * (bounded) for the page to report it drawn, and only then makes it the
   * workbench's child and shows it: a person never sees a blank or
   * half-drawn prompt, and main's enable delay starts no sooner than the
   * view could be seen. Sized first because the page measures what it drew
   * (whether the end of the action is in view, which keeps Allow off until
   * it has been): a window shrunk to a small screen's work area after the
   * drawing would show less than was measured. Shown without focus (and
   * flashing) unless `how` lets it take focus.
   */
  async show(view: ConsentView, how: ShowHow = { activate: true }): Promise<ViewShown> {
    if (!this.isOpen()) throw new Error('the protected window was closed before it was shown')
    const parent = this.place()
    const drawn = new Promise<number>((resolve) => {
      const timer = setTimeout(
        () => resolve(this.options.now()),
        this.options.viewDrawnTimeoutMs ?? VIEW_DRAWN_TIMEOUT_MS,
      )
      this.drawnWaiter = (atMs) => {
        clearTimeout(timer)
        resolve(atMs)
      }
    })
    this.win.webContents.send(IPC.consentShow, view)
    this.shown = true
    const drawnAtMs = await drawn
    this.drawnWaiter = undefined
    if (!this.isOpen()) throw new Error('the protected window was closed before it was shown')
    // A child is attached when shown: on macOS a child window added to its
    // parent is ordered in with it, which must wait for the drawn view.
    if (parent && !parent.isDestroyed()) this.win.setParentWindow(parent)
    if (how.activate) {
      this.win.show()
    } else {
      this.win.showInactive()
      this.win.flashFrame(true)
    }
    return { drawnAtMs }
  }

  focus(): void {
    if (!this.isOpen()) return
    this.win.show()
    this.win.focus()
  }

  requestAttention(): void {
    if (this.isOpen() && !this.win.isFocused()) this.win.flashFrame(true)
  }

  decisionRefused(): void {
    const promptId = this.promptId
    if (promptId === undefined || !this.isOpen()) return
    this.win.webContents.send(IPC.consentRefused, { promptId })
  }

  /** On the workbench's display, over it, sized to fit its work area; on
   *  the primary display when there is no workbench. Returns the workbench
   *  it is placed over, whose child it becomes when shown. */
  private place(): BrowserWindow | undefined {
    const parent = this.options.parent?.()
    const liveParent = parent && !parent.isDestroyed() ? parent : undefined
    const parentBounds: Rect | undefined = liveParent?.getBounds()
    const display = parentBounds
      ? screen.getDisplayMatching(parentBounds)
      : screen.getPrimaryDisplay()
    const requested = this.win.getBounds()
    const minimum = minimumSizeIn(display.workArea)
    this.win.setMinimumSize(minimum.width, minimum.height)
    this.win.setBounds(placeInWorkArea(requested, display.workArea, parentBounds))
    return liveParent
  }

  close(): void {
    if (this.isOpen()) this.win.close()
  }

  isVisible(): boolean {
    return this.isOpen() && this.win.isVisible()
  }

  isFocused(): boolean {
    return this.isOpen() && this.win.isFocused()
  }

  private isOpen(): boolean {
    return !this.closed && !this.win.isDestroyed()
  }

  onFocused(listener: () => void): void {
    this.focusListeners.push(listener)
  }

  onPageReset(listener: (onConsentPage: boolean) => void): void {
    this.resetListeners.push(listener)
  }

  private pageReset(onConsentPage: boolean): void {
    if (!this.shown || !this.isOpen()) return
    for (const listener of this.resetListeners) listener(onConsentPage)
  }

  /** Fires once, however the window closes; a listener added after it
   *  closed fires once, asynchronously. */
  onClosed(listener: () => void): void {
    if (this.closed) {
      queueMicrotask(listener)
      return
    }
    this.closedListeners.push(listener)
  }
}
