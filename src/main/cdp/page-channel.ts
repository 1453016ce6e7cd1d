import type { CDPSession, Page } from 'playwright-core'
import { pageOf, validateSender } from '../core/sender-validator.ts'

interface FrameRecord {
  id: string
  url: string
  parent: FrameRecord | null
}

interface ContextRecord {
  name: string
  frameId: string | undefined
}

export interface PageChannelOptions {
  /** Name of the isolated world the preload runs in; the binding exists only there. */
  worldName: string
  bindingName: string
  /** Function the preload defines in its world to receive messages from main. */
  receiveFunction: string
  /** Scripts injected before any page script runs: `world` undefined = main world. */
  scripts: Array<{ source: string; world?: string }>
  /** The exact page URL messages may come from. */
  pageUrl: string
}

let nextPageNumber = 1

/**
 * IPC between main and one page's preload over the DevTools Protocol, the
 * CDP host's stand-in for Electron's IPC:
 * - the preload is injected into a named isolated world with
 *   `Page.addScriptToEvaluateOnNewDocument`;
 * - the page reaches main only through a `Runtime.addBinding` scoped to
 *   that world, so the main world never sees it;
 * - each binding call is mapped from its execution context to a frame, and
 *   passes the same sender validator Electron's IPC handlers use: that
 *   world, the page's current main frame, the exact page URL.
 */
export class CdpPageChannel {
  readonly page: Page
  readonly pageNumber = nextPageNumber++
  private readonly session: CDPSession
  private readonly options: PageChannelOptions
  private readonly contexts = new Map<number, ContextRecord>()
  private readonly frames = new Map<string, FrameRecord>()
  private mainFrameId: string | undefined
  private listener: ((payload: string) => void) | undefined
  private readonly navigationListeners: Array<(url: string) => void> = []
  readonly refusals: string[] = []

  private constructor(page: Page, session: CDPSession, options: PageChannelOptions) {
    this.page = page
    this.session = session
    this.options = options
  }

  static async attach(page: Page, options: PageChannelOptions): Promise<CdpPageChannel> {
    const session = await page.context().newCDPSession(page)
    const channel = new CdpPageChannel(page, session, options)
    await channel.install()
    return channel
  }

  /** Receives only messages that passed the sender check. */
  onMessage(listener: (payload: string) => void): void {
    this.listener = listener
  }

  /** Hears each new document of the main frame (a load, a reload, a
   *  navigation elsewhere, an error page), by its URL without fragment. */
  onMainFrameNavigated(listener: (url: string) => void): void {
    this.navigationListeners.push(listener)
  }

  /** Delivers a JSON message to the preload's world in the main frame. */
  async deliver(message: unknown): Promise<void> {
    const contextId = this.preloadContextId()
    if (contextId === undefined) throw new Error('the preload world is not ready in this page')
    const expression = `globalThis[${JSON.stringify(this.options.receiveFunction)}](${JSON.stringify(JSON.stringify(message))})`
    const result = await this.session.send('Runtime.evaluate', { expression, contextId })
    if (result.exceptionDetails) {
      throw new Error(`delivering to the preload failed: ${result.exceptionDetails.text}`)
    }
  }

  /** Resolves once the preload's world exists in the current main frame. */
  async waitForPreload(timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs
    while (this.preloadContextId() === undefined) {
      if (Date.now() > deadline) throw new Error('the preload world never appeared')
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
  }

  async detach(): Promise<void> {
    await this.session.detach().catch(() => undefined)
  }

  private async install(): Promise<void> {
    const { session } = this
    session.on('Runtime.executionContextCreated', ({ context }) => {
      const aux = context.auxData as { frameId?: string } | undefined
      this.contexts.set(context.id, { name: context.name, frameId: aux?.frameId })
    })
    session.on('Runtime.executionContextDestroyed', ({ executionContextId }) => {
      this.contexts.delete(executionContextId)
    })
    session.on('Runtime.executionContextsCleared', () => this.contexts.clear())
    session.on('Page.frameNavigated', ({ frame }) => {
      // A new record per navigation: a message from the previous document
      // must not pass as coming from the current one.
      const parent = frame.parentId ? (this.frames.get(frame.parentId) ?? null) : null
      this.frames.set(frame.id, {
        id: frame.id,
        url: frame.url + (frame.urlFragment ?? ''),
        parent,
      })
      if (frame.parentId) return
      this.mainFrameId = frame.id
      for (const listener of this.navigationListeners) listener(frame.url)
    })
    session.on('Page.frameDetached', ({ frameId }) => this.frames.delete(frameId))
    session.on('Runtime.bindingCalled', ({ name, payload, executionContextId }) => {
      if (name !== this.options.bindingName) return
      const verdict = this.checkSender(executionContextId)
      if (!verdict.ok) {
        this.refusals.push(verdict.reason)
        return
      }
      this.listener?.(payload)
    })
    await session.send('Page.enable')
    await session.send('Runtime.enable')
    const tree = await session.send('Page.getFrameTree')
    this.mainFrameId = tree.frameTree.frame.id
    this.frames.set(tree.frameTree.frame.id, {
      id: tree.frameTree.frame.id,
      url: tree.frameTree.frame.url,
      parent: null,
    })
    await session.send('Runtime.addBinding', {
      name: this.options.bindingName,
      executionContextName: this.options.worldName,
    })
    for (const script of this.options.scripts) {
      await session.send('Page.addScriptToEvaluateOnNewDocument', {
        source: script.source,
        ...(script.world ? { worldName: script.world } : {}),
      })
    }
  }

  private checkSender(executionContextId: number) {
    const context = this.contexts.get(executionContextId)
    // Only a call from the preload's own world has a sender frame at all: a
    // binding call from any other context is as if no frame had sent it.
    const senderFrame =
      context && context.name === this.options.worldName && context.frameId
        ? (this.frames.get(context.frameId) ?? null)
        : null
    const page = pageOf(this.options.pageUrl)
    return validateSender({
      event: { sender: { id: this.pageNumber }, senderFrame },
      expected: {
        webContentsId: this.pageNumber,
        mainFrame: () => (this.mainFrameId ? this.frames.get(this.mainFrameId) : undefined),
        origin: page.origin,
        pathname: page.pathname,
      },
    })
  }

  private preloadContextId(): number | undefined {
    for (const [id, context] of this.contexts) {
      if (context.name === this.options.worldName && context.frameId === this.mainFrameId) return id
    }
    return undefined
  }
}
