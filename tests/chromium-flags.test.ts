import { chromium, type Browser } from 'playwright-core'
import { afterEach, describe, expect, it } from 'vitest'
import {
  chromiumArgs,
  findChromium,
  PLAYWRIGHT_DISABLED_FEATURES,
  UNSEEN_BROWSER_UI_FEATURES,
} from '../src/main/cdp/chromium.ts'
import { chromiumAvailable } from './support/cdp-host-harness.ts'

// The flags the CDP host gives Chromium, read back from a real Chromium:
// its command line (as the browser itself reports it over DevTools) and the
// pages it opened.

// Without Chromium this says why, and fails under ASSENT_REQUIRE_ALL=1.
const run = chromiumAvailable()
let browser: Browser | undefined

afterEach(async () => {
  await browser?.close()
  browser = undefined
})

/** The features a Chromium started with these flags turns off: the last
 *  `--disable-features` on its command line, the only one it reads. */
async function disabledFeatures(args: string[]): Promise<string[]> {
  await browser?.close()
  // Chromium tells its command line over DevTools only to automation.
  browser = await chromium.launch({
    executablePath: findChromium()!,
    args: [...args, '--enable-automation'],
  })
  const cdp = await browser.newBrowserCDPSession()
  const { arguments: commandLine } = await cdp.send('Browser.getBrowserCommandLine')
  const last = commandLine.filter((arg) => arg.startsWith('--disable-features=')).at(-1)
  return last?.slice('--disable-features='.length).split(',') ?? []
}

describe.runIf(run)('the features Chromium runs without (real Chromium)', () => {
  it("keeps every feature Playwright turns off, as the host's own flag replaces Playwright's", async () => {
    const playwrights = await disabledFeatures([])
    expect(playwrights.length).toBeGreaterThan(0)
    expect([...PLAYWRIGHT_DISABLED_FEATURES].sort()).toEqual([...playwrights].sort())
    expect(await disabledFeatures(chromiumArgs())).toEqual(
      expect.arrayContaining([...playwrights, ...UNSEEN_BROWSER_UI_FEATURES]),
    )
  })

  it("builds none of the address bar's WebUI pages for a window", async () => {
    browser = await chromium.launch({ executablePath: findChromium()!, args: chromiumArgs() })
    const context = await browser.newContext()
    await context.newPage()
    const cdp = await browser.newBrowserCDPSession()
    const { targetInfos } = await cdp.send('Target.getTargets')
    expect(targetInfos.map((target) => target.url)).toEqual(['about:blank'])
  })
})
