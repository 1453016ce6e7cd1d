import { describe, expect, it } from 'vitest'
import { TEST_TIMEOUT_MS, scaledMs } from '../scripts/test-timing.ts'
import { CONSENT_BUTTON_IDS, type ConsentView } from '../src/common/consent-view.ts'
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

// Deciding without a mouse, and presses during the enable delay, in real
// Chromium: every key and click below is trusted input made by the
// DevTools protocol, as a person's would be.

type ModeChangeView = Extract<ConsentView, { subject: 'mode-change' }>

/** Long enough that a key sent right after the one before lands inside it,
 *  even on a loaded machine; each test checks it did, and fails loudly
 *  rather than pass on a slow run. */
const KEY_DELAY_MS = scaledMs(4_000)

const modeChange = (overrides: Partial<ModeChangeView>): ModeChangeView => ({
  subject: 'mode-change',
  promptId: 'mode-prompt-1',
  roomLabel: 'Design review',
  workspace: '/home/ada/project',
  fromMode: 'ask-for-approval',
  toMode: 'full-access',
  lang: 'en',
  theme: 'light',
  enableDelayMs: 600,
  ...overrides,
})

/** Views whose Confirm does more than the first screen says. */
const CONFIRM_BELOW_THE_EDGE: ReadonlyArray<{ name: string; view: ConsentView }> = [
  {
    name: 'full access that accepts a replaced folder and seals the room again',
    view: modeChange({ acceptsReplacedWorkspace: true, resealsRoom: true }),
  },
  {
    // A room's name may be 200 characters long, and is said twice.
    name: 'a narrowing that accepts a replaced folder, in Chinese, under a long room name',
    view: modeChange({
      roomLabel: '设计评审 '.repeat(40).trim(),
      fromMode: 'full-access',
      toMode: 'ask-for-approval',
      acceptsReplacedWorkspace: true,
      lang: 'zh-CN',
    }),
  },
  {
    name: 'an approver webhook with a long URL',
    view: {
      subject: 'approver-webhook',
      promptId: 'webhook-prompt-1',
      roomLabel: 'Design review',
      url: `https://approver.example/${'a'.repeat(1_500)}`,
      currentUrl: null,
      timeoutSeconds: 30,
      lang: 'en',
      theme: 'light',
      enableDelayMs: 600,
    },
  },
]

