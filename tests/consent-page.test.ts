import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  CONSENT_BUTTON_IDS,
  type ConsentAnswer,
  type ConsentView,
} from '../src/common/consent-view.ts'
import { translate } from '../src/common/i18n/index.ts'
import { CONSENT_PAGE_IDS } from '../src/preload-protected/consent-page-ids.ts'
import {
  chromiumMissing,
  launchChromium,
  openProtectedPage,
  type ProtectedPage,
} from './support/cdp-protected-page.ts'
import { requireOrSkip } from './support/require-or-skip.ts'
import { WAIT_TIMEOUT_MS, scaledMs } from '../scripts/test-timing.ts'
import { serveDirectory, type StaticServer } from './support/static-server.ts'

// The built consent page and CDP preload (out/, made by the global setup
// tests/support/build-once.ts), in real Chromium, injected the way the CDP
// host injects them. Expressions passed to page.evaluate run in the page's
// main world: the world a hostile page script would have.

const OUT = resolve(import.meta.dirname, '../out')
const CONSENT_CSP =
  "default-src 'none'; style-src 'self'; img-src 'self'; script-src 'none'; base-uri 'none'; form-action 'none'"
/** Enable delays of up to 4 s plus a loaded machine: poll longer than the default 1 s. */
const POLL = { timeout: WAIT_TIMEOUT_MS, interval: 50 }

const chromiumReady = requireOrSkip(
  'Chromium',
  chromiumMissing(),
  'install it with `apt-get install chromium` (Debian)',
)

const approvalView = (overrides: Partial<ConsentView> = {}): ConsentView =>
  ({
    subject: 'approval',
    promptId: 'approval-prompt-1',
    kind: 'run-command',
    toolName: 'run_command',
    argumentsText: JSON.stringify({ command: 'npm test', cwd: '/home/ada/project' }, null, 2),
    summary: 'Run the project test suite',
    workingDirectory: '/home/ada/project',
    sandboxMode: 'workspace-write',
    roomLabel: 'Design review',
    digestPrefix: '0123456789ab',
    lang: 'en',
    theme: 'light',
    enableDelayMs: 600,
    ...overrides,
  }) as ConsentView

const buttonSelector = (answer: ConsentAnswer) => `#${CONSENT_BUTTON_IDS[answer]}`

