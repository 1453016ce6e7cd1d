import {
  CDP_PROTECTED_BINDING,
  CDP_PROTECTED_RECEIVE,
  CDP_PROTECTED_WORLD,
} from '../../common/cdp-names.ts'
import { readFileSync } from 'node:fs'
import type { BrowserContext } from 'playwright-core'
import type { ConsentView } from '../../common/consent-view.ts'
import { ConsentDecisionMessageSchema } from '../../common/consent-view.ts'
import type { ProtectedWindow, ProtectedWindowFactory } from '../core/host-port.ts'
import {
  SparePool,
  type SpareTiming,
  type SpareCandidate,
  type WindowSize,
} from '../core/spare-window.ts'
import { CONSENT_SITE } from '../core/page-sites.ts'
import { CONSENT_ORIGIN, CONSENT_URL, routeOnly } from './asset-router.ts'
import type { BuiltAssets } from './built-assets.ts'
import { CdpPageChannel } from './page-channel.ts'
import type { CdpWindow, CdpWindowLauncher } from './window-launcher.ts'

/** The Electron host's consent page policy, sent as a header here too. */
export const CONSENT_CSP = CONSENT_SITE.contentSecurityPolicy

export type DecisionSink = (
  promptId: string,
  answer: unknown,
  window: ProtectedWindow,
  values?: unknown,
) => void

/** Which window the person is looking at: the CDP host's stand-in for OS
 *  focus, moved by `focus()` and by opening a window. */
export class FocusTracker {
  private current: unknown
  private readonly listeners = new Map<unknown, Array<() => void>>()
  focus(target: unknown): void {
    if (this.current === target) return
    this.current = target
    for (const listener of this.listeners.get(target) ?? []) listener()
  }
  /** Hears each time `target` gains focus. */
  onFocus(target: unknown, listener: () => void): void {
    this.listeners.set(target, [...(this.listeners.get(target) ?? []), listener])
  }
  forget(target: unknown): void {
    this.listeners.delete(target)
  }
  blur(target: unknown): void {
    if (this.current === target) this.current = undefined
  }
  has(target: unknown): boolean {
    return this.current === target
  }
}

/**
 * A protected window on the CDP host: its own browser context (an isolated,
 * in-memory session), a router that serves nothing but the consent page's
 * files, the protected preload in its isolated world, and decisions only
 * through the world-scoped binding.
 */
export class CdpProtectedWindow implements ProtectedWindow, SpareCandidate {
  /** Set once, when a prompt claims this window; until then no decision
   *  from it is taken. */
  promptId: string | undefined
  readonly context: BrowserContext
  readonly channel: CdpPageChannel
  readonly blockedRequests: string[]
  private readonly window: CdpWindow
  private readonly focusTracker: FocusTracker
  private readonly closedListeners: Array<() => void> = []
  private readonly resetListeners: Array<(onConsentPage: boolean) => void> = []
  private closed = false
  private released = false
  /** Set once the prompt's view was first delivered: later documents in
   *  the main frame are resets, the first load is not. */
  private shown = false

  constructor(window: CdpWindow, channel: CdpPageChannel, blocked: string[], focus: FocusTracker) {
    this.window = window
    this.context = window.context
    this.channel = channel
    this.blockedRequests = blocked
    this.focusTracker = focus
    // The person closed the page: its browser context (the window's
    // session) goes with it, or every closed prompt would leave one behind.
    channel.page.on('close', () => {
      this.markClosed()
      this.releaseWindow()
    })
    channel.onMainFrameNavigated((url) => {
      if (!this.shown || this.closed) return
      const onConsentPage = url === CONSENT_URL
      for (const listener of this.resetListeners) listener(onConsentPage)
    })
  }

  get page() {
    return this.channel.page
  }

  async show(view: ConsentView): Promise<void> {
    await this.channel.waitForPreload()
    await this.channel.deliver(view)
    this.shown = true
  }

  focus(): void {
    if (this.closed) return
    this.focusTracker.focus(this)
    void this.page.bringToFront().catch(() => undefined)
  }

  /** Binds this prepared window to its one prompt. */
  claim(promptId: string): this {
    if (this.promptId !== undefined) throw new Error('this protected window already has a prompt')
    this.promptId = promptId
    return this
  }

  /** Brings the window from where it was prepared, out of sight, into view. */
  async reveal(): Promise<void> {
    if (!this.closed) await this.window.reveal()
  }

  isAlive(): boolean {
    return !this.closed && !this.page.isClosed()
  }

  discard(): void {
    this.close()
  }

  close(): void {
    if (this.closed) return
    this.releaseWindow()
    this.markClosed()
  }

  isVisible(): boolean {
    return !this.closed
  }

  isFocused(): boolean {
    return !this.closed && this.focusTracker.has(this)
  }

  onClosed(listener: () => void): void {
    this.closedListeners.push(listener)
  }

  onFocused(listener: () => void): void {
    this.focusTracker.onFocus(this, listener)
  }

