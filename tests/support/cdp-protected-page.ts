import { accessSync, constants } from 'node:fs'
import type { Browser, CDPSession, Page } from 'playwright-core'
import { chromium } from 'playwright-core'
import { waitFor } from '../../scripts/smoke/wait.ts'
import { chromiumLaunchOptions } from '../../src/main/cdp/chromium.ts'
import {
  CDP_PROTECTED_BINDING,
  CDP_PROTECTED_RECEIVE,
  CDP_PROTECTED_WORLD,
} from '../../src/common/cdp-names.ts'

/** Debian's Chromium; playwright-core downloads no browser of its own. */
export const CHROMIUM_PATH = '/usr/bin/chromium'

/** Why Chromium cannot be used here, or undefined when it can. */
export function chromiumMissing(): string | undefined {
  try {
    accessSync(CHROMIUM_PATH, constants.X_OK)
    return undefined
  } catch {
    return `no executable at ${CHROMIUM_PATH}`
  }
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    ...chromiumLaunchOptions(),
  })
}

/** A binding call as the CDP host would receive it. */
export interface BindingCall {
  readonly payload: string
  readonly executionContextId: number
}

export interface ProtectedPage {
  readonly page: Page
  readonly cdp: CDPSession
  /** The protected world's execution context in the main frame. */
  readonly protectedContextId: number
  /** Binding calls from the main frame's protected world, in order: what a
   *  host would accept as decisions (after parsing). */
  readonly decisions: readonly BindingCall[]
  /** Binding calls from any other context; a host must refuse them. */
  readonly foreignCalls: readonly BindingCall[]
  /** Delivers a view the way the CDP host does: `Runtime.evaluate` of the
   *  receive function inside the protected world. */
  show(view: unknown): Promise<void>
  /** Evaluates an expression inside the protected world (not the page's). */
  evaluateProtected(expression: string): Promise<unknown>
  /**
   * Resolves once every binding call that input already handled by the
   * page could have made has arrived: a round trip on the session the calls
   * arrive on. The preload decides synchronously in its event handlers, and
   * one session delivers in order, so a call made before this request
   * comes before its answer. What a test checks after it is final, with no
   * wait for "long enough".
   */
  flush(): Promise<void>
  close(): Promise<void>
}

/**
 * Opens `url` in a fresh browser context (its own session, like a consent
 * window) with the protected preload injected the way the CDP host does it:
 * a binding visible only in the named isolated world, and the preload
 * evaluated in that world at every new document.
 */
export async function openProtectedPage(
  browser: Browser,
  options: { url: string; preloadSource: string; viewport?: { width: number; height: number } },
): Promise<ProtectedPage> {
  const context = await browser.newContext({
    viewport: options.viewport ?? { width: 760, height: 640 },
  })
  const page = await context.newPage()
  const cdp = await context.newCDPSession(page)
  const worlds = new Map<string, number>()
  const calls: Array<BindingCall> = []

  cdp.on('Runtime.executionContextCreated', ({ context: created }) => {
    const frameId = (created.auxData as { frameId?: string } | undefined)?.frameId
    if (created.name === CDP_PROTECTED_WORLD && frameId) worlds.set(frameId, created.id)
  })
  cdp.on('Runtime.bindingCalled', (event) => {
    if (event.name === CDP_PROTECTED_BINDING) {
      calls.push({ payload: event.payload, executionContextId: event.executionContextId })
    }
  })
  await cdp.send('Runtime.enable')
  await cdp.send('Page.enable')
  await cdp.send('Runtime.addBinding', {
    name: CDP_PROTECTED_BINDING,
    executionContextName: CDP_PROTECTED_WORLD,
  })
  await cdp.send('Page.addScriptToEvaluateOnNewDocument', {
    source: options.preloadSource,
    worldName: CDP_PROTECTED_WORLD,
  })
  await page.goto(options.url)

  const { frameTree } = await cdp.send('Page.getFrameTree')
  // The world's creation event comes on this session, the load on
  // Playwright's own: wait for the event itself.
  const protectedContextId = await waitFor(
    () => worlds.get(frameTree.frame.id),
    `the ${CDP_PROTECTED_WORLD} world in the main frame`,
  )

  const evaluateProtected = async (expression: string) => {
    const result = await cdp.send('Runtime.evaluate', {
      expression,
      contextId: protectedContextId,
      returnByValue: true,
    })
    if (result.exceptionDetails) {
      throw new Error(`protected world threw: ${result.exceptionDetails.text}`)
    }
    return result.result.value as unknown
  }

  return {
    page,
    cdp,
    protectedContextId,
    get decisions() {
      return calls.filter((call) => call.executionContextId === protectedContextId)
    },
    get foreignCalls() {
      return calls.filter((call) => call.executionContextId !== protectedContextId)
    },
    show: async (view) => {
      const json = JSON.stringify(JSON.stringify(view))
      await evaluateProtected(`globalThis.${CDP_PROTECTED_RECEIVE}(${json})`)
    },
    evaluateProtected,
    flush: async () => {
      await evaluateProtected('0')
    },
    close: () => context.close(),
  }
}
