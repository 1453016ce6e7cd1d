import { existsSync, mkdirSync, readFileSync, realpathSync } from 'node:fs'
import { join } from 'node:path'
import type { CaseDefinition } from '../case-context.ts'
import {
  UI,
  WAIT_TIMEOUT_MS,
  approvalStatus,
  newPendingApproval,
  sendViaComposer,
  waitFor,
} from '../workbench-ui.ts'
import { closedSoon, scenario } from './manual-cases.ts'
import { permissions } from './permission-cases.ts'

const REPORT = 'left beside the project after a permission request'
const REASON = 'to leave the smoke report beside the project'

/**
 * An agent asks for a permission its room does not give: write access to
 * one folder outside the workspace, for this turn. The card and the
 * protected window say what widens and for how long; once allowed, the
 * write it was for still asks, runs, and the room's mode has not moved.
 */
export const permissionRequestCases: CaseDefinition[] = [
  {
    id: 'permission-request',
    title:
      'A permission request: the card and the protected window say what widens and for this turn only; allowed, the write there still asks and runs; the mode does not change',
    screenshots: ['permission-request-card.png', 'protected-permission-request.png'],
    async run(context) {
      const page = await context.driver.workbench()
      const state = scenario(context)
      const folder = join(context.driver.outsideDir, 'reports')
      mkdirSync(folder, { recursive: true })
      const real = realpathSync(folder)
      const target = join(folder, 'report.txt')
      const before = await permissions(page, state.roomId)
      await sendViaComposer(
        page,
        [`permit write ${folder} | ${REASON}`, `write ${target} ${REPORT}`].join('\n'),
      )
      const request = await newPendingApproval(page, state.roomId, state.known)
      state.known.add(request.id)
      context.check(
        'the agent asks with a permission-request approval',
        request.kind === 'permission-request' && request.toolName === 'request_permissions',
        `${request.kind} ${request.toolName}`,
      )
      await page.waitForSelector(UI.permissionCard(request.id), { timeout: WAIT_TIMEOUT_MS })
      const card = (await page.textContent(UI.permissionCard(request.id))) ?? ''
      context.check(
        'the card is a Permissions request naming the folder, this turn only, and the reason',
        card.includes('Permissions request') &&
          card.includes(real) &&
          card.includes('This turn only') &&
          card.includes(REASON),
        card.slice(0, 300),
      )
      await context.screenshot(page, 'permission-request-card.png', 'A Permissions request card')

      await page.click(`${UI.permissionCard(request.id)} [data-testid="approval-review"]`)
      const consent = await context.driver.nextConsentWindow()
      await consent.page.waitForSelector('#assent-deny:not([disabled])', {
        timeout: WAIT_TIMEOUT_MS,
      })
      const shown = (await consent.page.textContent('body')) ?? ''
      context.check(
        'the protected window asks for write access to that folder for this turn',
        shown.includes(`write in ${real} for this turn`) &&
          shown.includes('Write access to one more folder') &&
          shown.includes('This turn only') &&
          shown.includes(REASON),
        shown.slice(0, 300),
      )
      context.check(
        'the protected window offers no Always allow',
        await consent.page.isHidden('#assent-allow-always'),
      )
      await context.screenshot(
        consent.page,
        'protected-permission-request.png',
        'The protected window for a permission request: what widens and for how long',
      )
      await consent.page.click('#assent-allow-once')
      context.check('the window closes after the decision', await closedSoon(consent))

      // The write it was for asks like any write in this room.
      const write = await newPendingApproval(page, state.roomId, state.known)
      state.known.add(write.id)
      context.check(
        'the write outside the workspace still asks',
        write.kind === 'apply-changes' && write.toolName === 'write_file',
        `${write.kind} ${write.toolName}`,
      )
      context.check('nothing was written yet', !existsSync(target))
      await page.click(UI.cardReview(write.id))
      const second = await context.driver.nextConsentWindow()
      await second.page.waitForSelector('#assent-allow-once:not([disabled])', {
        timeout: WAIT_TIMEOUT_MS,
      })
      await second.page.click('#assent-allow-once')
      context.check('the second window closes', await closedSoon(second))
      const readNow = () => (existsSync(target) ? readFileSync(target, 'utf8') : '(missing)')
      const content = await waitFor(
        async () => (readNow() === REPORT ? readNow() : undefined),
        'the report in the granted folder',
      ).catch(readNow)
      context.check('the write landed in the granted folder', content === REPORT, content)
      const decided = await approvalStatus(page, state.roomId, request.id)
      context.check(
        'the person allowed the request',
        decided?.status === 'allowed' && decided.decidedBy === 'user',
        JSON.stringify(decided),
      )
      const after = await permissions(page, state.roomId)
      context.check(
        "the room's mode and revision did not change",
        after.mode === before.mode && after.revision === before.revision,
        JSON.stringify(after),
      )
    },
  },
]
