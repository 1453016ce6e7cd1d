import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { BUTTON_ENABLE_DELAY_MS } from '../../../src/common/consent-view.ts'
import type { CaseDefinition } from '../case-context.ts'
import { clickToDecide, pressSpaceToDecide } from '../consent-keys.ts'
import {
  UI,
  WAIT_TIMEOUT_MS,
  approvalStatus,
  gui,
  placements,
  roomTimeline,
  sendViaComposer,
  waitFor,
} from '../workbench-ui.ts'
import { askFor, closedSoon, openReview, scenario } from './manual-cases.ts'
import { permissions, pickMode } from './permission-cases.ts'

/** The file `path` in the workspace once it holds `content`, or what it
 *  holds (or `(missing)`) when it never does. */
async function fileWith(workspace: string, path: string, content: string): Promise<string> {
  const file = join(workspace, path)
  const readNow = () => (existsSync(file) ? readFileSync(file, 'utf8') : '(missing)')
  return waitFor(
    async () => (readNow() === content ? readNow() : undefined),
    `${path} with its content`,
  ).catch(readNow)
}

/** Whether the page scrolls sideways (something wider than the window). */
function scrollsSideways(page: Page): Promise<boolean> {
  return page.evaluate(
    () => document.documentElement.scrollWidth > document.documentElement.clientWidth,
  )
}

const focusedId = (page: Page) => page.evaluate(() => document.activeElement?.id ?? '')

/** The protected window's own cases: what it shows, and deciding in it
 *  from the keyboard, after a reload and for a form. They need a room in
 *  ask-for-approval, so they run before the permission cases. */
