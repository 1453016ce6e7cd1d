import type { WaitNotifier } from '../core/host-port.ts'
import { DesktopNotifier } from './desktop-notifier.ts'
import { fileURLToPath } from 'node:url'
import { chromium, type Browser } from 'playwright-core'
import type { Language, Theme } from '../../common/consent-view.ts'
import { CONSENT_WINDOW_SIZE } from '../core/consent-controller.ts'
import { DataDirLock } from '../core/data-dir-lock.ts'
import { MainServices } from '../core/main-services.ts'
import { ChildProcessLauncher } from '../core/runtime-launcher.ts'
import { loadDataDirSecrets, type DataDirSecrets } from '../core/secret-store-selection.ts'
import {
  CHROMIUM_MISSING,
  chromiumLaunchOptions,
  chromiumSandboxNote,
  findChromium,
} from './chromium.ts'
import { builtAssets, requireBuilt, type BuiltAssets } from './built-assets.ts'
import { CdpProtectedWindowFactory, FocusTracker } from './protected-windows.ts'
import { CdpWorkbench } from './workbench-page.ts'
import {
  AppWindowLauncher,
  SharedBrowserLauncher,
  type CdpWindowLauncher,
} from './window-launcher.ts'

export const RUNTIME_SOURCE_ENTRY = fileURLToPath(new URL('../../runtime/main.ts', import.meta.url))

export interface CdpHostOptions {
  /** Where notices of what waits for the person go; the desktop's
   *  notification service by default. */
  waitNotifier?: WaitNotifier
  dataDir: string
  /** Tests may hand in the data folder's key and anchor; otherwise they come
   *  from the same SecretStore as the app's (the OS keychain, or the files
   *  with ASSENT_SECRET_STORE=file). */
  secrets?: DataDirSecrets
  headless?: boolean
  preferences?: () => { lang: Language; theme: Theme }
  viewport?: { width: number; height: number }
  locale?: string
  colorScheme?: 'light' | 'dark'
  approvalTtlMs?: number
  scopedRoots?: string[]
  /** mcp.json, when not the one in the data folder. */
  mcpConfigPath?: string
  enableDelayMs?: number
  /** See MainServicesOptions.runtimeReadyTimeoutMs. */
  runtimeReadyTimeoutMs?: number
  assets?: BuiltAssets
  runtimeEntry?: string
}

/**
 * The CDP host: main's core, the built preloads and the built pages, driven
 * in the system Chromium over the DevTools Protocol. Used by `npm run
 * dev:cdp`, the smoke scenario and the browser tests where no Electron
 * binary exists. Reports name it as host `cdp`.
 */
export class CdpHost {
  readonly browser: Browser
  readonly services: MainServices
  readonly windows: CdpProtectedWindowFactory
  readonly focus: FocusTracker
  readonly options: CdpHostOptions
  private readonly assets: BuiltAssets
  private readonly launcher: CdpWindowLauncher
  private workbenchPage: CdpWorkbench | undefined
  private readonly forwarder: { target: CdpWorkbench | undefined }
  private readonly dataDirLock: DataDirLock

  private constructor(
    browser: Browser,
    services: MainServices,
    windows: CdpProtectedWindowFactory,
    focus: FocusTracker,
    options: CdpHostOptions,
    assets: BuiltAssets,
    forwarder: { target: CdpWorkbench | undefined },
    dataDirLock: DataDirLock,
    launcher: CdpWindowLauncher,
  ) {
    this.browser = browser
    this.services = services
    this.windows = windows
    this.focus = focus
    this.options = options
    this.assets = assets
    this.forwarder = forwarder
    this.dataDirLock = dataDirLock
    this.launcher = launcher
  }

  static async start(options: CdpHostOptions): Promise<CdpHost> {
    const executablePath = findChromium()
    if (!executablePath) throw new Error(CHROMIUM_MISSING)
    const assets = requireBuilt(options.assets ?? builtAssets())
    // One Assent per data folder, whichever host runs it: two would run two
    // runtimes on one database and one audit chain.
    const dataDirLock = DataDirLock.acquire(options.dataDir)
    if (!dataDirLock) {
      throw new Error(`${options.dataDir} is in use by another Assent; stop that one first`)
    }
    try {
      return await CdpHost.startHolding(options, executablePath, assets, dataDirLock)
    } catch (error) {
      dataDirLock.release()
      throw error
    }
  }

