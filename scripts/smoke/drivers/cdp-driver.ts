import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { CdpHost } from '../../../src/main/cdp/cdp-host.ts'
import { PROJECT_ROOT } from '../../../src/main/cdp/built-assets.ts'
import { processTree } from '../process-cleanup.ts'
import { RUNTIME_READY_TIMEOUT_MS, WAIT_TIMEOUT_MS } from '../../test-timing.ts'
import { waitFor } from '../wait.ts'
import type { SmokeConsentWindow, SmokeDriver } from './smoke-driver.ts'

export interface DriverDirs {
  dataDir: string
  workspace: string
  outsideDir: string
}

/** The scenario on the CDP host: main's core runs in this process. */
export class CdpSmokeDriver implements SmokeDriver {
  readonly host = 'cdp' as const
  readonly versions: SmokeDriver['versions']
  readonly workspace: string
  readonly outsideDir: string
  private readonly cdp: CdpHost
  private seen = 0
  private readonly pids = new Set<number>()
  private readonly ports = new Set<number>()
  private closed = false

  private constructor(cdp: CdpHost, dirs: DriverDirs) {
    this.cdp = cdp
    this.workspace = dirs.workspace
    this.outsideDir = dirs.outsideDir
    const app = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as {
      version: string
    }
    this.versions = { chromium: cdp.chromiumVersion, node: process.version, app: app.version }
  }

  static async start(
    dirs: DriverDirs & { home: string },
    preferences: () => { lang: 'en' | 'zh-CN'; theme: 'light' | 'dark' },
  ) {
    // Main's core, the runtime and Chromium all take this process's
    // environment: without the throwaway home and the file key store the
    // integrity key would land in the person's keychain. Fail closed.
    if (process.env.HOME !== dirs.home || process.env.ASSENT_SECRET_STORE !== 'file') {
      throw new Error(
        'the CDP host runs in this process: set HOME to the throwaway home and ASSENT_SECRET_STORE=file first',
      )
    }
    const cdp = await CdpHost.start({
      dataDir: dirs.dataDir,
      scopedRoots: [dirs.workspace],
      preferences,
      viewport: { width: 1280, height: 800 },
      runtimeReadyTimeoutMs: RUNTIME_READY_TIMEOUT_MS,
    })
    const driver = new CdpSmokeDriver(cdp, dirs)
    driver.remember()
    return driver
  }

  async workbench(): Promise<Page> {
    this.ensureOpen()
    return (await this.cdp.workbench()).page
  }

  async nextConsentWindow(timeoutMs = WAIT_TIMEOUT_MS): Promise<SmokeConsentWindow> {
    const window = await waitFor(
      () => this.cdp.windows.opened[this.seen],
      'a protected window for the next prompt',
      timeoutMs,
    )
    this.seen += 1
    return consentWindow(window)
  }

  async openConsentWindows(): Promise<SmokeConsentWindow[]> {
    return this.cdp.windows.opened.filter((window) => window.isVisible()).map(consentWindow)
  }

  async consentWindowsOpened(): Promise<number> {
    return this.cdp.windows.opened.length
  }

  async runtime() {
    this.ensureOpen()
    const connection = this.cdp.services.supervisor.current
    if (!connection) throw new Error('the runtime is not running')
    this.remember()
    return { client: this.cdp.services.client, connection }
  }

  async settle(): Promise<void> {
    // A protected window closes its browser context without waiting for it
    // (protected-windows.ts): wait until no context is half closed.
    await waitFor(
      () => (this.cdp.browser.contexts().some((context) => context.isClosed()) ? undefined : true),
      'the closing protected windows to finish closing',
    )
  }

  owned(): { pids: number[]; ports: number[] } {
    this.remember()
    return { pids: [...this.pids], ports: [...this.ports] }
  }

  /** Notes the runtime instance's process and port, and every process
   *  under this one (the runtime, Chromium and its renderers), to check
   *  after close. */
  private remember(): void {
    const connection = this.cdp.services.supervisor.current
    if (connection) this.ports.add(connection.port)
    const pid = this.cdp.services.supervisor.pid
    if (pid) this.pids.add(pid)
    for (const pid of processTree(process.pid)) this.pids.add(pid)
  }

  async reloadWorkbench(): Promise<Page> {
    this.ensureOpen()
    const workbench = await this.cdp.workbench()
    await workbench.reload()
    return workbench.page
  }

  async restartRuntime(
    options: { approvalTtlMs?: number; questionPhaseMs?: number } = {},
  ): Promise<void> {
    this.ensureOpen()
    this.remember()
    await this.cdp.services.restartRuntime(options)
    this.remember()
  }

  async setViewport(size: { width: number; height: number }): Promise<void> {
    await (await this.workbench()).setViewportSize(size)
  }

  async close(): Promise<void> {
    this.remember()
    this.closed = true
    await this.cdp.close()
  }

  /** After close (an interrupted run), a case still running must not start
   *  a browser page or a runtime that nobody would stop. */
  private ensureOpen(): void {
    if (this.closed) throw new Error('the host was closed')
  }
}

function consentWindow(window: { page: Page; isVisible(): boolean }): SmokeConsentWindow {
  return {
    page: window.page,
    isOpen: () => window.isVisible(),
    // Closing the page is what the person's close button does to a tab: the
    // host sees the page go away, not a click.
    close: () => window.page.close(),
  }
}
