import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { AxeBuilder } from '@axe-core/playwright'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, expect } from 'vitest'
import { CONSENT_BUTTON_IDS, type ConsentAnswer } from '../../src/common/consent-view.ts'
import {
  approvalView as baseApprovalView,
  type ApprovalView,
} from '../../src/preload-protected/test-support/consent-views.ts'
import {
  chromiumMissing,
  launchChromium,
  openProtectedPage,
  type ProtectedPage,
} from './cdp-protected-page.ts'
import { requireOrSkip } from './require-or-skip.ts'
import { serveDirectory, type StaticServer } from './static-server.ts'
import { WAIT_TIMEOUT_MS } from '../../scripts/test-timing.ts'

// The built consent page and CDP preload (out/, made by the global setup
// tests/support/build-once.ts), in real Chromium, injected the way the CDP
// host injects them. Expressions passed to page.evaluate run in the page's
// main world: the world a hostile page script would have.

const OUT = resolve(import.meta.dirname, '../../out')

/** Enable delays of several seconds plus a loaded machine: poll longer than
 *  the default 1 s (the one scaled ceiling, scripts/test-timing.ts). */
export const POLL = { timeout: WAIT_TIMEOUT_MS, interval: 50 }

export const chromiumReady = requireOrSkip(
  'Chromium',
  chromiumMissing(),
  'install it with `apt-get install chromium` (Debian)',
)

/** The approval every Chromium test starts from: `git status` in a room. */
export const approvalView = (overrides: Partial<ApprovalView> = {}): ApprovalView =>
  baseApprovalView({
    promptId: 'approval-prompt-1',
    action: {
      type: 'command',
      argv: ['git', 'status'],
      shell: false,
      directory: '/home/ada/project',
    },
    argumentsText: JSON.stringify({ argv: ['git', 'status'] }, null, 2),
    ...overrides,
  })

export const buttonSelector = (answer: ConsentAnswer) => `#${CONSENT_BUTTON_IDS[answer]}`
export const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms))

export interface ConsentBrowser {
  open(viewport?: { width: number; height: number }): Promise<ProtectedPage>
  /** Where this run's screenshots go (a fresh folder under the temp dir). */
  readonly screenshots: string
}

/** Registers the hooks that start Chromium and serve the built pages for
 *  one test file, and close every page it opened. */
export function useConsentBrowser(): ConsentBrowser {
  let browser: Browser
  let server: StaticServer
  let preloadSource: string
  let screenshots = ''
  const opened: ProtectedPage[] = []

  beforeAll(async () => {
    preloadSource = readFileSync(join(OUT, 'cdp/preload-protected.js'), 'utf8')
    server = await serveDirectory(join(OUT, 'renderer'))
    browser = await launchChromium()
    screenshots =
      process.env.ASSENT_CONSENT_SHOTS ?? mkdtempSync(join(tmpdir(), 'assent-consent-shots-'))
    console.log(`consent page screenshots: ${screenshots}`)
  })

  afterAll(async () => {
    for (const consent of opened) await consent.close().catch(() => undefined)
    await browser?.close()
    await server?.close()
  })

  return {
    async open(viewport) {
      const consent = await openProtectedPage(browser, {
        url: `${server.origin}/consent/index.html`,
        preloadSource,
        ...(viewport ? { viewport } : {}),
      })
      opened.push(consent)
      return consent
    },
    get screenshots() {
      return screenshots
    },
  }
}

/** Whether the page's main world sees a button disabled. (Polls with
 *  page.evaluate: waitForFunction evals a string, which the CSP forbids.) */
export const isDisabled = (consent: ProtectedPage, answer: ConsentAnswer) =>
  consent.page.evaluate(`document.getElementById('${CONSENT_BUTTON_IDS[answer]}').disabled`)

export const waitForEnabled = (consent: ProtectedPage, answer: ConsentAnswer) =>
  expect.poll(() => isDisabled(consent, answer), POLL).toBe(false)

export const parsedDecisions = (consent: ProtectedPage) =>
  consent.decisions.map((call) => JSON.parse(call.payload) as unknown)

/** The id of the element that has focus, as the page sees it. */
export const focusedId = (consent: ProtectedPage) =>
  consent.page.evaluate(`document.activeElement && document.activeElement.id`)

/** axe's violations on the page, one line each (id, impact, where). */
export async function axeViolations(consent: ProtectedPage): Promise<string[]> {
  const results = await new AxeBuilder({ page: consent.page }).analyze()
  return results.violations.map(
    (violation) =>
      `${violation.id} (${violation.impact}): ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`,
  )
}
