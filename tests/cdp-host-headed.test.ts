import { chromium, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chromiumArgs, findChromium } from '../src/main/cdp/chromium.ts'
import { SPARE_PREPARE_DELAY_MS } from '../src/main/core/spare-window.ts'
import { buttonsEnabled, startHostHarness, type HostHarness } from './support/cdp-host-harness.ts'
import { eventually } from './support/runtime-harness.ts'
import { requireOrSkip } from './support/require-or-skip.ts'
import { TEST_TIMEOUT_MS } from '../scripts/test-timing.ts'
import { startVirtualDisplay, xvfbMissing, type VirtualDisplay } from './support/xvfb.ts'

// `npm run dev:cdp` on a desktop, on a virtual X display: every window is
// an app window, a prepared protected window waits out of sight, and the
// next one is not prepared while the person decides in the live one.

const chromiumPath = findChromium()
const ready = requireOrSkip(
  'A virtual X display with Chromium',
  chromiumPath ? xvfbMissing() : 'no system Chromium',
  'install them with `apt-get install xvfb chromium` (Debian)',
)

let display: VirtualDisplay
let h: HostHarness
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

describe.skipIf(!ready)(
  'the CDP host on a desktop (headed, Xvfb)',
  { timeout: TEST_TIMEOUT_MS },
  () => {
    beforeAll(async () => {
      display = await startVirtualDisplay()
      process.env.DISPLAY = display.display
      h = await startHostHarness({ headless: false })
    }, 90_000)

    afterAll(async () => {
      await h?.close()
      display?.stop()
      if (savedDisplay === undefined) delete process.env.DISPLAY
      else process.env.DISPLAY = savedDisplay
    })

    it('opens the workbench and protected windows as app windows, without browser chrome', async () => {
      const browser = await chromium.launch({
        executablePath: chromiumPath,
        headless: false,
        args: chromiumArgs(),
      })
      try {
        const tabbed = await (await browser.newContext({ viewport: null })).newPage()
        expect(await chromeHeight(h.page)).toBeLessThan(await chromeHeight(tabbed))
      } finally {
        await browser.close()
      }
    })

    it('keeps the spare out of sight, shows it when it serves a prompt, and prepares no other meanwhile', async () => {
      await h.host.windows.spareReady()
      const waiting = await h.host.windows.spareWindow()
      if (!waiting) throw new Error('no spare window before the first prompt')
      const before = await windowBounds(waiting.page)
      expect((before.left ?? 0) + (before.width ?? 0)).toBeLessThan(0)

      const roomId = await h.createRoom()
      const approvalId = await h.pendingApproval(roomId, 'write a.txt x')
      const review = h.gui('reviewApproval', approvalId)
      const consent = await h.nextWindow()
      expect(consent).toBe(waiting)
      await buttonsEnabled(consent)
      const shown = await windowBounds(consent.page)
      expect(shown.left).toBeGreaterThanOrEqual(0)
      expect(shown.top).toBeGreaterThanOrEqual(0)

      // Long past the pause after which a spare would be prepared: none is,
      // while the person decides.
      await new Promise((resolve) => setTimeout(resolve, SPARE_PREPARE_DELAY_MS * 3))
      expect(h.host.windows.holdsSpare).toBe(false)

      await consent.page.click('#assent-deny')
      await review
      await eventually(() => h.host.windows.holdsSpare || undefined, 'the next spare')
      await h.host.windows.spareReady()
      const next = await h.host.windows.spareWindow()
      if (!next) throw new Error('no spare window after the prompt closed')
      const hidden = await windowBounds(next.page)
      expect((hidden.left ?? 0) + (hidden.width ?? 0)).toBeLessThan(0)
    })
  },
)
