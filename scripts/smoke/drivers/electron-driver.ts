import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { _electron, type ElectronApplication, type Page } from 'playwright-core'
import { RuntimeClient } from '../../../src/main/core/runtime-client.ts'
import type { SmokePort } from '../../../src/main/electron/smoke-port.ts'
import { PROJECT_ROOT } from '../../../src/main/cdp/built-assets.ts'
import { processTree } from '../process-cleanup.ts'
import { throwawayEnvironment } from '../throwaway-env.ts'
import { waitFor } from '../wait.ts'
import type { SmokeConsentWindow, SmokeDriver } from './smoke-driver.ts'
import type { DriverDirs } from './cdp-driver.ts'
import {
  promptWindowAt,
  visibleConsentWindows,
  workbenchWindow,
  type OpenedRecord,
  type WindowFacts,
} from './electron-windows.ts'

/** The module preloaded into Electron's main process that receives main's
 *  smoke port and keeps it at `globalThis.__assentSmoke`. */
export const SMOKE_ATTACH_MODULE = fileURLToPath(
  new URL('./electron-smoke-attach.cjs', import.meta.url),
)

/**
 * Electron's arguments for a smoke run (Playwright adds its own debugging
 * switches in front). `-r` is honoured only by Electron's default app, which
 * an unpackaged binary runs when given a path; and the path is the project
 * root, not out/main/index.js, so the default app reads package.json's
 * `main` and sets `app.getAppPath()` to the root, where main finds out/
 * (a file path would make out/main the app path: default_app/main.ts).
 */
export function electronSmokeArgs(projectRoot: string): string[] {
  return ['-r', SMOKE_ATTACH_MODULE, projectRoot]
}

interface MainFacts {
  opened: OpenedRecord[]
  workbenchId: number | undefined
  windows: WindowFacts[]
}

/**
 * The scenario on the Electron host, driven by Playwright's Electron
 * support against the unfused development build (`npm run build` output).
 * Main runs in the Electron process, so everything the cases need from main
 * (the runtime connection for the forged-token checks, which window a prompt
 * was shown in, which window is the workbench, the runtime's pid and port)
 * comes through main's smoke port (src/main/electron/smoke-port.ts): a
 * development build offers it to the attach module this driver preloads
 * with `-r`, which keeps it at `globalThis.__assentSmoke`; a release build
 * has no port at all.
 *
 * Not run on machines without an Electron binary (these CI machines): the
 * window selection is unit-tested (electron-windows.test.ts); see "On the
 * Electron host" in docs/qa.md for what that leaves untested.
 */
export class ElectronSmokeDriver implements SmokeDriver {
  readonly host = 'electron' as const
  readonly versions: SmokeDriver['versions']
  readonly workspace: string
  readonly outsideDir: string
  private readonly app: ElectronApplication
  private seen = 0
  private closed = false
  private readonly pids = new Set<number>()
  private readonly ports = new Set<number>()

  private constructor(app: ElectronApplication, dirs: DriverDirs, electronVersion: string) {
    this.app = app
    this.workspace = dirs.workspace
    this.outsideDir = dirs.outsideDir
    const pkg = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as {
      version: string
    }
    this.versions = { electron: electronVersion, node: process.version, app: pkg.version }
  }

  static async start(
    dirs: DriverDirs & { home: string },
    executablePath: string,
  ): Promise<ElectronSmokeDriver> {
    const app = await _electron.launch({
      executablePath,
      args: electronSmokeArgs(PROJECT_ROOT),
      env: {
        ...process.env,
        ...throwawayEnvironment(dirs.home),
        ASSENT_DATA_DIR: dirs.dataDir,
        ASSENT_SCOPED_ROOTS: dirs.workspace,
      },
    })
    // Main offers the port once its services exist, after `ready`.
    await waitFor(
      () => app.evaluate(() => ('__assentSmoke' in globalThis ? true : undefined)),
      "main's smoke port (a development build, with the attach module preloaded)",
      60_000,
    )
    const version = await app.evaluate(({ app: electronApp }) => electronApp.getVersion())
    const driver = new ElectronSmokeDriver(app, dirs, version)
    await driver.remember()
    return driver
  }

  /** Calls a method of main's smoke port. */
  private hook<R>(name: keyof SmokePort, ...args: unknown[]): Promise<R> {
    return this.app.evaluate(
      async (_electron, [method, list]) => {
        const hooks = (
          globalThis as { __assentSmoke?: Record<string, (...a: unknown[]) => unknown> }
        ).__assentSmoke
        if (!hooks) throw new Error('main offered no smoke port (not a development build?)')
        return hooks[method as string]!(...(list as unknown[]))
      },
      [name, args] as const,
    ) as Promise<R>
  }