describe.skipIf(!chromiumReady)('protected consent page in Chromium (CDP host injection)', () => {
  let browser: Browser
  let server: StaticServer
  let preloadSource: string
  let consentUrl: string
  let screenshots: string
  const open: ProtectedPage[] = []

  const openConsent = async (viewport?: { width: number; height: number }) => {
    const protectedPage = await openProtectedPage(browser, {
      url: consentUrl,
      preloadSource,
      ...(viewport ? { viewport } : {}),
    })
    open.push(protectedPage)
    return protectedPage
  }

  /** Waits until the preload has enabled the buttons, as the page sees them.
   *  (Polls with page.evaluate: waitForFunction evals a string, which the
   *  page's CSP forbids.) */
  const waitForEnabled = (consent: ProtectedPage, answer: ConsentAnswer) =>
    expect
      .poll(
        () =>
          consent.page.evaluate(
            `document.getElementById('${CONSENT_BUTTON_IDS[answer]}').disabled`,
          ),
        POLL,
      )
      .toBe(false)

  const parsedDecisions = (consent: ProtectedPage) =>
    consent.decisions.map((call) => JSON.parse(call.payload) as unknown)

  beforeAll(async () => {
    preloadSource = readFileSync(join(OUT, 'cdp/preload-protected.js'), 'utf8')
    server = await serveDirectory(join(OUT, 'renderer'))
    consentUrl = `${server.origin}/consent/index.html`
    browser = await launchChromium()
    screenshots = mkdtempSync(join(tmpdir(), 'assent-consent-shots-'))
    console.log(`consent page screenshots: ${screenshots}`)
  })

  afterAll(async () => {
    for (const consent of open) await consent.close().catch(() => undefined)
    await browser?.close()
    await server?.close()
  })

  it('is a page without scripts under the exact consent CSP', async () => {
    const html = readFileSync(join(OUT, 'renderer/consent/index.html'), 'utf8')
    expect(html).not.toMatch(/<script/i)
    const consent = await openConsent()
    const csp = await consent.page.evaluate(
      `document.querySelector('meta[http-equiv="Content-Security-Policy"]').content`,
    )
    expect(csp).toBe(CONSENT_CSP)
    const stylesheet = await consent.page.evaluate(`getComputedStyle(document.body).display`)
    expect(stylesheet).toBe('flex')
  })

  it('exposes no binding, receive function or bridge to the main world', async () => {
    const consent = await openConsent()
    const inMainWorld = await consent.page.evaluate(
      `[typeof window.assentProtectedSend, typeof window.__assentProtectedReceive, typeof window.assentGui]`,
    )
    expect(inMainWorld).toEqual(['undefined', 'undefined', 'undefined'])
    // The same names exist in the protected world, so the check above is real.
    const inProtectedWorld = await consent.evaluateProtected(
      `[typeof globalThis.assentProtectedSend, typeof globalThis.__assentProtectedReceive]`,
    )
    expect(inProtectedWorld).toEqual(['function', 'function'])
  })

  it('sends nothing for a scripted click() in the main world on an enabled button', async () => {
    const consent = await openConsent()
    await consent.show(approvalView())
    await waitForEnabled(consent, 'allow-once')

    await consent.page.evaluate(
      `document.getElementById('${CONSENT_BUTTON_IDS['allow-once']}').click()`,
    )
    await consent.flush()
    expect(consent.decisions).toEqual([])
    expect(consent.foreignCalls).toEqual([])
  })

  it('counts a trusted click only after the enable delay, and only once', async () => {
    const consent = await openConsent()
    const { page } = consent
    // Long enough that the clicks below surely land inside it, even on a
    // loaded machine; checked, so a slow run fails loudly instead of lying.
    await consent.show(approvalView({ enableDelayMs: scaledMs(8_000) }))
    const allowOnce = await page.locator(buttonSelector('allow-once')).boundingBox()
    const deny = await page.locator(buttonSelector('deny')).boundingBox()
    if (!allowOnce || !deny) throw new Error('the approval buttons are not laid out')
    const centre = (box: { x: number; y: number; width: number; height: number }) =>
      [box.x + box.width / 2, box.y + box.height / 2] as const

    // Before the delay: a real mouse click on the disabled button, then on the
    // same button after the page's main world removed `disabled`.
    await page.mouse.click(...centre(allowOnce))
    await page.evaluate(
      `document.getElementById('${CONSENT_BUTTON_IDS['allow-once']}').disabled = false`,
    )
    await page.mouse.click(...centre(allowOnce))
    // The page has not enabled its buttons yet, so both clicks came early.
    expect(
      await page.locator(buttonSelector('allow-always')).isDisabled(),
      'the clicks landed inside the enable delay (raise ASSENT_TIME_SCALE if not)',
    ).toBe(true)
    await consent.flush()
    expect(consent.decisions).toEqual([])

    await waitForEnabled(consent, 'allow-always')
    await page.click(buttonSelector('allow-once'))
    await expect.poll(() => consent.decisions.length, POLL).toBe(1)
    expect(parsedDecisions(consent)).toEqual([
      { promptId: 'approval-prompt-1', answer: 'allow-once' },
    ])

    await page.mouse.click(...centre(deny))
    await page.keyboard.press('Escape')
    await consent.flush()
    expect(consent.decisions).toHaveLength(1)
    expect(consent.foreignCalls).toEqual([])
  })

  it('never approves with Enter on a focused Allow button; Escape cancels', async () => {
    const consent = await openConsent()
    const { page } = consent
    await consent.show(approvalView())
    await waitForEnabled(consent, 'allow-once')
    expect(await page.evaluate(`document.activeElement && document.activeElement.id`)).toBe(
      CONSENT_BUTTON_IDS.deny,
    )

    await page.focus(buttonSelector('allow-once'))
    await page.keyboard.press('Enter')
    await page.keyboard.press('Space')
    await consent.flush()
    expect(consent.decisions).toEqual([])

    await page.keyboard.press('Escape')
    await expect.poll(() => consent.decisions.length, POLL).toBe(1)
    expect(parsedDecisions(consent)).toEqual([{ promptId: 'approval-prompt-1', answer: 'cancel' }])
  })

  it('renders markup in the action as text: no img or script element is created', async () => {
    const consent = await openConsent()
    const hostile =
      `<img src=x onerror="document.title='pwned'">` + `<script>document.title='pwned'</script>`
    await consent.show(approvalView({ argumentsText: hostile, summary: hostile }))
    await waitForEnabled(consent, 'deny')

    const rendered = (await consent.page.evaluate(`({
      args: document.getElementById('${CONSENT_PAGE_IDS.arguments}').textContent,
      summary: document.getElementById('${CONSENT_PAGE_IDS.summary}').textContent,
      elements: document.querySelectorAll('img, script').length,
      title: document.title,
    })`)) as { args: string; summary: string; elements: number; title: string }
    expect(rendered).toEqual({
      args: hostile,
      summary: hostile,
      elements: 0,
      title: translate('en', 'consent.pageTitle'),
    })
  })

  const longArguments = JSON.stringify(
    {
      command: `node scripts/${'very-long-path-segment-'.repeat(30)}migrate.js`,
      token: 'x'.repeat(600),
      files: Array.from({ length: 60 }, (_, index) => `/home/ada/project/src/module-${index}.ts`),
    },
    null,
    2,
  )

  for (const width of [760, 480]) {
    it(`fits a ${width} px wide window: no horizontal scroll, buttons in view, arguments whole`, async () => {
      const consent = await openConsent({ width, height: 640 })
      await consent.show(
        approvalView({
          argumentsText: longArguments,
          workingDirectory: `/home/ada/${'deeply-nested-directory/'.repeat(12)}project`,
        }),
      )
      await waitForEnabled(consent, 'deny')

      const layout = (await consent.page.evaluate(`(() => {
        const root = document.documentElement
        const args = document.getElementById('${CONSENT_PAGE_IDS.arguments}')
        const buttons = [...document.querySelectorAll('button')]
          .filter((button) => !button.hidden)
          .map((button) => button.getBoundingClientRect())
        return {
          scrollWidth: root.scrollWidth,
          clientWidth: root.clientWidth,
          buttonsInView: buttons.length === 3 && buttons.every((rect) =>
            rect.left >= 0 && rect.right <= innerWidth && rect.top >= 0 && rect.bottom <= innerHeight),
          argsScrollInsideBox: args.scrollHeight > args.clientHeight && args.scrollWidth <= args.clientWidth,
          argsText: args.textContent,
        }
      })()`)) as {
        scrollWidth: number
        clientWidth: number
        buttonsInView: boolean
        argsScrollInsideBox: boolean
        argsText: string
      }
      expect(layout.scrollWidth).toBeLessThanOrEqual(layout.clientWidth)
      expect(layout.buttonsInView).toBe(true)
      expect(layout.argsScrollInsideBox).toBe(true)
      expect(layout.argsText).toBe(longArguments)
      await consent.page.screenshot({
        path: join(screenshots, `protected-approval-${width}.png`),
      })
    })
  }

  it('fits a mode change at 480 px, with Cancel focused', async () => {
    const consent = await openConsent({ width: 480, height: 640 })
    await consent.show({
      subject: 'mode-change',
      promptId: 'mode-prompt-1',
      roomLabel: 'Design review',
      fromMode: 'ask-for-approval',
      toMode: 'full-access',
      lang: 'en',
      theme: 'light',
      enableDelayMs: 600,
    } satisfies ConsentView)
    await waitForEnabled(consent, 'confirm')

    const layout = (await consent.page.evaluate(`({
      fits: document.documentElement.scrollWidth <= document.documentElement.clientWidth,
      focused: document.activeElement && document.activeElement.id,
      to: document.getElementById('${CONSENT_PAGE_IDS.modeTo}').textContent,
    })`)) as { fits: boolean; focused: string; to: string }
    expect(layout).toEqual({ fits: true, focused: CONSENT_BUTTON_IDS.cancel, to: 'Full access' })
    await consent.page.screenshot({ path: join(screenshots, 'protected-mode-change-480.png') })
  })

  it('renders Chinese on a dark theme', async () => {
    const consent = await openConsent()
    await consent.show(approvalView({ lang: 'zh-CN', theme: 'dark' }))
    await waitForEnabled(consent, 'deny')

    const rendered = (await consent.page.evaluate(`({
      lang: document.documentElement.lang,
      theme: document.documentElement.dataset.theme,
      heading: document.getElementById('${CONSENT_PAGE_IDS.kind}').textContent,
      deny: document.getElementById('${CONSENT_BUTTON_IDS.deny}').textContent,
      background: getComputedStyle(document.body).backgroundColor,
    })`)) as { lang: string; theme: string; heading: string; deny: string; background: string }
    expect(rendered).toMatchObject({
      lang: 'zh-CN',
      theme: 'dark',
      heading: translate('zh-CN', 'consent.kind.run-command'),
      deny: translate('zh-CN', 'consent.button.deny'),
    })
    const [red, green, blue] = (rendered.background.match(/\d+/g) ?? []).map(Number)
    const luminance =
      (0.2126 * (red ?? 255) + 0.7152 * (green ?? 255) + 0.0722 * (blue ?? 255)) / 255
    expect(luminance).toBeLessThan(0.2)
    await consent.page.screenshot({ path: join(screenshots, 'protected-approval-zh-dark.png') })
  })
})