  onPageReset(listener: (onConsentPage: boolean) => void): void {
    this.resetListeners.push(listener)
  }

  /** Main refused the decision just sent: the page re-arms its buttons. */
  decisionRefused(): void {
    const promptId = this.promptId
    if (this.closed || promptId === undefined) return
    void this.channel.deliver({ refused: true, promptId }).catch(() => undefined)
  }

  /** Closes the window's browser context once, however the window ended. */
  private releaseWindow(): void {
    if (this.released) return
    this.released = true
    void this.window.close().catch(() => undefined)
  }

  private markClosed(): void {
    if (this.closed) return
    this.closed = true
    this.focusTracker.blur(this)
    this.focusTracker.forget(this)
    for (const listener of this.closedListeners.splice(0)) listener()
  }
}

export class CdpProtectedWindowFactory implements ProtectedWindowFactory {
  private readonly launcher: CdpWindowLauncher
  private readonly assets: BuiltAssets
  private readonly focus: FocusTracker
  private readonly preloadSource: string
  private sink: DecisionSink | undefined
  private readonly spares: SparePool<CdpProtectedWindow>
  /** Windows handed to prompts, in order (prepared spares are not here). */
  readonly opened: CdpProtectedWindow[] = []

  /** `headed`: windows are real app windows on a desktop, where preparing
   *  one while a prompt is open could draw the person's eye or focus away
   *  from it; the next spare then waits until no prompt window is open. */
  constructor(
    launcher: CdpWindowLauncher,
    assets: BuiltAssets,
    focus: FocusTracker,
    options: { headed?: boolean } = {},
  ) {
    this.launcher = launcher
    this.assets = assets
    this.focus = focus
    this.preloadSource = readFileSync(assets.protectedPreload, 'utf8')
    const headed = options.headed === true
    this.spares = new SparePool(
      (size) => this.prepare(size),
      (error) => console.warn(`assent cdp host: a spare protected window failed: ${String(error)}`),
      { mayPrepare: () => !headed || !this.opened.some((window) => window.isAlive()) },
    )
  }

  /** Prepares the first spare, so even the first prompt finds one. */
  warm(size: WindowSize): void {
    this.spares.warm(size)
  }

  /** When the first spare is prepared: once the workbench is quiet. */
  get spareTiming(): SpareTiming {
    return this.spares
  }

  /** Whether a spare is prepared or on its way (the tests read it). */
  get holdsSpare(): boolean {
    return this.spares.holdsSpare
  }

  /** The prepared spare, if there is one (the tests read where it is). */
  spareWindow(): Promise<CdpProtectedWindow> | undefined {
    return this.spares.spareWindow()
  }

  /** Resolves once the next prompt would find its window prepared. */
  spareReady(): Promise<void> {
    return this.spares.spareReady()
  }

  close(): void {
    this.spares.close()
  }

  /** Where validated decisions go (the consent controller). */
  onDecision(sink: DecisionSink): void {
    this.sink = sink
  }

  async open(promptId: string, size: WindowSize): Promise<ProtectedWindow> {
    const window = (await this.spares.take(size)).claim(promptId)
    this.opened.push(window)
    window.onClosed(() => this.spares.idle())
    await window.reveal()
    window.focus()
    return window
  }

  /** A window with the consent page loaded and no prompt: hidden from the
   *  focus tracker, deciding nothing until claimed. */
  private async prepare(size: WindowSize): Promise<CdpProtectedWindow> {
    const opened = await this.launcher.open({
      size,
      hidden: true,
      // No service workers, no downloads, no permissions: the window shows one
      // static page.
      contextOptions: { serviceWorkers: 'block', acceptDownloads: false, permissions: [] },
    })
    const { context, page } = opened
    try {
      const blocked = await routeOnly(context, {
        origin: CONSENT_ORIGIN,
        root: this.assets.rendererRoot,
        pathPrefix: '/consent/',
        csp: CONSENT_CSP,
      })
      page.on('popup', (popup) => void popup.close())
      const channel = await CdpPageChannel.attach(page, {
        worldName: CDP_PROTECTED_WORLD,
        bindingName: CDP_PROTECTED_BINDING,
        receiveFunction: CDP_PROTECTED_RECEIVE,
        scripts: [{ source: this.preloadSource, world: CDP_PROTECTED_WORLD }],
        pageUrl: CONSENT_URL,
      })
      const window = new CdpProtectedWindow(opened, channel, blocked, this.focus)
      channel.onMessage((payload) => {
        let message: unknown
        try {
          message = JSON.parse(payload)
        } catch {
          return
        }
        const parsed = ConsentDecisionMessageSchema.safeParse(message)
        // An unclaimed window has no prompt id: nothing from it matches.
        if (!parsed.success || parsed.data.promptId !== window.promptId) return
        this.sink?.(parsed.data.promptId, parsed.data.answer, window, parsed.data.values)
      })
      await page.goto(CONSENT_URL)
      return window
    } catch (error) {
      await opened.close().catch(() => undefined)
      throw error
    }
  }
}
