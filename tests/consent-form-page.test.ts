import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CONSENT_BUTTON_IDS, type ConsentView } from '../src/common/consent-view.ts'
import { CONSENT_PAGE_IDS } from '../src/preload-protected/consent-page-ids.ts'
import {
  chromiumMissing,
  launchChromium,
  openProtectedPage,
  type ProtectedPage,
} from './support/cdp-protected-page.ts'
import { requireOrSkip } from './support/require-or-skip.ts'
import { WAIT_TIMEOUT_MS } from '../scripts/test-timing.ts'
import { serveDirectory, type StaticServer } from './support/static-server.ts'

// A sensitive form in the built consent page and CDP preload, in real
// Chromium: fields drawn as text, values sent only on a trusted click, and
// only through the protected world's binding.

const OUT = resolve(import.meta.dirname, '../out')
const POLL = { timeout: WAIT_TIMEOUT_MS, interval: 50 }

const chromiumReady = requireOrSkip(
  'Chromium',
  chromiumMissing(),
  'install it with `apt-get install chromium` (Debian)',
)

const formView = (): ConsentView => ({
  subject: 'form',
  promptId: 'form-prompt-1',
  roomLabel: 'Deploys',
  message: 'Log in to the registry',
  fields: [
    { name: 'user', label: 'User <img src=x>', control: 'text', required: true },
    { name: 'password', label: 'Password', control: 'password', required: true },
    { name: 'remember', label: 'Keep me signed in', control: 'switch', required: false },
    { name: 'port', label: 'Port', control: 'number', integer: true, required: false },
  ],
  lang: 'en',
  theme: 'light',
  enableDelayMs: 300,
})

describe.skipIf(!chromiumReady)('a sensitive form in the protected window', () => {
  let browser: Browser
  let server: StaticServer
  let preloadSource: string
  let consentUrl: string
  const open: ProtectedPage[] = []

  beforeAll(async () => {
    preloadSource = readFileSync(join(OUT, 'cdp/preload-protected.js'), 'utf8')
    server = await serveDirectory(join(OUT, 'renderer'))
    consentUrl = `${server.origin}/consent/index.html`
    browser = await launchChromium()
  })
  afterAll(async () => {
    for (const consent of open) await consent.close().catch(() => undefined)
    await browser?.close()
    await server?.close()
  })

  const openForm = async () => {
    const consent = await openProtectedPage(browser, { url: consentUrl, preloadSource })
    open.push(consent)
    await consent.show(formView())
    await expect
      .poll(
        () =>
          consent.page.evaluate(`document.getElementById('${CONSENT_BUTTON_IDS.submit}').disabled`),
        POLL,
      )
      .toBe(false)
    return consent
  }

  it('draws the fields as text, with a masked password and a number keyboard hint', async () => {
    const { page } = await openForm()
    expect(await page.locator('#assent-form-fields img').count()).toBe(0)
    expect(await page.getByText('User <img src=x> (required)').count()).toBe(1)
    expect(await page.getByLabel('Password (required)').getAttribute('type')).toBe('password')
    expect(await page.getByLabel('Port').getAttribute('inputmode')).toBe('numeric')
    expect(await page.getByRole('switch').count()).toBe(1)
    for (const answer of ['cancel', 'decline', 'submit'] as const) {
      expect(await page.locator(`#${CONSENT_BUTTON_IDS[answer]}`).isVisible()).toBe(true)
    }
    expect(await page.locator(`#${CONSENT_BUTTON_IDS['allow-once']}`).isVisible()).toBe(false)
  })

  it('sends the values only on a trusted click, and not while a required field is empty', async () => {
    const consent = await openForm()
    const { page } = consent
    await page.getByLabel('User <img src=x> (required)').fill('ada')
    await page.click(`#${CONSENT_BUTTON_IDS.submit}`)
    await consent.flush()
    expect(consent.decisions).toEqual([])
    expect(await page.locator(`#${CONSENT_PAGE_IDS.formError}`).textContent()).toBe(
      'Check the form: Password',
    )

    await page.getByLabel('Password (required)').fill('s3cret')
    await page.getByLabel('Port').fill('8443')
    await page.evaluate(`document.getElementById('${CONSENT_BUTTON_IDS.submit}').click()`)
    await consent.flush()
    expect(consent.decisions).toEqual([])

    await page.click(`#${CONSENT_BUTTON_IDS.submit}`)
    await expect.poll(() => consent.decisions.length, POLL).toBe(1)
    expect(JSON.parse(consent.decisions[0]?.payload ?? '')).toEqual({
      promptId: 'form-prompt-1',
      answer: 'submit',
      values: { user: 'ada', password: 's3cret', remember: false, port: 8443 },
    })
    expect(consent.foreignCalls).toEqual([])
  })

  it('declines with Decline and cancels with Escape, sending no values', async () => {
    const first = await openForm()
    await first.page.getByLabel('Password (required)').fill('typed but declined')
    await first.page.click(`#${CONSENT_BUTTON_IDS.decline}`)
    await expect.poll(() => first.decisions.length, POLL).toBe(1)
    expect(JSON.parse(first.decisions[0]?.payload ?? '')).toEqual({
      promptId: 'form-prompt-1',
      answer: 'decline',
    })
    const second = await openForm()
    await second.page.keyboard.press('Escape')
    await expect.poll(() => second.decisions.length, POLL).toBe(1)
    expect(JSON.parse(second.decisions[0]?.payload ?? '')).toEqual({
      promptId: 'form-prompt-1',
      answer: 'cancel',
    })
  })
})
