import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { _electron, type ElectronApplication, type Page } from 'playwright-core'
import { RuntimeClient } from '../../../src/main/core/runtime-client.ts'
import { PROJECT_ROOT } from '../hosts/cdp/built-assets.ts'
import type { SmokeConsentWindow, SmokeDriver } from './smoke-driver.ts'
import type { DriverDirs } from './cdp-driver.ts'

/**
 * The scenario on the Electron host, driven by Playwright's Electron
 * support against the unfused development build (`npm run build` output).
 * Main runs in the Electron process, so the forged-token checks read the
 * runtime connection through `ASSENT_SMOKE_HOOKS=1`, which the development
 * main exposes on `globalThis.__assentSmoke` and a packaged build refuses.
 *
 * Not run on machines without an Electron binary (these CI machines): see
 * the README's QA section for what that leaves untested.
 */
export class ElectronSmokeDriver implements SmokeDriver {
  readonly host = 'electron' as const
  readonly versions: SmokeDriver['versions']
  readonly workspace: string
  readonly outsideDir: string
  private readonly app: ElectronApplication
  private seen = new Set<Page>()

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
      args: [join(PROJECT_ROOT, 'out/main/index.js')],
      env: {
        ...process.env,
        HOME: dirs.home,
        ASSENT_DATA_DIR: dirs.dataDir,
        ASSENT_SCOPED_ROOTS: dirs.workspace,
        ASSENT_SMOKE_HOOKS: '1',
      },
    })
    const version = await app.evaluate(({ app: electronApp }) => electronApp.getVersion())
    return new ElectronSmokeDriver(app, dirs, version)
  }

  async workbench(): Promise<Page> {
    const page = await this.app.firstWindow()
    this.seen.add(page)
    return page
  }

  async nextConsentWindow(timeoutMs = 15_000): Promise<SmokeConsentWindow> {
    const page = await this.app.waitForEvent('window', {
      timeout: timeoutMs,
      predicate: (candidate) => !this.seen.has(candidate),
    })
    this.seen.add(page)
    await page.waitForLoadState('domcontentloaded')
    return { page, isOpen: () => !page.isClosed() }
  }

  openConsentWindows(): SmokeConsentWindow[] {
    return this.app
      .windows()
      .filter((page) => page.url().startsWith('assent-consent:') && !page.isClosed())
      .map((page) => ({ page, isOpen: () => !page.isClosed() }))
  }

  /** Main holds the runtime connection; the development build hands it to
   *  the scenario through the smoke hooks, so the scenario can play main's
   *  part in the forged-token checks. */
  async runtime() {
    const raw = await this.app.evaluate(() => {
      const hooks = (globalThis as { __assentSmoke?: { connection(): unknown } }).__assentSmoke
      if (!hooks) throw new Error('ASSENT_SMOKE_HOOKS is not enabled in this build')
      return hooks.connection()
    })
    const value = raw as {
      port: number
      instanceId: string
      bearerToken: string
      consentKey: string
    }
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
    await this.app.evaluate(
      async (_electron, [ttl, phase]) => {
        const hooks = (
          globalThis as {
            __assentSmoke?: { restartRuntime(ttl?: number, phase?: number): Promise<void> }
          }
        ).__assentSmoke
        if (!hooks) throw new Error('ASSENT_SMOKE_HOOKS is not enabled in this build')
        await hooks.restartRuntime(ttl, phase)
      },
      [options.approvalTtlMs, options.questionPhaseMs] as const,
    )
  }

  async setViewport(size: { width: number; height: number }): Promise<void> {
    await this.app.evaluate(({ BrowserWindow }, { width, height }) => {
      BrowserWindow.getAllWindows()[0]?.setContentSize(width, height)
    }, size)
  }

  owned(): { pids: number[]; ports: number[] } {
    const pid = this.app.process().pid
    return { pids: pid ? [pid] : [], ports: [] }
  }

  async close(): Promise<void> {
    await this.app.close()
  }
}
