import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { TEST_TIMEOUT_MS } from '../scripts/test-timing.ts'
import { CONSENT_BUTTON_IDS, type ConsentView } from '../src/common/consent-view.ts'
import { translate } from '../src/common/i18n/index.ts'
import { CONSENT_PAGE_IDS } from '../src/preload-protected/consent-page-ids.ts'
import {
  POLL,
  buttonSelector,
  chromiumReady,
  parsedDecisions,
  useConsentBrowser,
  waitForEnabled,
} from './support/consent-page-browser.ts'

const URL = 'https://approver.example/decide?team=ops'
const SECRET = 'AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-abcde'

const setView = (overrides: Partial<ConsentView> = {}): ConsentView =>
  ({
    subject: 'approver-webhook',
    promptId: 'webhook-prompt-1',
    roomLabel: 'Release train',
    url: URL,
    currentUrl: null,
    timeoutSeconds: 10,
    lang: 'en',
    theme: 'light',
    enableDelayMs: 300,
    ...overrides,
  }) as ConsentView

/** What the webhook section shows, read from the page's main world. */
const READ_WEBHOOK = `({
  title: document.title,
  heading: document.getElementById('${CONSENT_PAGE_IDS.webhookHeading}').textContent,
  sentence: document.getElementById('${CONSENT_PAGE_IDS.webhookSentence}').textContent,
  url: document.getElementById('${CONSENT_PAGE_IDS.webhookUrl}').textContent,
  current: document.getElementById('${CONSENT_PAGE_IDS.webhookCurrent}').textContent,
  currentHidden: document.getElementById('${CONSENT_PAGE_IDS.webhookCurrentFact}').hidden,
  warningHidden: document.getElementById('${CONSENT_PAGE_IDS.webhookWarning}').hidden,
  secret: document.getElementById('${CONSENT_PAGE_IDS.webhookSecret}').textContent,
  secretHidden: document.getElementById('${CONSENT_PAGE_IDS.webhookSecretBox}').hidden,
  sectionHidden: document.getElementById('${CONSENT_PAGE_IDS.webhookSection}').hidden,
  approvalHidden: document.getElementById('${CONSENT_PAGE_IDS.approvalSection}').hidden,
  confirm: document.getElementById('${CONSENT_BUTTON_IDS.confirm}').textContent,
  confirmHidden: document.getElementById('${CONSENT_BUTTON_IDS.confirm}').hidden,
  cancel: document.getElementById('${CONSENT_BUTTON_IDS.cancel}').textContent,
  imgs: document.querySelectorAll('img, script').length,
})`

interface WebhookPage {
  title: string
  heading: string
  sentence: string
  url: string
  current: string
  currentHidden: boolean
  warningHidden: boolean
  secret: string
  secretHidden: boolean
  sectionHidden: boolean
  approvalHidden: boolean
  confirm: string
  confirmHidden: boolean
  cancel: string
  imgs: number
}

describe.skipIf(!chromiumReady)(
  'protected window for an approver webhook, in Chromium (CDP host injection)',
  { timeout: TEST_TIMEOUT_MS },
  () => {
    const browser = useConsentBrowser()

    it('shows the exact URL, what it hands over and how long it has, and confirms on a trusted click', async () => {
      const consent = await browser.open()
      await consent.show(setView({ currentUrl: 'http://127.0.0.1:8080/old' }))
      await waitForEnabled(consent, 'confirm')
      const shown = (await consent.page.evaluate(READ_WEBHOOK)) as WebhookPage
      expect(shown).toMatchObject({
        title: 'Let a webhook decide for you in Release train?',
        url: URL,
        current: 'http://127.0.0.1:8080/old',
        currentHidden: false,
        warningHidden: false,
        secretHidden: true,
        sectionHidden: false,
        approvalHidden: true,
        confirm: translate('en', 'consent.button.confirmWebhook'),
        confirmHidden: false,
      })
      expect(shown.sentence).toContain(URL)
      expect(shown.sentence).toContain('10 s')
      expect(shown.sentence).toContain('{"approved": true}')
      await consent.page.screenshot({
        path: join(browser.screenshots, 'protected-webhook-set.png'),
      })

      await consent.page.click(buttonSelector('confirm'))
      await expect.poll(() => consent.decisions.length, POLL).toBe(1)
      expect(parsedDecisions(consent)).toEqual([
        { promptId: 'webhook-prompt-1', answer: 'confirm' },
      ])
    })

    it('says a removal gives the decisions back, without the warning', async () => {
      const consent = await browser.open()
      await consent.show(setView({ url: null, currentUrl: URL }))
      await waitForEnabled(consent, 'confirm')
      const shown = (await consent.page.evaluate(READ_WEBHOOK)) as WebhookPage
      expect(shown).toMatchObject({
        title: 'Stop the approver webhook of Release train?',
        url: URL,
        currentHidden: true,
        warningHidden: true,
        confirm: translate('en', 'consent.button.removeWebhook'),
      })
    })

    it('shows a new secret once, offers only closing, and writes it nowhere else', async () => {
      const consent = await browser.open()
      await consent.show({
        subject: 'approver-webhook-secret',
        promptId: 'webhook-secret-1',
        roomLabel: 'Release train',
        url: URL,
        webhookId: 'wh_1',
        secret: SECRET,
        lang: 'en',
        theme: 'light',
        enableDelayMs: 300,
      })
      await waitForEnabled(consent, 'cancel')
      const shown = (await consent.page.evaluate(READ_WEBHOOK)) as WebhookPage
      expect(shown).toMatchObject({
        title: 'The approver webhook of Release train is set',
        secret: SECRET,
        secretHidden: false,
        warningHidden: true,
        confirmHidden: true,
        cancel: translate('en', 'consent.button.secretCopied'),
      })
      expect(shown.title).not.toContain(SECRET)
      await consent.page.screenshot({
        path: join(browser.screenshots, 'protected-webhook-secret.png'),
      })
      await consent.page.click(buttonSelector('cancel'))
      await expect.poll(() => consent.decisions.length, POLL).toBe(1)
      expect(parsedDecisions(consent)).toEqual([{ promptId: 'webhook-secret-1', answer: 'cancel' }])

      // Shown in its box and nowhere else on the page (not the title, not
      // an attribute a screen reader or the task switcher would read).
      const html = (await consent.page.evaluate('document.documentElement.outerHTML')) as string
      expect(html.split(SECRET)).toHaveLength(2)
    })

    it('renders a hostile URL and room as text, and speaks Chinese', async () => {
      const consent = await browser.open()
      const hostile = `https://a.example/<img src=x onerror="document.title='pwned'">`
      await consent.show(setView({ url: hostile, roomLabel: '<script>x</script>', lang: 'zh-CN' }))
      await waitForEnabled(consent, 'confirm')
      const shown = (await consent.page.evaluate(READ_WEBHOOK)) as WebhookPage
      expect(shown.imgs).toBe(0)
      expect(shown.url).toContain('<img src=x')
      expect(shown).toMatchObject({
        heading: '允许一个回调地址在 <script>x</script> 中替你做决定吗？',
        confirm: translate('zh-CN', 'consent.button.confirmWebhook'),
      })
    })
  },
)
