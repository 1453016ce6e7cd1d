import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  chromium,
  type Browser,
  type BrowserContext,
  type BrowserContextOptions,
  type Page,
} from 'playwright-core'
import { chromiumLaunchOptions } from './chromium.ts'

/** Where a prepared window waits: far outside any screen, so it covers
 *  nothing and cannot be clicked, until a prompt claims it. */
const OFF_SCREEN = { left: -20_000, top: -20_000 } as const
/** Where a claimed window appears, from the screen's top left. */
const ON_SCREEN_MARGIN_PX = 80

/** One window of the CDP host: its own session (browser context) with one
 *  page, and how to bring it into view. */
export interface CdpWindow {
  readonly context: BrowserContext
  readonly page: Page
  /** Brings a window prepared out of sight into view, in front. */
  reveal(): Promise<void>
  close(): Promise<void>
}

export interface CdpWindowOptions {
  size: { width: number; height: number }
  /** Prepared out of sight (a spare protected window). */
  hidden: boolean
  contextOptions: BrowserContextOptions
}

/**
 * Opens the CDP host's windows. Headless (tests, the smoke scenario): each
 * window is a browser context in one shared Chromium. Headed (`npm run
 * dev:cdp` on a desktop): each window is its own Chromium in app mode
 * (`--app`), so it looks like an app window, with no address bar, tabs or
 * reload button, and its own throwaway profile is its isolated session.
 */
export interface CdpWindowLauncher {
  open(options: CdpWindowOptions): Promise<CdpWindow>
}

export class SharedBrowserLauncher implements CdpWindowLauncher {
  private readonly browser: Promise<Browser>
  /** Takes the browser while it may still be launching: the host starts
   *  the runtime meanwhile, and a window asked for before the launch ends
   *  waits for it. */
  constructor(browser: Browser | Promise<Browser>) {
    this.browser = Promise.resolve(browser)
  }

  async open(options: CdpWindowOptions): Promise<CdpWindow> {
    const browser = await this.browser
    const context = await browser.newContext({
      ...options.contextOptions,
      viewport: options.size,
    })
    try {
      const page = await context.newPage()
      return {
        context,
        page,
        reveal: () => page.bringToFront(),
        close: () => context.close(),
      }
    } catch (error) {
      await context.close().catch(() => undefined)
      throw error
    }
  }
}

export class AppWindowLauncher implements CdpWindowLauncher {
  private readonly executablePath: string
  constructor(executablePath: string) {
    this.executablePath = executablePath
  }

  async open(options: CdpWindowOptions): Promise<CdpWindow> {
    const profile = await mkdtemp(join(tmpdir(), 'assent-window-'))
    const { width, height } = options.size
    const position = options.hidden
      ? OFF_SCREEN
      : { left: ON_SCREEN_MARGIN_PX, top: ON_SCREEN_MARGIN_PX }
    let context: BrowserContext | undefined
    try {
      const launch = chromiumLaunchOptions()
      context = await chromium.launchPersistentContext(profile, {
        ...options.contextOptions,
        executablePath: this.executablePath,
        headless: false,
        chromiumSandbox: launch.chromiumSandbox,
        // The page takes the window's size, as an app window's does.
        viewport: null,
        args: [
          ...launch.args,
          '--app=data:text/html,',
          `--window-size=${width},${height}`,
          `--window-position=${position.left},${position.top}`,
        ],
      })
      const page = context.pages()[0] ?? (await context.waitForEvent('page'))
      const owned = context
      return {
        context: owned,
        page,
        reveal: async () => {
          const session = await owned.newCDPSession(page)
          try {
            const { windowId } = await session.send('Browser.getWindowForTarget')
            await session.send('Browser.setWindowBounds', {
              windowId,
              bounds: {
                left: ON_SCREEN_MARGIN_PX,
                top: ON_SCREEN_MARGIN_PX,
                windowState: 'normal',
              },
            })
          } finally {
            await session.detach().catch(() => undefined)
          }
          await page.bringToFront()
        },
        close: async () => {
          await owned.close().catch(() => undefined)
          await rm(profile, { recursive: true, force: true })
        },
      }
    } catch (error) {
      await context?.close().catch(() => undefined)
      await rm(profile, { recursive: true, force: true })
      throw error
    }
  }
}
