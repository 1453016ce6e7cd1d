import type { Page } from 'playwright-core'
import { zhCN } from '../../../src/common/i18n/zh-CN.ts'
import { PermissionModeSchema } from '../../../src/contracts/policy-axes.ts'
import { clickToDecide } from '../consent-keys.ts'
import type { CaseDefinition } from '../case-context.ts'
import { UI, WAIT_TIMEOUT_MS, englishWordsShown, insideViewport, waitFor } from '../workbench-ui.ts'
import { askFor, closedSoon, openReview } from './manual-cases.ts'

/** The page's theme as the person sees it: the root's `data-theme` and the
 *  relative luminance (0 black … 1 white) of the body's computed background. */
async function themeOf(page: Page) {
  return page.evaluate(() => {
    const background = getComputedStyle(document.body).backgroundColor
    const [r = 255, g = 255, b = 255] = (background.match(/[\d.]+/g) ?? []).map(Number)
    return {
      theme: document.documentElement.dataset.theme,
      background,
      luminance: (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255,
    }
  })
}

/** Where the workbench shows the person's own words (their messages, the
 *  names they gave rooms), left as they wrote them in every language; the
 *  protected window shows the room's name as `#assent-room`. */
const PERSONS_OWN_WORDS = ['.message--user', '[data-testid="room-link"]', '.room__title']

/** Display cases: they need approvals that ask (a room in ask-for-approval). */
export const displayCases: CaseDefinition[] = [
  {
    id: 'chinese-dark',
    title: 'The protected approval window and the workbench in Chinese with the dark theme',
    screenshots: ['protected-approval-zh-dark.png'],
    async run(context) {
      const page = await context.driver.workbench()
      await page.click(UI.settingsButton)
      await page.selectOption(UI.languageSelect, 'zh-CN')
      await page.selectOption(UI.themeSelect, 'dark')
      const lang = await page.evaluate(() => document.documentElement.lang)
      context.check('the workbench is in Chinese', lang === 'zh-CN', lang)
      const workbenchLook = await waitFor(async () => {
        const look = await themeOf(page)
        return look.theme === 'dark' ? look : undefined
      }, 'the dark theme in the workbench').catch(() => themeOf(page))
      context.check(
        'the workbench uses the dark theme',
        workbenchLook.theme === 'dark' && workbenchLook.luminance < 0.35,
        `data-theme=${workbenchLook.theme} background ${workbenchLook.background}`,
      )
      const approval = await askFor(context, page, 'write zh.txt 你好，世界')
      const consent = await openReview(context, page, approval.id)
      const look = await consent.page.evaluate(() => ({
        lang: document.documentElement.lang,
        text: document.body.innerText,
        allow: document.getElementById('assent-allow-once')?.textContent?.trim(),
        deny: document.getElementById('assent-deny')?.textContent?.trim(),
      }))
      const consentTheme = await themeOf(consent.page)
      context.check('the protected window is in Chinese', look.lang === 'zh-CN', look.lang)
      context.check(
        'the protected window uses the dark theme',
        consentTheme.theme === 'dark' && consentTheme.luminance < 0.35,
        `data-theme=${consentTheme.theme} background ${consentTheme.background}`,
      )
      context.check(
        'the Allow button says the zh-CN catalog string',
        look.allow === zhCN.consent.button.allowOnce,
        `${look.allow} (catalog: ${zhCN.consent.button.allowOnce})`,
      )
      context.check(
        'the Deny button says the zh-CN catalog string',
        look.deny === zhCN.consent.button.deny,
        `${look.deny} (catalog: ${zhCN.consent.button.deny})`,
      )
      context.check('the content shows in Chinese characters', look.text.includes('你好，世界'))
      const englishInWindow = await englishWordsShown(consent.page, ['#assent-room'])
      context.check(
        'the protected window shows no English words outside code, paths and arguments',
        englishInWindow.length === 0,
        JSON.stringify(englishInWindow),
      )
      // What the person typed and the room's name are their own words.
      const englishInWorkbench = await englishWordsShown(page, PERSONS_OWN_WORDS)
      context.check(
        'the workbench shows no English words outside code, paths and arguments',
        englishInWorkbench.length === 0,
        JSON.stringify(englishInWorkbench),
      )
      await context.screenshot(
        consent.page,
        'protected-approval-zh-dark.png',
        'The protected window in Chinese, dark theme',
      )
      await clickToDecide(consent.page, '#assent-deny')
      await closedSoon(consent)
      await context.screenshot(
        page,
        'workbench-zh-dark.png',
        'The workbench in Chinese, dark theme',
      )
      await page.click(UI.settingsButton)
      await page.selectOption(UI.languageSelect, 'en')
      await page.selectOption(UI.themeSelect, 'light')
    },
  },
  {
    id: 'narrow-window',
    title: 'At 760 px the composer, the card buttons and the picker stay inside the window',
    screenshots: ['approval-narrow-composer.png'],
    async run(context) {
      const page = await context.driver.workbench()
      await context.driver.setViewport({ width: 760, height: 760 })
      const approval = await askFor(context, page, 'write narrow.txt a card at 760 px')
      const scroll = await page.evaluate(() => [
        document.documentElement.scrollWidth,
        document.documentElement.clientWidth,
      ])
      context.check(
        'no horizontal scrolling',
        scroll[0]! <= scroll[1]!,
        `scrollWidth ${scroll[0]} clientWidth ${scroll[1]}`,
      )
      for (const selector of [
        UI.composerInput,
        UI.composerSend,
        UI.cardReview(approval.id),
        UI.cardDeny(approval.id),
        UI.modePicker,
      ]) {
        await page.locator(selector).first().scrollIntoViewIfNeeded()
        const box = await insideViewport(page, selector)
        context.check(`${selector} is inside the viewport`, box.ok, box.detail)
      }
      await context.screenshot(
        page,
        'approval-narrow-composer.png',
        'The workbench at 760 px with a pending card',
      )
      // The open picker: every mode a person can choose must be reachable.
      await page.click(UI.modePicker)
      for (const mode of PermissionModeSchema.options) {
        const option = UI.modeOption(mode)
        await page.waitForSelector(option, { state: 'visible', timeout: WAIT_TIMEOUT_MS })
        const box = await insideViewport(page, option)
        context.check(`the picker's ${mode} option is inside the viewport`, box.ok, box.detail)
      }
      await context.screenshot(
        page,
        'permission-picker-narrow.png',
        'The open mode picker at 760 px',
      )
      await page.keyboard.press('Escape')
      await page.waitForSelector(UI.modeOption('ask-for-approval'), {
        state: 'hidden',
        timeout: WAIT_TIMEOUT_MS,
      })
      const consent = await openReview(context, page, approval.id, 'deny')
      await clickToDecide(consent.page, '#assent-deny')
      await closedSoon(consent)
      await context.driver.setViewport({ width: 1280, height: 800 })
    },
  },
]