export const protectedCases: CaseDefinition[] = [
  {
    id: 'protected-approval-narrow',
    title:
      'From a workbench 760 px wide: the card keeps its buttons and the composer in view, the protected window fits',
    screenshots: ['protected-approval-narrow.png', 'approval-review-open-narrow.png'],
    async run(context) {
      const page = await context.driver.workbench()
      await context.driver.setViewport({ width: 760, height: 600 })
      try {
        const approval = await askFor(context, page, 'write narrow-review.txt reviewed at 760 px')
        const seen = await placements(page, [
          UI.cardReview(approval.id),
          UI.cardDeny(approval.id),
          UI.composerInput,
          UI.composerSend,
        ])
        const hidden = seen.filter((placement) => !placement.inside || !placement.hit)
        context.check(
          "the card's buttons and the composer are on screen at 760×600",
          seen.length === 4 && hidden.length === 0,
          seen.map((placement) => `${placement.what} ${placement.box}`).join('; '),
        )
        const consent = await openReview(context, page, approval.id)
        const reviewing = `${UI.card(approval.id)} .card__live`
        await page.waitForSelector(reviewing, { timeout: WAIT_TIMEOUT_MS })
        context.check(
          'the card says the protected window is open',
          ((await page.textContent(reviewing)) ?? '').includes('Decide there'),
        )
        context.check(
          'the protected window does not scroll sideways',
          !(await scrollsSideways(consent.page)),
        )
        const buttons = await placements(consent.page, [
          '#assent-deny',
          '#assent-allow-once',
          '#assent-allow-always',
        ])
        context.check(
          "the protected window's buttons are on screen",
          buttons.length === 3 && buttons.every((placement) => placement.inside && placement.hit),
          buttons.map((placement) => `${placement.what} ${placement.box}`).join('; '),
        )
        await context.screenshot(
          consent.page,
          'protected-approval-narrow.png',
          'The protected window opened from a workbench 760 px wide',
        )
        await context.screenshot(
          page,
          'approval-review-open-narrow.png',
          'The workbench at 760×600 while its protected window is open',
        )
        await clickToDecide(consent.page, '#assent-deny')
        context.check('the window closes after the decision', await closedSoon(consent))
      } finally {
        await context.driver.setViewport({ width: 1280, height: 800 })
      }
    },
  },
  {
    id: 'protected-always-allow-scope',
    title:
      'Always allow says what it will remember before the click, and remembers exactly that command',
    screenshots: ['protected-always-allow-scope.png'],
    async run(context) {
      const page = await context.driver.workbench()
      const { roomId } = scenario(context)
      const approval = await askFor(context, page, 'run echo always-allowed')
      const consent = await openReview(context, page, approval.id)
      const scope = (await consent.page.textContent('#assent-consequences')) ?? ''
      context.check(
        'under the buttons it says what Always allow remembers',
        scope.includes('Always allow remembers this exact command'),
        scope,
      )
      await context.screenshot(
        consent.page,
        'protected-always-allow-scope.png',
        'What Always allow would remember, said before the click',
      )
      await clickToDecide(consent.page, '#assent-allow-always')
      context.check('the window closes after the decision', await closedSoon(consent))
      await page.waitForSelector(`${UI.cardOutcome(approval.id)}[data-outcome="always-allowed"]`, {
        timeout: WAIT_TIMEOUT_MS,
      })
      const grants = await gui<{ body: { grants: Array<{ scope?: string; command: unknown }> } }>(
        page,
        'grants',
        roomId,
      )
      const remembered = grants.body.grants.map((grant) => [grant.scope, grant.command])
      context.check(
        'it remembered that exact command and nothing wider',
        JSON.stringify(remembered) === JSON.stringify([['command', ['echo', 'always-allowed']]]),
        JSON.stringify(remembered),
      )
      const calls = async () => (await roomTimeline(page, roomId)).toolCalls
      const before = (await calls()).length
      const opened = await context.driver.consentWindowsOpened()
      // Straight to the runtime: the composer drops the same text sent again
      // this soon, as a double click.
      await gui(page, 'sendMessage', roomId, {
        clientRequestId: 'always-allowed-again',
        text: 'run echo always-allowed',
      })
      // The call this message starts is the first after those there were.
      const ran = await waitFor(async () => {
        const next = (await calls())[before]
        return next && next.status === 'succeeded' ? next : undefined
      }, 'the same command to run again')
      context.check(
        'the same command then runs without asking',
        ran.approvalId === null && (await context.driver.consentWindowsOpened()) === opened,
        JSON.stringify(ran),
      )
    },
  },
  {
    id: 'protected-long-action',
    title:
      'An action taller than the window: Allow waits until its end was scrolled into view, and the window says so',
    screenshots: ['protected-long-action.png'],
    async run(context) {
      const page = await context.driver.workbench()
      const content = Array.from({ length: 600 }, (_, index) => `word${index}`).join(' ')
      const approval = await askFor(context, page, `write long-action.txt ${content}`)
      const consent = await openReview(context, page, approval.id)
      const cue = (await consent.page.textContent('#assent-scroll-cue')) ?? ''
      context.check(
        'the window says the action continues and Allow waits for its end',
        (await consent.page.isVisible('#assent-scroll-cue')) && cue.includes('scrolled to its end'),
        cue,
      )
      context.check(
        'Allow once and Always allow are off while the end is out of view',
        (await consent.page.isDisabled('#assent-allow-once')) &&
          (await consent.page.isDisabled('#assent-allow-always')),
      )
      context.check(
        'the end of the action is below the window',
        !(await placements(consent.page, ['#assent-action-end']))[0]?.inside,
      )
      await context.screenshot(
        consent.page,
        'protected-long-action.png',
        'An action taller than the window: the cue, and Allow off until its end',
      )
      await consent.page.locator('#assent-action-end').scrollIntoViewIfNeeded()
      await consent.page.waitForSelector('#assent-allow-once:not([disabled])', {
        timeout: WAIT_TIMEOUT_MS,
      })
      await clickToDecide(consent.page, '#assent-allow-once')
      context.check('the window closes after the decision', await closedSoon(consent))
      const written = await fileWith(context.driver.workspace, 'long-action.txt', content)
      context.check('the whole content was written', written === content, written.slice(0, 80))
    },
  },
  {
    id: 'protected-keyboard-allow',
    title: 'Without a mouse: Tab to Allow once, wait a moment, Space; the write runs',
    screenshots: ['protected-keyboard-allow.png'],
    async run(context) {
      const page = await context.driver.workbench()
      const approval = await askFor(context, page, 'write keyboard.txt allowed from the keyboard')
      const consent = await openReview(context, page, approval.id)
      await consent.page.waitForSelector('#assent-allow-once:not([disabled])', {
        timeout: WAIT_TIMEOUT_MS,
      })
      context.check('Deny has the focus first', (await focusedId(consent.page)) === 'assent-deny')
      await consent.page.keyboard.press('Tab')
      const focused = await focusedId(consent.page)
      context.check('Tab moves the focus to Allow once', focused === 'assent-allow-once', focused)
      await context.screenshot(
        consent.page,
        'protected-keyboard-allow.png',
        'Allow once focused from the keyboard',
      )
      // The person waits a moment: the keyboard rule counts Space only once
      // the enable delay has passed since the key press that moved the focus.
      await new Promise((resolve) => setTimeout(resolve, BUTTON_ENABLE_DELAY_MS * 2))
      await pressSpaceToDecide(consent.page)
      context.check('Space decides, and the window closes', await closedSoon(consent))
      const decided = await waitFor(async () => {
        const current = await approvalStatus(page, scenario(context).roomId, approval.id)
        return current?.status === 'pending' ? undefined : current
      }, 'the decision')
      context.check(
        'the decision is Allow once',
        decided.status === 'allowed' && decided.decidedBy === 'user',
        JSON.stringify(decided),
      )
      const written = await fileWith(
        context.driver.workspace,
        'keyboard.txt',
        'allowed from the keyboard',
      )
      context.check('the file was written', written === 'allowed from the keyboard', written)
    },
  },
  {
    id: 'protected-reload',
    title: 'A reloaded protected window shows its prompt again, timed afresh, and then decides',
    screenshots: ['protected-reload.png'],
    async run(context) {
      const page = await context.driver.workbench()
      const approval = await askFor(context, page, 'write reloaded.txt decided after a reload')
      const consent = await openReview(context, page, approval.id)
      await consent.page.reload()
      const title = await waitFor(async () => {
        const text = (await consent.page.textContent('#assent-title').catch(() => '')) ?? ''
        return text.includes('reloaded.txt') ? text : undefined
      }, 'the prompt shown again after the reload')
      context.check(
        'the reloaded window shows the same prompt',
        title.includes('reloaded.txt'),
        title,
      )
      context.check(
        'the approval is still pending',
        (await approvalStatus(page, scenario(context).roomId, approval.id))?.status === 'pending',
      )
      await consent.page.waitForSelector('#assent-allow-once:not([disabled])', {
        timeout: WAIT_TIMEOUT_MS,
      })
      await context.screenshot(
        consent.page,
        'protected-reload.png',
        'The protected window after a reload: its prompt, shown again',
      )
      await clickToDecide(consent.page, '#assent-allow-once')
      context.check('the window closes after the decision', await closedSoon(consent))
      const written = await fileWith(
        context.driver.workspace,
        'reloaded.txt',
        'decided after a reload',
      )
      context.check('the write ran', written === 'decided after a reload', written)
    },
  },
  {
    id: 'protected-sensitive-form',
    title: 'A sensitive form opens in the protected window; its value reaches the agent only',
    screenshots: ['protected-sensitive-form.png'],
    async run(context) {
      const page = await context.driver.workbench()
      const { roomId } = scenario(context)
      const secret = 'smoke-token-4c1d-never-shown'
      const schema = {
        type: 'object',
        properties: { token: { type: 'string', title: 'Deploy token', format: 'password' } },
        required: ['token'],
      }
      await sendViaComposer(page, `form The deploy token :: ${JSON.stringify(schema)}`)
      const open = '[data-testid="open-requests"] [data-testid="form-open-protected"]'
      await page.waitForSelector(open, { timeout: WAIT_TIMEOUT_MS })
      context.check(
        'the card offers no field to type it into',
        (await page
          .locator('[data-testid="open-requests"] [data-testid="form-card"] input')
          .count()) === 0,
      )
      await page.click(open)
      const consent = await context.driver.nextConsentWindow()
      const field = consent.page.locator('#assent-form input[type="password"]')
      await field.waitFor({ timeout: WAIT_TIMEOUT_MS })
      await field.fill(secret)
      await consent.page.waitForSelector('#assent-submit:not([disabled])', {
        timeout: WAIT_TIMEOUT_MS,
      })
      await context.screenshot(
        consent.page,
        'protected-sensitive-form.png',
        'A sensitive form in the protected window, its value masked',
      )
      await clickToDecide(consent.page, '#assent-submit')
      context.check('the window closes after Send', await closedSoon(consent))
      const said = await waitFor(async () => {
        const text = (await roomTimeline(page, roomId)).messages
          .map((message) => message.text)
          .join('\n')
        return text.includes('Thanks, I received: token.') ? text : undefined
      }, "the agent's receipt")
      context.check('the agent received the field, named only', !said.includes(secret))
      context.check('the workbench never held the value', !(await page.content()).includes(secret))
    },
  },
  {
    id: 'protected-mode-change-full-access',
    title:
      'Choosing full access: the picker and the protected window say what it gives up, in a danger style; Cancel changes nothing',
    screenshots: ['protected-mode-change-full-access.png', 'permission-picker-full-access.png'],
    async run(context) {
      const page = await context.driver.workbench()
      const { roomId } = scenario(context)
      const before = await permissions(page, roomId)
      await page.click(UI.modePicker)
      const option = UI.modeOption('full-access')
      await page.waitForSelector(option, { state: 'visible', timeout: WAIT_TIMEOUT_MS })
      const pickerLook = await page.$eval(option, (element) => ({
        danger: element.classList.contains('picker__option--danger'),
        givesUp: element.querySelector('[data-testid="mode-gives-up"]')?.textContent ?? '',
      }))
      context.check(
        "the picker's full-access option is set apart and says what it gives up",
        pickerLook.danger && pickerLook.givesUp.includes('You give up being asked'),
        JSON.stringify(pickerLook),
      )
      await context.screenshot(
        page,
        'permission-picker-full-access.png',
        'The picker: full access set apart, with what it gives up',
      )
      await page.keyboard.press('Escape')
      const consent = await pickMode(context, page, 'full-access')
      const look = await consent.page.evaluate(() => {
        const givesUp = document.getElementById('assent-mode-gives-up')
        const confirm = document.getElementById('assent-confirm')
        return {
          givesUp: givesUp?.textContent ?? '',
          shown: givesUp !== null && !givesUp.hidden,
          border: givesUp ? getComputedStyle(givesUp).borderTopColor : '',
          background: givesUp ? getComputedStyle(givesUp).backgroundColor : '',
          confirm: confirm?.textContent?.trim() ?? '',
          confirmDanger: confirm?.className.includes('danger') ?? false,
          page: getComputedStyle(document.body).backgroundColor,
        }
      })
      context.check(
        'the window says what full access gives up',
        look.shown && look.givesUp.includes('You will no longer be asked'),
        look.givesUp,
      )
      context.check(
        'in a danger style no safe mode uses',
        look.confirmDanger && look.confirm === 'Give full access' && look.background !== look.page,
        JSON.stringify(look),
      )
      await context.screenshot(
        consent.page,
        'protected-mode-change-full-access.png',
        'Raising a room to full access: what the person gives up',
      )
      await clickToDecide(consent.page, '#assent-cancel')
      context.check('Cancel closes the window', await closedSoon(consent))
      const after = await permissions(page, roomId)
      context.check(
        'mode and revision are unchanged',
        after.mode === before.mode && after.revision === before.revision,
        JSON.stringify(after),
      )
    },
  },
]
