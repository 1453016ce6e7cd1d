import type { Page } from 'playwright-core'
import type { CaseContext, CaseDefinition } from '../case-context.ts'
import { QUESTION_PHASE_MS } from '../../../src/contracts/input-request.ts'
import { scaledMs } from '../../test-timing.ts'
import {
  WAIT_TIMEOUT_MS,
  gui,
  openRoom,
  roomTimeline,
  sendViaComposer,
  waitFor,
} from '../workbench-ui.ts'
import { scenario } from './manual-cases.ts'

/** Selectors of the question and form cards (src/renderer/workbench). */
const Q = {
  openCard: '[data-testid="open-requests"] [data-testid="question-card"]',
  openForm: '[data-testid="open-requests"] [data-testid="form-card"]',
  /** One request's card, closed with `outcome`. By its id: the cases share
   *  a room, so an earlier card with the same outcome is in the timeline. */
  closed: (kind: 'question' | 'form', outcome: string, requestId: string) =>
    `[data-testid="timeline"] [data-testid="${kind}-card"][data-request-id="${requestId}"][data-outcome="${outcome}"]`,
  send: '[data-testid="question-send"]',
  dismiss: '[data-testid="question-dismiss"]',
  countdown: '[data-testid="question-countdown"]',
  formSend: '[data-testid="form-send"]',
  formDecline: '[data-testid="form-decline"]',
} as const

const SECRET = 'smoke-secret-7f3a9c-never-kept'

/** The shortened question wait of the auto-resolve case: a silent phase,
 *  then a countdown of the same length. The countdown must still show when
 *  the case reads it and takes its screenshot, so it is several seconds
 *  long even on an idle machine, and scaled like every ceiling. */
const SHORT_QUESTION_PHASE_MS = scaledMs(6_000)

interface InputRequest {
  id: string
  status: string
  answers: unknown
}

async function requests(page: Page, roomId: string): Promise<InputRequest[]> {
  const response = await gui<{ body: { requests: InputRequest[] } }>(page, 'inputRequests', roomId)
  return response.body.requests
}

async function timelineText(page: Page, roomId: string): Promise<string> {
  const { messages } = await roomTimeline(page, roomId)
  return messages.map((message) => message.text).join('\n')
}

/** Waits for a message in the room containing `text`. */
function messageContaining(page: Page, roomId: string, text: string) {
  return waitFor(async () => {
    const all = await timelineText(page, roomId)
    return all.includes(text) ? all : undefined
  }, `a message containing "${text}"`)
}

/** Waits for an open card and returns its request's id. */
async function openedRequest(page: Page, selector: string): Promise<string> {
  await page.waitForSelector(selector)
  const requestId = await page.getAttribute(selector, 'data-request-id')
  if (!requestId) throw new Error(`the card ${selector} names no request`)
  return requestId
}

async function openScenarioRoom(context: CaseContext): Promise<{ page: Page; roomId: string }> {
  const { roomId } = scenario(context)
  const page = await context.driver.workbench()
  if ((await page.locator(`[data-testid="room-view"][data-room-id="${roomId}"]`).count()) === 0) {
    await openRoom(page, roomId)
  }
  return { page, roomId }
}