describe.skipIf(!chromiumReady)(
  'deciding without a mouse in Chromium',
  { timeout: TEST_TIMEOUT_MS },
  () => {
    const browser = useConsentBrowser()

    it('counts Space on Allow only once the delay has passed since the person tabbed to it', async () => {
      const consent = await browser.open()
      const { page } = consent
      await consent.show(approvalView({ enableDelayMs: KEY_DELAY_MS }))
      await waitForEnabled(consent, 'allow-once')
      expect(await focusedId(consent)).toBe(CONSENT_BUTTON_IDS.deny)

      const tabbedAt = Date.now()
      await page.keyboard.press('Tab')
      await page.keyboard.press('Space')
      expect(
        Date.now() - tabbedAt,
        'Space landed inside the delay after the Tab (raise ASSENT_TIME_SCALE if not)',
      ).toBeLessThan(KEY_DELAY_MS)
      expect(await focusedId(consent)).toBe(CONSENT_BUTTON_IDS['allow-once'])
      await consent.flush()
      expect(consent.decisions).toEqual([])

      await sleep(KEY_DELAY_MS)
      await page.keyboard.press('Space')
      await expect.poll(() => consent.decisions.length, POLL).toBe(1)
      expect(parsedDecisions(consent)).toEqual([
        { promptId: 'approval-prompt-1', answer: 'allow-once' },
      ])
    })

    it('refuses Space on Allow when focus got there without a key press', async () => {
      const consent = await browser.open()
      const { page } = consent
      await consent.show(approvalView())
      await waitForEnabled(consent, 'allow-always')
      // Focus set by a script (here, the test's): not a person's key press.
      await page.focus(buttonSelector('allow-always'))
      await sleep(1_000)
      await page.keyboard.press('Space')
      await page.keyboard.press('Enter')
      await consent.flush()
      expect(consent.decisions).toEqual([])
    })

    it('takes Deny with Space on its default focus', async () => {
      const consent = await browser.open()
      await consent.show(approvalView())
      await waitForEnabled(consent, 'deny')
      expect(await focusedId(consent)).toBe(CONSENT_BUTTON_IDS.deny)
      await consent.page.keyboard.press('Space')
      await expect.poll(() => consent.decisions.length, POLL).toBe(1)
      expect(parsedDecisions(consent)).toEqual([{ promptId: 'approval-prompt-1', answer: 'deny' }])
    })

    for (const [name, press] of [
      [
        'a key press',
        (consent: Awaited<ReturnType<typeof browser.open>>) => consent.page.keyboard.press('a'),
      ],
      [
        'a pointer press',
        (consent: Awaited<ReturnType<typeof browser.open>>) => consent.page.mouse.click(5, 5),
      ],
    ] as const) {
      it(`restarts the whole delay on ${name} while the buttons are disabled`, async () => {
        const consent = await browser.open()
        await consent.show(approvalView({ enableDelayMs: KEY_DELAY_MS }))
        await sleep(KEY_DELAY_MS / 2)
        const pressedAt = Date.now()
        await press(consent)
        // The press must have landed while the buttons were still disabled,
        // or this run proves nothing.
        expect(await isDisabled(consent, 'deny')).toBe(true)
        await waitForEnabled(consent, 'deny')
        // Timers only ever fire late: enabling sooner than a whole delay
        // after the press means the press did not restart it.
        expect(Date.now() - pressedAt).toBeGreaterThanOrEqual(KEY_DELAY_MS)
      })
    }

    it('keeps Allow disabled until a long action has been scrolled to its end, and says so', async () => {
      const consent = await browser.open({ width: 560, height: 680 })
      const { page } = consent
      const text = Array.from({ length: 120 }, (_, index) => `line ${index + 1}`).join('\n')
      await consent.show(
        approvalView({
          kind: 'mcp-tool-call',
          toolName: 'write_note',
          action: {
            type: 'mcp',
            serverName: 'Notes',
            toolDescription: 'Writes.',
            previewText: null,
            serverFolder: null,
          },
          argumentsText: JSON.stringify({ name: 'plan.txt', lines: text.split('\n') }, null, 2),
          alwaysAllow: { offered: true, scope: 'mcp-tool' },
        }),
      )
      await waitForEnabled(consent, 'deny')
      expect(await isDisabled(consent, 'allow-once')).toBe(true)
      expect(await isDisabled(consent, 'allow-always')).toBe(true)
      const cue = `document.getElementById('${CONSENT_PAGE_IDS.scrollCue}')`
      expect(await page.evaluate(`${cue}.hidden`)).toBe(false)
      await page.click(buttonSelector('allow-once'), { force: true })
      await consent.flush()
      expect(consent.decisions).toEqual([])

      const content = page.locator(`#${CONSENT_PAGE_IDS.content}`)
      await content.hover()
      for (let step = 0; step < 40 && (await isDisabled(consent, 'allow-once')); step += 1) {
        await page.mouse.wheel(0, 400)
        await sleep(50)
      }
      await waitForEnabled(consent, 'allow-once')
      expect(await page.evaluate(`${cue}.hidden`)).toBe(true)
      await page.click(buttonSelector('allow-always'))
      await expect.poll(() => consent.decisions.length, POLL).toBe(1)
      expect(parsedDecisions(consent)).toEqual([
        { promptId: 'approval-prompt-1', answer: 'allow-always' },
      ])
    })

    // At the window's own size, what confirming these does (the warning
    // boxes) and the folder or URL it is about are drawn below the
    // footer's edge: Confirm waits until they have been in view.
    for (const { name, view } of CONFIRM_BELOW_THE_EDGE) {
      it(`keeps Confirm of ${name} disabled until the view has been scrolled to its end`, async () => {
        const consent = await browser.open({ width: 560, height: 680 })
        const { page } = consent
        await consent.show(view)
        await waitForEnabled(consent, 'cancel')
        expect(await isDisabled(consent, 'confirm')).toBe(true)
        const cue = `document.getElementById('${CONSENT_PAGE_IDS.scrollCue}')`
        expect(await page.evaluate(`${cue}.hidden`)).toBe(false)
        await page.click(buttonSelector('confirm'), { force: true })
        await consent.flush()
        expect(consent.decisions).toEqual([])

        await page.locator(`#${CONSENT_PAGE_IDS.content}`).hover()
        for (let step = 0; step < 40 && (await isDisabled(consent, 'confirm')); step += 1) {
          await page.mouse.wheel(0, 400)
          await sleep(50)
        }
        await waitForEnabled(consent, 'confirm')
        expect(await page.evaluate(`${cue}.hidden`)).toBe(true)
        await page.click(buttonSelector('confirm'))
        await expect.poll(() => consent.decisions.length, POLL).toBe(1)
        expect(parsedDecisions(consent)).toEqual([{ promptId: view.promptId, answer: 'confirm' }])
      })
    }
  },
)
