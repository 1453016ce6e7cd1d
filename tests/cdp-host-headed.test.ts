import { randomBytes } from 'node:crypto'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CdpHost } from '../src/main/cdp/cdp-host.ts'
import { CHROMIUM_ARGS, findChromium } from '../src/main/cdp/chromium.ts'
import type { CdpProtectedWindow } from '../src/main/cdp/protected-windows.ts'
import { SPARE_PREPARE_DELAY_MS } from '../src/main/core/spare-window.ts'
import { buttonsEnabled } from './support/cdp-host-harness.ts'
import { eventually } from './support/runtime-harness.ts'
import { startVirtualDisplay, xvfbMissing, type VirtualDisplay } from './support/xvfb.ts'

// `npm run dev:cdp` on a desktop, on a virtual X display: every window is
// an app window, a prepared consent window waits out of sight, and the
// next one is not prepared while the person decides in the live one.

const chromiumPath = findChromium()
const missing = chromiumPath ? xvfbMissing() : 'no system Chromium'
if (missing) console.warn(`skipping the headed CDP host tests: ${missing}`)

let display: VirtualDisplay
let host: CdpHost
let root: string
const savedDisplay = process.env.DISPLAY

/** Height the browser draws above the page: a tab strip and a toolbar in a
 *  browser window, a title bar at most in an app window. */
const chromeHeight = (page: Page) => page.evaluate(() => window.outerHeight - window.innerHeight)

async function windowBounds(page: Page) {
  const session = await page.context().newCDPSession(page)
  try {
    const { bounds } = await session.send('Browser.getWindowForTarget')
    return bounds
  } finally {
    await session.detach()
  }
}

describe.skipIf(missing !== undefined)(
  'the CDP host on a desktop (headed, Xvfb)',
  { timeout: 90_000 },
  () => {
    beforeAll(async () => {
      display = await startVirtualDisplay()
      process.env.DISPLAY = display.display
      root = await mkdtemp(join(tmpdir(), 'assent-headed-'))
      await mkdir(join(root, 'workspace'))
      host = await CdpHost.start({
        dataDir: join(root, 'data'),
        integrityKey: randomBytes(32),
        headless: false,
      })
    }, 90_000)

    afterAll(async () => {
      await host?.close()
      display?.stop()
      if (savedDisplay === undefined) delete process.env.DISPLAY
      else process.env.DISPLAY = savedDisplay
      if (root) await rm(root, { recursive: true, force: true })
    })

    it('opens the workbench and consent windows as app windows, without browser chrome', async () => {
      const workbench = await host.workbench()
      const browser = await chromium.launch({
        executablePath: chromiumPath,
        headless: false,
        args: [...CHROMIUM_ARGS],
      })
      try {
        const tabbed = await (await browser.newContext({ viewport: null })).newPage()
        expect(await chromeHeight(workbench.page)).toBeLessThan(await chromeHeight(tabbed))
      } finally {
        await browser.close()
      }
    })

    it('keeps the spare out of sight, shows it when it serves a prompt, and prepares no other meanwhile', async () => {
      const { page } = await host.workbench()
      await host.windows.spareReady()
      const gui = <T>(method: string, ...args: unknown[]) =>
        page.evaluate(
          ([name, list]) =>
            (window as unknown as Record<string, Record<string, (...a: unknown[]) => Promise<T>>>)
              .assentGui![name as string]!(...(list as unknown[])),
          [method, args] as const,
        )
      const created = await gui<{ body: { room: { id: string } } }>('createRoom', {
        kind: 'direct',
        agentId: 'assistant',
        workspace: join(root, 'workspace'),
        title: 'Room',
      })
      const roomId = created.body.room.id
      await gui('sendMessage', roomId, { clientRequestId: 'headed-1', text: 'write a.txt x' })
      const approvalId = await eventually(async () => {
        const answer = await gui<{ body: { approvals: Array<{ id: string; status: string }> } }>(
          'approvals',
          roomId,
        )
        return answer.body.approvals.find((approval) => approval.status === 'pending')?.id
      }, 'a pending approval')
      const review = gui('reviewApproval', approvalId)
      const consent: CdpProtectedWindow = await eventually(
        () => host.windows.opened[0],
        'the consent window',
      )
      await buttonsEnabled(consent)
      const shown = await windowBounds(consent.page)
      expect(shown.left).toBeGreaterThanOrEqual(0)
      expect(shown.top).toBeGreaterThanOrEqual(0)
      expect(await chromeHeight(consent.page)).toBeLessThan(80)

      // Long past the pause after which a spare would be prepared: none is,
      // while the person decides.
      await new Promise((resolve) => setTimeout(resolve, SPARE_PREPARE_DELAY_MS * 3))
      expect(host.windows.holdsSpare).toBe(false)

      await consent.page.click('#assent-deny')
      await review
      await eventually(() => host.windows.holdsSpare || undefined, 'the next spare')
      await host.windows.spareReady()
      const spare = host.windows.spareWindow()
      if (!spare) throw new Error('no spare window after the prompt closed')
      const hidden = await windowBounds((await spare).page)
      expect((hidden.left ?? 0) + (hidden.width ?? 0)).toBeLessThan(0)
    })
  },
)
