import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { TEST_TIMEOUT_MS, scaledMs } from '../scripts/test-timing.ts'
import { CONSENT_BUTTON_IDS, type ConsentView } from '../src/common/consent-view.ts'
import { translate } from '../src/common/i18n/index.ts'
import { CONSENT_PAGE_IDS } from '../src/preload-protected/consent-page-ids.ts'
import {
  POLL,
  approvalView,
  buttonSelector,
  chromiumReady,
  focusedId,
  isDisabled,
  parsedDecisions,
  sleep,
  useConsentBrowser,
  waitForEnabled,
} from './support/consent-page-browser.ts'

const CONSENT_CSP =
  "default-src 'none'; style-src 'self'; img-src 'self'; script-src 'none'; base-uri 'none'; form-action 'none'"

describe.skipIf(!chromiumReady)(
  'protected consent page in Chromium (CDP host injection)',
  { timeout: TEST_TIMEOUT_MS },
  () => {
    const browser = useConsentBrowser()

    it('is a page without scripts under the exact consent CSP', async () => {
      const html = readFileSync(
        resolve(import.meta.dirname, '../out/renderer/consent/index.html'),
        'utf8',
      )
      expect(html).not.toMatch(/<script/i)
      const consent = await browser.open()
      const csp = await consent.page.evaluate(
        `document.querySelector('meta[http-equiv="Content-Security-Policy"]').content`,
      )
      expect(csp).toBe(CONSENT_CSP)
      const stylesheet = await consent.page.evaluate(`getComputedStyle(document.body).display`)
      expect(stylesheet).toBe('flex')
    })

    it('exposes no binding, receive function or bridge to the main world', async () => {
      const consent = await browser.open()
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
      const consent = await browser.open()
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
      const consent = await browser.open()
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
        await isDisabled(consent, 'allow-always'),
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
      const consent = await browser.open()
      const { page } = consent
      await consent.show(approvalView())
      await waitForEnabled(consent, 'allow-once')
      expect(await focusedId(consent)).toBe(CONSENT_BUTTON_IDS.deny)

      await page.keyboard.press('Tab')
      expect(await focusedId(consent)).toBe(CONSENT_BUTTON_IDS['allow-once'])
      await sleep(1_000)
      await page.keyboard.press('Enter')
      await consent.flush()
      expect(consent.decisions).toEqual([])

      await page.keyboard.press('Escape')
      await expect.poll(() => consent.decisions.length, POLL).toBe(1)
      expect(parsedDecisions(consent)).toEqual([
        { promptId: 'approval-prompt-1', answer: 'cancel' },
      ])
    })

    it('renders markup in the action as text: no img or script element is created', async () => {
      const consent = await browser.open()
      const hostile =
        `<img src=x onerror="document.title='pwned'">` + `<script>document.title='pwned'</script>`
      await consent.show(
        approvalView({ action: { type: 'other' }, argumentsText: hostile, roomLabel: hostile }),
      )
      await waitForEnabled(consent, 'deny')

      const rendered = (await consent.page.evaluate(`({
        action: document.getElementById('${CONSENT_PAGE_IDS.actionBody}').textContent,
        room: document.getElementById('${CONSENT_PAGE_IDS.room}').textContent,
        elements: document.querySelectorAll('img, script').length,
        title: document.title,
      })`)) as { action: string; room: string; elements: number; title: string }
      expect(rendered.action).toContain(hostile)
      expect(rendered).toMatchObject({
        room: hostile,
        elements: 0,
        title: 'Allow Assistant to run run_command?',
      })
    })

    it('fits a mode change at 480 px, with Cancel focused and the workspace folder named', async () => {
      const consent = await browser.open({ width: 480, height: 640 })
      await consent.show({
        subject: 'mode-change',
        promptId: 'mode-prompt-1',
        roomLabel: 'Design review',
        workspace: '/home/ada/src/design-review',
        fromMode: 'ask-for-approval',
        toMode: 'full-access',
        lang: 'en',
        theme: 'light',
        enableDelayMs: 600,
      } satisfies ConsentView)
      // The warning and the folder are below the buttons' edge at this size:
      // Confirm waits for them to be scrolled into view.
      await waitForEnabled(consent, 'cancel')

      const layout = (await consent.page.evaluate(`({
        fits: document.documentElement.scrollWidth <= document.documentElement.clientWidth,
        confirmWaits: document.getElementById('${CONSENT_BUTTON_IDS.confirm}').disabled,
        focused: document.activeElement && document.activeElement.id,
        to: document.getElementById('${CONSENT_PAGE_IDS.modeTo}').textContent,
        workspaceShown: !document.getElementById('${CONSENT_PAGE_IDS.modeWorkspaceFact}').hidden,
        workspace: document.getElementById('${CONSENT_PAGE_IDS.modeWorkspace}').textContent,
      })`)) as Record<string, unknown>
      expect(layout).toEqual({
        fits: true,
        confirmWaits: true,
        focused: CONSENT_BUTTON_IDS.cancel,
        to: 'Full access',
        workspaceShown: true,
        workspace: '/home/ada/src/design-review',
      })
      await consent.page.screenshot({
        path: join(browser.screenshots, 'protected-mode-change-480.png'),
      })
    })

    it('fits, in Chinese at 480 px, a narrowing that accepts a replaced folder and seals the room again, and says both', async () => {
      const consent = await browser.open({ width: 480, height: 640 })
      await consent.show({
        subject: 'mode-change',
        promptId: 'mode-prompt-2',
        roomLabel: '设计评审',
        workspace: '/home/ada/src/design-review',
        acceptsReplacedWorkspace: true,
        resealsRoom: true,
        fromMode: 'approve-for-me',
        toMode: 'plan',
        lang: 'zh-CN',
        theme: 'light',
        enableDelayMs: 600,
      } satisfies ConsentView)
      await waitForEnabled(consent, 'cancel')

      const shown = (await consent.page.evaluate(`({
        fits: document.documentElement.scrollWidth <= document.documentElement.clientWidth,
        confirmWaits: document.getElementById('${CONSENT_BUTTON_IDS.confirm}').disabled,
        box: !document.getElementById('${CONSENT_PAGE_IDS.modeVouches}').hidden,
        replaced: document.getElementById('${CONSENT_PAGE_IDS.modeReplacedWorkspace}').innerText,
        reseals: document.getElementById('${CONSENT_PAGE_IDS.modeResealsRoom}').innerText,
      })`)) as Record<string, unknown>
      expect(shown).toEqual({
        fits: true,
        confirmWaits: true,
        box: true,
        replaced: translate('zh-CN', 'consent.modeChange.acceptsReplacedWorkspace'),
        reseals: translate('zh-CN', 'consent.modeChange.resealsRoom'),
      })
    })

    it('renders Chinese on a dark theme', async () => {
      const consent = await browser.open()
      await consent.show(approvalView({ lang: 'zh-CN', theme: 'dark', agentLabel: '助手' }))
      await waitForEnabled(consent, 'deny')

      const rendered = (await consent.page.evaluate(`({
        lang: document.documentElement.lang,
        theme: document.documentElement.dataset.theme,
        kind: document.getElementById('${CONSENT_PAGE_IDS.kind}').textContent,
        title: document.getElementById('${CONSENT_PAGE_IDS.title}').textContent,
        deny: document.getElementById('${CONSENT_BUTTON_IDS.deny}').textContent,
        background: getComputedStyle(document.body).backgroundColor,
      })`)) as Record<string, string>
      expect(rendered).toMatchObject({
        lang: 'zh-CN',
        theme: 'dark',
        kind: translate('zh-CN', 'consent.kind.run-command'),
        title: '允许助手运行 git status 吗？',
        deny: translate('zh-CN', 'consent.button.deny'),
      })
      const [red, green, blue] = (rendered.background?.match(/\d+/g) ?? []).map(Number)
      const luminance =
        (0.2126 * (red ?? 255) + 0.7152 * (green ?? 255) + 0.0722 * (blue ?? 255)) / 255
      expect(luminance).toBeLessThan(0.2)
    })
  },
)