  /** The windows, the prompts' record and the workbench's id, in one look. */
  private facts(): Promise<MainFacts> {
    return this.app.evaluate(({ BrowserWindow }) => {
      const hooks = (globalThis as { __assentSmoke?: SmokePort }).__assentSmoke
      if (!hooks) throw new Error('main offered no smoke port (not a development build?)')
      return {
        opened: hooks.consentWindows(),
        workbenchId: hooks.workbenchWindowId(),
        windows: BrowserWindow.getAllWindows().map((window) => ({
          windowId: window.id,
          visible: window.isVisible(),
          url: window.webContents.getURL(),
        })),
      }
    })
  }

  /** The Playwright page of a BrowserWindow. */
  private async pageOf(windowId: number, timeoutMs = 15_000): Promise<Page> {
    return waitFor(
      async () => {
        for (const page of this.app.windows()) {
          if (page.isClosed()) continue
          const handle = await this.app.browserWindow(page).catch(() => undefined)
          const id = await handle?.evaluate((window) => window.id).catch(() => undefined)
          if (id === windowId) return page
        }
        return undefined
      },
      `the page of window ${windowId}`,
      timeoutMs,
    )
  }

  private consentWindow(page: Page, windowId: number): SmokeConsentWindow {
    return {
      page,
      isOpen: () => !page.isClosed(),
      close: async () => {
        await this.app.evaluate(
          ({ BrowserWindow }, id) => BrowserWindow.fromId(id)?.close(),
          windowId,
        )
      },
    }
  }

  async workbench(): Promise<Page> {
    const facts = await waitFor(async () => {
      const now = await this.facts()
      return workbenchWindow(now.workbenchId, now.opened, now.windows) ? now : undefined
    }, 'the workbench window')
    return this.pageOf(facts.workbenchId!)
  }

  async nextConsentWindow(timeoutMs = 15_000): Promise<SmokeConsentWindow> {
    const index = this.seen
    const found = await waitFor(
      async () => {
        const now = await this.facts()
        const window = promptWindowAt(now.opened, index, now.windows)
        return window.state === 'shown' || window.state === 'closed' ? window : undefined
      },
      'a protected window shown for the next prompt',
      timeoutMs,
    )
    this.seen += 1
    if (found.state === 'closed') throw new Error(`the window for ${found.record.promptId} closed`)
    const page = await this.pageOf(found.record.windowId, timeoutMs)
    await page.waitForLoadState('domcontentloaded')
    return this.consentWindow(page, found.record.windowId)
  }

  async openConsentWindows(): Promise<SmokeConsentWindow[]> {
    const now = await this.facts()
    const visible = visibleConsentWindows(now.opened, now.windows)
    return Promise.all(
      visible.map(async (window) =>
        this.consentWindow(await this.pageOf(window.windowId), window.windowId),
      ),
    )
  }

  async consentWindowsOpened(): Promise<number> {
    return (await this.facts()).opened.length
  }

  /** Main holds the runtime connection; the development build hands it to
   *  the scenario through its smoke port, so the scenario can play main's
   *  part in the forged-token checks. */
  async runtime() {
    await this.remember()
    const value = await this.hook<{
      port: number
      instanceId: string
      bearerToken: string
      consentKey: string
    }>('connection')
    const connection = { ...value, consentKey: Buffer.from(value.consentKey, 'base64url') }
    return { client: new RuntimeClient(() => connection), connection }
  }

  async reloadWorkbench(): Promise<Page> {
    const page = await this.workbench()
    await page.reload()
    return page
  }

  async restartRuntime(
    options: { approvalTtlMs?: number; questionPhaseMs?: number } = {},
  ): Promise<void> {
    if (this.closed) throw new Error('the host was closed')
    await this.remember()
    await this.hook('restartRuntime', options.approvalTtlMs, options.questionPhaseMs)
    await this.remember()
  }

  /** Resizes the workbench's content (never a protected window or the spare). */
  async setViewport(size: { width: number; height: number }): Promise<void> {
    const { workbenchId, opened, windows } = await this.facts()
    const target = workbenchWindow(workbenchId, opened, windows)
    if (!target) throw new Error('no workbench window to resize')
    await this.app.evaluate(
      ({ BrowserWindow }, { id, width, height }) =>
        BrowserWindow.fromId(id)?.setContentSize(width, height),
      { id: target.windowId, ...size },
    )
  }

  /** Electron's process tree and the runtime's process and port, as last
   *  seen (main cannot be asked after it quit). */
  owned(): { pids: number[]; ports: number[] } {
    const pid = this.app.process().pid
    if (pid) {
      this.pids.add(pid)
      if (!this.closed) for (const child of processTree(pid)) this.pids.add(child)
    }
    return { pids: [...this.pids], ports: [...this.ports] }
  }

  private async remember(): Promise<void> {
    const { pid, port } = await this.hook<{ pid?: number; port?: number }>('runtime')
    if (pid) this.pids.add(pid)
    if (port) this.ports.add(port)
    this.owned()
  }

  async close(): Promise<void> {
    await this.remember().catch(() => undefined)
    this.closed = true
    await this.app.close()
  }
}