export const questionCases: CaseDefinition[] = [
  {
    id: 'question-answered',
    title: 'The agent asks two questions; Send is enabled only once both are answered',
    screenshots: ['question-card.png'],
    async run(context) {
      const { page, roomId } = await openScenarioRoom(context)
      await sendViaComposer(
        page,
        [
          'ask Environment | Where should I deploy? | staging = safe to break | production = the real thing',
          'ask Notes | Anything I should know?',
        ].join('\n'),
      )
      const requestId = await openedRequest(page, Q.openCard)
      const send = page.locator(`${Q.openCard} ${Q.send}`)
      context.check('Send starts disabled', await send.isDisabled())
      await page.getByLabel(/staging/).check()
      context.check('Send stays disabled with one question answered', await send.isDisabled())
      await page.locator(`${Q.openCard} textarea`).nth(1).fill('ship after lunch')
      context.check('Send is enabled once every question is answered', await send.isEnabled())
      await context.screenshot(page, 'question-card.png', 'Two questions with options and answers')
      await send.click()
      await page.waitForSelector(Q.closed('question', 'answered', requestId))
      const said = await messageContaining(page, roomId, 'Environment: staging')
      context.check(
        'the agent received the answers',
        said.includes('Notes: ship after lunch'),
        said,
      )
    },
  },
  {
    id: 'question-dismissed',
    title: 'Dismiss closes a question without an answer; the agent goes on',
    async run(context) {
      const { page, roomId } = await openScenarioRoom(context)
      await sendViaComposer(page, 'ask Name | What should I call the report?\nlist')
      const requestId = await openedRequest(page, Q.openCard)
      await page.click(`${Q.openCard} ${Q.dismiss}`)
      await page.waitForSelector(Q.closed('question', 'dismissed', requestId))
      const said = await messageContaining(page, roomId, 'The question was dismissed')
      context.check('the timeline says it was dismissed', said.length > 0)
      const [latest] = (await requests(page, roomId)).slice(-1)
      context.check(
        'the runtime recorded dismissed',
        latest?.status === 'dismissed',
        latest?.status,
      )
      await context.screenshot(page, 'question-dismissed.png', 'A dismissed question')
    },
  },
  {
    id: 'question-auto-resolved',
    title: 'An unanswered question counts down and resolves itself (shortened wait)',
    screenshots: ['question-countdown.png'],
    async run(context) {
      const { roomId } = scenario(context)
      await context.driver.restartRuntime({ questionPhaseMs: SHORT_QUESTION_PHASE_MS })
      const page = await context.driver.reloadWorkbench()
      await openRoom(page, roomId)
      await sendViaComposer(page, 'ask Color | Which color should the button be?')
      const requestId = await openedRequest(page, Q.openCard)
      await page.waitForSelector(Q.countdown, { timeout: WAIT_TIMEOUT_MS })
      const shown = (await page.textContent(Q.countdown)) ?? ''
      context.check(
        'a countdown shows in the second phase',
        /Auto-resolves in \d+m \d\ds/.test(shown),
        shown,
      )
      await context.screenshot(page, 'question-countdown.png', 'A question counting down')
      await page.waitForSelector(Q.closed('question', 'autoResolved', requestId), {
        timeout: WAIT_TIMEOUT_MS,
      })
      const said = await messageContaining(page, roomId, 'closed automatically')
      context.check('a notice says it closed and the agent went on', said.includes('went on'), said)
      await context.driver.restartRuntime({ questionPhaseMs: QUESTION_PHASE_MS })
      await context.driver.reloadWorkbench()
    },
  },
  {
    id: 'form-submitted-and-declined',
    title: 'A form from a schema is sent once its required fields are filled; another is declined',
    screenshots: ['form-card.png'],
    async run(context) {
      const { page, roomId } = await openScenarioRoom(context)
      const schema = {
        type: 'object',
        properties: {
          service: { type: 'string', title: 'Service', description: 'As in the registry' },
          replicas: { type: 'integer', title: 'Replicas', minimum: 1 },
          canary: { type: 'boolean', title: 'Canary first' },
          region: { type: 'string', title: 'Region', enum: ['eu', 'us'] },
        },
        required: ['service', 'replicas'],
      }
      await sendViaComposer(page, `form Deploy details :: ${JSON.stringify(schema)}`)
      const requestId = await openedRequest(page, Q.openForm)
      const send = page.locator(`${Q.openForm} ${Q.formSend}`)
      context.check('Send starts disabled', await send.isDisabled())
      await page.getByLabel(/Service/).fill('web')
      await page.getByLabel(/Replicas/).fill('3')
      await page.getByLabel('eu', { exact: true }).check()
      context.check('Send is enabled once the required fields are filled', await send.isEnabled())
      await context.screenshot(page, 'form-card.png', 'A form built from a requested schema')
      await send.click()
      await page.waitForSelector(Q.closed('form', 'accepted', requestId))
      const said = await messageContaining(page, roomId, 'replicas = 3')
      context.check('the agent received the values', said.includes('region = "eu"'), said)

      await sendViaComposer(page, 'form Anything else about the release?')
      const declinedId = await openedRequest(page, Q.openForm)
      await page.click(`${Q.openForm} ${Q.formDecline}`)
      await page.waitForSelector(Q.closed('form', 'declined', declinedId))
      const declined = await messageContaining(page, roomId, 'The form was declined.')
      context.check('the agent heard decline', declined.length > 0)
    },
  },
  {
    id: 'secret-answer-absent',
    title: 'A secret answer reaches the agent but not history, the audit log or the page',
    screenshots: ['question-secret-saved.png'],
    async run(context) {
      const { page, roomId } = await openScenarioRoom(context)
      await sendViaComposer(page, 'ask --secret Token | Paste the deploy token')
      const requestId = await openedRequest(page, Q.openCard)
      const field = page.locator(`${Q.openCard} input[type="password"]`)
      context.check('the answer field is masked', (await field.count()) === 1)
      await field.fill(SECRET)
      await page.click(`${Q.openCard} ${Q.send}`)
      await page.waitForSelector(Q.closed('question', 'answered', requestId))
      const saved = await page.textContent(
        `${Q.closed('question', 'answered', requestId)} [data-testid="question-answer-saved"]`,
      )
      context.check(
        'the card says an answer was saved',
        saved === 'An answer was saved.',
        saved ?? '',
      )
      const said = await messageContaining(page, roomId, 'Token: answer saved.')
      context.check('the timeline keeps no secret', !said.includes(SECRET))
      const listed = JSON.stringify(await requests(page, roomId))
      context.check('the stored request keeps no secret', !listed.includes(SECRET))
      const { client } = await context.driver.runtime()
      const audit = JSON.stringify((await client.raw('GET', '/v1/audit/export')).body)
      context.check('the audit log keeps no secret', !audit.includes(SECRET))
      context.check('the page keeps no secret', !(await page.content()).includes(SECRET))
      await context.screenshot(page, 'question-secret-saved.png', 'A secret answer shown as saved')
    },
  },
]
