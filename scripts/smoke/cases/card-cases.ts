import { existsSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import type { CaseContext, CaseDefinition } from '../case-context.ts'
import { clickToDecide } from '../consent-keys.ts'
import {
  UI,
  WAIT_TIMEOUT_MS,
  findInTimeline,
  timelineToBottom,
  gui,
  placements,
  sendViaComposer,
  waitFor,
} from '../workbench-ui.ts'
import { askFor, closedSoon, openReview, scenario } from './manual-cases.ts'

/** The block of open requests above the composer (src/renderer/workbench). */
const REQUESTS = {
  block: '[data-testid="open-requests"]',
  items: '[data-testid="open-requests"] .requests__item',
  buttons: [
    'approval-review',
    'approval-deny',
    'question-dismiss',
    'question-send',
    'form-decline',
    'form-send',
  ].map((id) => `[data-testid="open-requests"] [data-testid="${id}"]`),
} as const

/** What the open block holds, in order: each request's card kind. */
function openKinds(page: Page): Promise<string[]> {
  return page.$$eval(REQUESTS.items, (items) =>
    items.map((item) => item.firstElementChild?.getAttribute('data-testid') ?? '?'),
  )
}

let sent = 0

/** Sends a message straight to the runtime, as another turn would start
 *  (the composer would reject the open approvals first), and waits until
 *  the block holds one more request. */
async function openAnother(context: CaseContext, page: Page, text: string) {
  const { roomId } = scenario(context)
  const before = (await openKinds(page)).length
  sent += 1
  await gui(page, 'sendMessage', roomId, { clientRequestId: `card-stack-${sent}`, text })
  await waitFor(
    async () => ((await openKinds(page)).length === before + 1 ? true : undefined),
    `request ${before + 1} in the open block`,
  )
}

export const cardCases: CaseDefinition[] = [
  {
    id: 'approval-rejected-card',
    title: 'A denied write leaves the open block at once and stays in the timeline as Rejected',
    screenshots: ['approval-rejected-card.png'],
    async run(context) {
      const page = await context.driver.workbench()
      const approval = await askFor(context, page, 'write rejected.txt this is never written')
      const consent = await openReview(context, page, approval.id, 'deny')
      await clickToDecide(consent.page, '#assent-deny')
      context.check('the window closes after the decision', await closedSoon(consent))
      const rejected = `${UI.card(approval.id)}[data-outcome="rejected"]`
      await page.waitForSelector(`[data-testid="timeline"] ${rejected}`, {
        timeout: WAIT_TIMEOUT_MS,
      })
      context.check(
        'the card left the open block',
        (await page.locator(`${REQUESTS.block} ${UI.card(approval.id)}`).count()) === 0,
      )
      // `has` looks inside each tool call, so its selector starts at the card.
      const call = page.locator('[data-testid="timeline"] [data-testid="timeline-tool"]', {
        has: page.locator(rejected),
      })
      await call.locator('[data-testid="tool-said"]').waitFor({ timeout: WAIT_TIMEOUT_MS })
      const said = (await call.locator('[data-testid="tool-said"]').textContent()) ?? ''
      context.check(
        'its tool call says in words that it did not run',
        said === 'Denied by the person; it did not run.',
        said,
      )
      context.check(
        'nothing was written',
        !existsSync(join(context.driver.workspace, 'rejected.txt')),
      )
      await call.scrollIntoViewIfNeeded()
      await context.screenshot(
        page,
        'approval-rejected-card.png',
        'A rejected card in the timeline, with its result',
      )
    },
  },
  {
    id: 'card-stack',
    title:
      'A question, two approvals and a form open at once at 1280×800: in order of arrival, every button and the composer on screen',
    screenshots: ['card-stack.png'],
    async run(context) {
      const page = await context.driver.workbench()
      await context.driver.setViewport({ width: 1280, height: 800 })
      await openAnother(context, page, 'ask Scope | Which part should I change? | docs | tests')
      await openAnother(context, page, 'write stack-one.txt the first write')
      await openAnother(context, page, 'write stack-two.txt the second write')
      await openAnother(context, page, 'form Release notes for this change')
      const kinds = await openKinds(page)
      context.check(
        'one block holds them in order of arrival, whatever their kind',
        JSON.stringify(kinds) ===
          JSON.stringify(['question-card', 'approval-card', 'approval-card', 'form-card']),
        kinds.join(', '),
      )
      const seen = await placements(page, [UI.composerInput, UI.composerSend, ...REQUESTS.buttons])
      context.check(
        'the composer and both buttons of each of the four requests are measured',
        seen.length === 2 + 4 * 2,
        seen.map((placement) => placement.what).join('; '),
      )
      const hidden = seen.filter((placement) => !placement.inside || !placement.hit)
      context.check(
        'each of them is inside the window and is what a click there reaches',
        hidden.length === 0,
        hidden.map((placement) => `${placement.what} at ${placement.box}`).join('; '),
      )
      const answering = (await page.textContent('[data-testid="composer-answering"]')) ?? ''
      context.check(
        'the composer says what its text will answer',
        answering.startsWith('Answering: Scope'),
        answering,
      )
      const ttl = (await page.locator('[data-testid="approval-ttl"]').allTextContents()).join(' | ')
      context.check(
        'each approval says once how long it still waits',
        /^Expires in \d+:\d\d \| Expires in \d+:\d\d$/.test(ttl),
        ttl,
      )
      await context.screenshot(
        page,
        'card-stack.png',
        'A question, two approvals and a form open above the composer at 1280×800',
      )

      // Answered one by one, each leaves the block at once.
      await sendViaComposer(page, 'docs, please')
      await page.waitForSelector(`${REQUESTS.block} [data-testid="question-card"]`, {
        state: 'detached',
        timeout: WAIT_TIMEOUT_MS,
      })
      await findInTimeline(page, '[data-testid="question-card"][data-outcome="answered"]')
      for (const approvalId of await page.$$eval(
        `${REQUESTS.block} [data-testid="approval-card"]`,
        (cards) => cards.map((card) => card.getAttribute('data-approval-id') ?? ''),
      )) {
        const consent = await openReview(context, page, approvalId, 'deny')
        await clickToDecide(consent.page, '#assent-deny')
        await closedSoon(consent)
        await findInTimeline(page, UI.card(approvalId))
        scenario(context).known.add(approvalId)
      }
      await timelineToBottom(page)
      await page.click(`${REQUESTS.block} [data-testid="form-decline"]`)
      await page.waitForSelector(REQUESTS.block, { state: 'detached', timeout: WAIT_TIMEOUT_MS })
      context.check(
        'with everything answered, the block is gone and nothing was written',
        !existsSync(join(context.driver.workspace, 'stack-one.txt')) &&
          !existsSync(join(context.driver.workspace, 'stack-two.txt')),
      )
    },
  },
]
