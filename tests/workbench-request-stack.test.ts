import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  chromiumAvailable,
  startHostHarness,
  type HostHarness,
} from './support/cdp-host-harness.ts'
import { eventually } from './support/runtime-harness.ts'
import { ID, createRoomViaForm, seriousViolations } from './support/workbench-ui-helpers.ts'
import { placements } from '../scripts/smoke/workbench-ui.ts'

// The block of open requests above the composer, measured in real Chromium
// on the CDP host: with one to five requests open at once (questions,
// approvals and a form, arriving in that mix), at 1280×800 and at 760×600,
// every button that answers a request and the composer are inside the
// viewport and are what a click there would hit (not scrolled away inside
// the block, not covered by anything).

const run = chromiumAvailable()
const SHOTS = run ? mkdtempSync(join(tmpdir(), 'assent-request-stack-')) : ''
if (run) console.log(`request stack screenshots: ${SHOTS}`)

/** What each message asks for, in the order they are sent: every kind of
 *  request the block holds. */
const REQUESTS = [
  { text: 'ask Scope | Which part should I change? | docs | tests', kind: 'question' },
  { text: 'write stack-a.txt first approval', kind: 'approval' },
  { text: 'run git status', kind: 'approval' },
  { text: 'form Deploy details', kind: 'form' },
  { text: 'write stack-b.txt third approval', kind: 'approval' },
] as const

/** The buttons that answer each kind of open request. */
const ACTIONS = {
  approval: ['approval-review', 'approval-deny'],
  question: ['question-dismiss', 'question-send'],
  form: ['form-decline', 'form-send'],
} as const

const SIZES = [
  { width: 1280, height: 800 },
  { width: 760, height: 600 },
] as const

describe.runIf(run).each(SIZES)('open requests at $width×$height (real Chromium)', (size) => {
  let h: HostHarness
  let roomId: string
  let sent = 0

  beforeAll(async () => {
    h = await startHostHarness({ viewport: { width: size.width, height: size.height } })
    roomId = await createRoomViaForm(h, `Stack ${size.width}`)
  })
  afterAll(async () => {
    await h?.close()
  })

  /** Sends the next message straight to the runtime (the composer would
   *  reject the open approvals first) and waits until its request is in
   *  the block. */
  async function openOneMore(): Promise<void> {
    const request = REQUESTS[sent]!
    sent += 1
    await h.gui('sendMessage', roomId, { clientRequestId: `stack-${sent}`, text: request.text })
    await eventually(
      async () =>
        (await h.page.locator(`${ID.requests} .requests__item`).count()) === sent || undefined,
      `${sent} open requests`,
    )
  }

  for (const count of [1, 2, 3, 4, 5]) {
    it(`keeps the composer and the buttons of all ${count} open requests in view`, async () => {
      await openOneMore()
      const page = h.page
      const kinds = REQUESTS.slice(0, count).map((request) => request.kind)
      const selectors = [
        ID.input,
        ID.send,
        ...new Set(
          kinds.flatMap((kind) =>
            ACTIONS[kind].map((id) => `${ID.requests} [data-testid="${id}"]`),
          ),
        ),
      ]
      const seen = await placements(page, selectors)
      // Every request's buttons were measured, not just the first one's.
      const expected = kinds.reduce((total, kind) => total + ACTIONS[kind].length, 2)
      expect(seen).toHaveLength(expected)
      expect(seen.filter((placement) => !placement.inside || !placement.hit)).toEqual([])
      const scroll = await page.evaluate(() => [
        document.documentElement.scrollWidth,
        document.documentElement.clientWidth,
      ])
      expect(scroll[0]).toBeLessThanOrEqual(scroll[1]!)
      await page.screenshot({
        path: join(SHOTS, `stack-${count}-${size.width}x${size.height}.png`),
      })
    })
  }

  it('lists them in order of arrival whatever their kind, one with its details shown', async () => {
    const kinds = await h.page.$$eval(
      `${'[data-testid="open-requests"]'} .requests__item`,
      (items) => items.map((item) => item.firstElementChild?.getAttribute('data-testid')),
    )
    expect(kinds).toEqual([
      'question-card',
      'approval-card',
      'approval-card',
      'form-card',
      'approval-card',
    ])
    const expanded = await h.page.$$eval(
      '[data-testid="open-requests"] [data-expanded="true"]',
      (cards) => cards.map((card) => card.getAttribute('data-testid')),
    )
    expect(expanded).toEqual(['question-card'])
    if (size.width === 760) expect(await seriousViolations(h.page)).toEqual([])
  })
})
