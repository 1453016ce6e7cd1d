import {
  CDP_WORKBENCH_BINDING,
  CDP_WORKBENCH_WORLD,
  WORKBENCH_RECEIVE,
} from '../../common/cdp-names.ts'
import { readFileSync } from 'node:fs'
import type { BrowserContext, Page } from 'playwright-core'
import type { WorkbenchChannel } from '../../common/assent-gui.ts'
import { WORKBENCH_CHANNELS } from '../../common/ipc-channels.ts'
import { encodeWorkbenchError, workbenchError } from '../../common/workbench-error.ts'
import type { WorkbenchNotifier } from '../core/host-port.ts'
import { WORKBENCH_SITE } from '../core/page-sites.ts'
import { WORKBENCH_ORIGIN, WORKBENCH_URL, routeOnly } from './asset-router.ts'
import type { BuiltAssets } from './built-assets.ts'
import { CdpPageChannel } from './page-channel.ts'
import type { CdpWindow, CdpWindowLauncher } from './window-launcher.ts'

/** The Electron host's workbench policy, sent as a header here too. */
export const WORKBENCH_CSP = WORKBENCH_SITE.contentSecurityPolicy

const CHANNELS: ReadonlySet<string> = new Set(Object.keys(WORKBENCH_CHANNELS))

export type WorkbenchCallHandler = (channel: WorkbenchChannel, args: unknown) => Promise<unknown>

/**
 * The workbench on the CDP host: its own browser context, the workbench
 * page and its preload (the `assentGui` bridge in the main world, the
 * binding to main only in the `assent-workbench` isolated world).
 */
export class CdpWorkbench implements WorkbenchNotifier {
  readonly context: BrowserContext
  readonly channel: CdpPageChannel
  readonly blockedRequests: string[]
  private ready = false
  private readonly queued: unknown[] = []
  private readonly window: CdpWindow

  private constructor(window: CdpWindow, channel: CdpPageChannel, blocked: string[]) {
    this.window = window
    this.context = window.context
    this.channel = channel
    this.blockedRequests = blocked
  }

  get page(): Page {
    return this.channel.page
  }

  static async open(
    launcher: CdpWindowLauncher,
    assets: BuiltAssets,
    handle: WorkbenchCallHandler,
    viewport: { width: number; height: number },
    extra: { locale?: string; colorScheme?: 'light' | 'dark' } = {},
  ): Promise<CdpWorkbench> {
    const opened = await launcher.open({
      size: viewport,
      hidden: false,
      contextOptions: {
        serviceWorkers: 'block',
        acceptDownloads: false,
        ...(extra.locale ? { locale: extra.locale } : {}),
        ...(extra.colorScheme ? { colorScheme: extra.colorScheme } : {}),
      },
    })
    const { context, page } = opened
    const blocked = await routeOnly(context, {
      origin: WORKBENCH_ORIGIN,
      root: assets.rendererRoot,
      pathPrefix: '/',
      csp: WORKBENCH_CSP,
    })
    const channel = await CdpPageChannel.attach(page, {
      worldName: CDP_WORKBENCH_WORLD,
      bindingName: CDP_WORKBENCH_BINDING,
      receiveFunction: WORKBENCH_RECEIVE,
      scripts: [
        {
          source: readFileSync(assets.workbenchIsolatedPreload, 'utf8'),
          world: CDP_WORKBENCH_WORLD,
        },
        { source: readFileSync(assets.workbenchMainWorldPreload, 'utf8') },
      ],
      pageUrl: WORKBENCH_URL,
    })
    const workbench = new CdpWorkbench(opened, channel, blocked)
    channel.onMessage((payload) => void workbench.answer(payload, handle))
    await page.goto(WORKBENCH_URL)
    await channel.waitForPreload()
    workbench.ready = true
    for (const message of workbench.queued.splice(0))
      void channel.deliver(message).catch(() => undefined)
    return workbench
  }

  /** Forwards a runtime event or status to the page's `assentGui.onEvent`. */
  send(event: { type: string; data: unknown }): void {
    const message = { event }
    if (!this.ready) {
      this.queued.push(message)
      return
    }
    void this.channel.deliver(message).catch(() => undefined)
  }

  /** Closes the window (headed, its own browser and profile too). */
  close(): Promise<void> {
    return this.window.close()
  }

  async reload(): Promise<void> {
    this.ready = false
    await this.page.reload()
    await this.channel.waitForPreload()
    this.ready = true
  }

  private async answer(payload: string, handle: WorkbenchCallHandler): Promise<void> {
    let request: { id?: unknown; channel?: unknown; args?: unknown }
    try {
      request = JSON.parse(payload) as typeof request
    } catch {
      return
    }
    if (typeof request.id !== 'number' || typeof request.channel !== 'string') return
    const id = request.id
    if (!CHANNELS.has(request.channel)) {
      await this.reply({
        id,
        ok: false,
        error: encodeWorkbenchError(workbenchError('unknown_channel', 'unknown workbench channel')),
      })
      return
    }
    try {
      const value = await handle(request.channel as WorkbenchChannel, request.args)
      await this.reply({ id, ok: true, value })
    } catch (error) {
      await this.reply({ id, ok: false, error: (error as Error).message })
    }
  }

  private reply(message: { id: number; ok: boolean; value?: unknown; error?: string }) {
    return this.channel.deliver(message).catch(() => undefined)
  }
}