  private static async startHolding(
    options: CdpHostOptions,
    executablePath: string,
    assets: BuiltAssets,
    dataDirLock: DataDirLock,
  ): Promise<CdpHost> {
    const { integrityKey, rollbackAnchor, keyInDataDirFile } =
      options.secrets ??
      (await loadDataDirSecrets(options.dataDir, {
        warn: (message) => console.warn(`assent cdp host: ${message}`),
      }))
    const headless = options.headless ?? true
    const sandboxNote = chromiumSandboxNote()
    if (sandboxNote !== null) console.warn(sandboxNote)
    // Chromium's launch and the runtime's start do not depend on each
    // other, so they run at once; a protected window can only be asked for
    // once the runtime is up, and its launcher waits for the browser.
    const launching = chromium.launch({ executablePath, headless, ...chromiumLaunchOptions() })
    try {
      const focus = new FocusTracker()
      // Headed, each window is an app window of its own, without browser
      // chrome; headless, contexts of the one browser are cheaper.
      const launcher = headless
        ? new SharedBrowserLauncher(launching)
        : new AppWindowLauncher(executablePath)
      const windows = new CdpProtectedWindowFactory(launcher, assets, focus, {
        headed: !headless,
      })
      const forwarder: { target: CdpWorkbench | undefined } = { target: undefined }
      const services = new MainServices({
        launcher: new ChildProcessLauncher(options.runtimeEntry ?? RUNTIME_SOURCE_ENTRY),
        dataDir: options.dataDir,
        integrityKey,
        rollbackAnchor,
        ...(keyInDataDirFile === undefined ? {} : { keyInDataDirFile }),
        windows,
        notifier: { send: (event) => forwarder.target?.send(event) },
        // What waits for the person reaches the desktop's notification
        // service, where one runs (desktop-notifier.ts).
        approvalNotifier:
          options.waitNotifier ??
          new DesktopNotifier({ warn: (message) => console.warn(`assent cdp host: ${message}`) }),
        preferences: options.preferences ?? (() => ({ lang: 'en', theme: 'light' })),
        ...(options.approvalTtlMs === undefined ? {} : { approvalTtlMs: options.approvalTtlMs }),
        ...(options.scopedRoots === undefined ? {} : { scopedRoots: options.scopedRoots }),
        ...(options.mcpConfigPath === undefined ? {} : { mcpConfigPath: options.mcpConfigPath }),
        ...(options.enableDelayMs === undefined ? {} : { enableDelayMs: options.enableDelayMs }),
        ...(options.runtimeReadyTimeoutMs === undefined
          ? {}
          : { runtimeReadyTimeoutMs: options.runtimeReadyTimeoutMs }),
      })
      windows.onDecision((promptId, answer, window, values) =>
        services.controller.handleDecision(promptId, answer, window, values),
      )
      const [launched, started] = await Promise.allSettled([launching, services.start()])
      if (started.status === 'rejected') throw started.reason
      if (launched.status === 'rejected') {
        await services.stop().catch(() => undefined)
        throw launched.reason
      }
      // Once the workbench is quiet: a spare prepared beside the workbench's
      // window and first view would slow both (SparePool.warmWhenQuiet).
      windows.spareTiming.warmWhenQuiet(CONSENT_WINDOW_SIZE)
      return new CdpHost(
        launched.value,
        services,
        windows,
        focus,
        options,
        assets,
        forwarder,
        dataDirLock,
        launcher,
      )
    } catch (error) {
      // No browser outlives a failed start (a failed launch left none).
      await launching.then((browser) => browser.close()).catch(() => undefined)
      throw error
    }
  }

  /** Opens (or returns) the workbench window and gives it focus. */
  async workbench(): Promise<CdpWorkbench> {
    if (!this.workbenchPage) {
      this.workbenchPage = await this.windows.spareTiming.busyWhile(
        CdpWorkbench.open(
          this.launcher,
          this.assets,
          (channel, args) => {
            this.windows.spareTiming.busy()
            return this.services.handleWorkbenchCall(channel, args)
          },
          this.options.viewport ?? { width: 1280, height: 800 },
          {
            ...(this.options.locale ? { locale: this.options.locale } : {}),
            ...(this.options.colorScheme ? { colorScheme: this.options.colorScheme } : {}),
          },
        ),
      )
      this.forwarder.target = this.workbenchPage
    }
    this.focus.focus(this.workbenchPage)
    return this.workbenchPage
  }

  get chromiumVersion(): string {
    return this.browser.version()
  }

  async close(): Promise<void> {
    this.windows.close()
    await this.services.stop().catch(() => undefined)
    await this.workbenchPage?.close().catch(() => undefined)
    await this.browser.close().catch(() => undefined)
    this.dataDirLock.release()
  }
}
