import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { clickToDecide } from '../scripts/smoke/consent-keys.ts'
import { chromiumMissing, launchChromium } from './support/cdp-protected-page.ts'
import { requireOrSkip } from './support/require-or-skip.ts'

// The smoke's click on a button that ends a protected window, in real
// Chromium: the window answers on the click and closes, as main closes a
// protected window once it has the decision. The release's round trip may
// then find the page gone; only that is forgiven.

const ready = requireOrSkip(
  'Chromium',
  chromiumMissing(),
  'install it with `apt-get install chromium` (Debian)',
)

const PAGE = `<!doctype html><button id="decide" style="margin:40px">Deny</button>
<button id="hidden" hidden>Hidden</button>
<script>
  // The click's handler holds the page after it answers, so the page is
  // closed while the release that made the click is still being dispatched:
  // the race a protected window's close makes, made certain.
  document.getElementById('decide').addEventListener('click', () => {
    window.decided()
    const until = Date.now() + 3000
    while (Date.now() < until) {}
  })
</script>`

describe.runIf(ready)('clickToDecide (real Chromium)', () => {
  let browser: Browser

  beforeAll(async () => {
    browser = await launchChromium()
  })
  afterAll(async () => {
    await browser?.close()
  })

  /** A page whose button, clicked, closes the page from outside it. */
  async function closingPage(): Promise<{ page: Page; clicks: () => number }> {
    const page = await browser.newPage()
    let clicks = 0
    await page.exposeFunction('decided', () => {
      clicks += 1
      // Not awaited: the page goes away while the click's input is still
      // being answered, as a protected window does.
      void page.close().catch(() => undefined)
    })
    await page.setContent(PAGE)
    return { page, clicks: () => clicks }
  }

  it('counts a click whose answer closes the window during its release as done', async () => {
    for (let round = 0; round < 3; round += 1) {
      const { page, clicks } = await closingPage()
      await expect(clickToDecide(page, '#decide')).resolves.toBeUndefined()
      await expect.poll(clicks).toBe(1)
      await expect.poll(() => page.isClosed()).toBe(true)
    }
  })

  it('fails when the window was gone before the press', async () => {
    const { page, clicks } = await closingPage()
    await page.close()
    await expect(clickToDecide(page, '#decide')).rejects.toThrow()
    expect(clicks()).toBe(0)
  })

  it('fails when the button is not on screen, and clicks nothing', async () => {
    const { page, clicks } = await closingPage()
    // How long it looks for the button before giving up; not a measurement.
    page.setDefaultTimeout(2_000)
    await expect(clickToDecide(page, '#hidden')).rejects.toThrow()
    expect(clicks()).toBe(0)
    expect(page.isClosed()).toBe(false)
    await page.close()
  })
})
