import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import type { CaseContext, CaseDefinition } from '../case-context.ts'
import {
  UI,
  WAIT_TIMEOUT_MS,
  approvalStatus,
  findInTimeline,
  gui,
  openRoom,
  roomApprovals,
  roomTimeline,
  sendViaComposer,
  timelineToBottom,
  waitFor,
} from '../workbench-ui.ts'
import { askFor, closedSoon, openReview, scenario } from './manual-cases.ts'
import { clickToDecide, pressEscapeToCancel } from '../consent-keys.ts'
import { auditTrail } from '../audit-evidence.ts'
import { DEFAULT_APPROVAL_TTL_MS } from '../../../src/contracts/approval.ts'
import { scaledMs } from '../../test-timing.ts'

/** The shortened approval lifetime of the expiry case: long enough for a
 *  busy machine to send the message and open the review before it ends
 *  (the case fails if the window never opened), scaled like every ceiling. */
const SHORT_APPROVAL_TTL_MS = scaledMs(10_000)

interface Permissions {
  mode: string
  revision: number
}

export async function permissions(page: Page, roomId: string): Promise<Permissions> {
  const response = await gui<{ status: number; body: Permissions }>(page, 'permissions', roomId)
  return response.body
}

/** Picks a mode in the composer's picker and waits for the protected window. */
export async function pickMode(context: CaseContext, page: Page, mode: string) {
  await page.click(UI.modePicker)
  await page.click(UI.modeOption(mode))
  const consent = await context.driver.nextConsentWindow()
  await consent.page.waitForSelector('#assent-cancel:not([disabled])', {
    timeout: WAIT_TIMEOUT_MS,
  })
  return consent
}

export async function changeMode(
  context: CaseContext,
  page: Page,
  mode: string,
  screenshot: string,
) {
  const state = scenario(context)
  const consent = await pickMode(context, page, mode)
  await clickToDecide(consent.page, '#assent-confirm')
  context.check(`the ${mode} window closes after confirming`, await closedSoon(consent))
  const current = await waitFor(async () => {
    const now = await permissions(page, state.roomId)
    return now.mode === mode ? now : undefined
  }, `mode ${mode}`)
  context.check(`the runtime reports ${mode}`, current.mode === mode, JSON.stringify(current))
  await page.waitForSelector(`${UI.modePicker}[data-mode="${mode}"]`, {
    timeout: WAIT_TIMEOUT_MS,
  })
  await context.screenshot(page, screenshot, `The picker shows ${mode}, read back from the runtime`)
}

/** Changes the room's mode unless it is already `mode` (the picker opens no
 *  window for the mode the room has): a case run alone starts from a new
 *  room in ask-for-approval, not from where the case before it left. */
async function ensureMode(context: CaseContext, page: Page, mode: string, screenshot: string) {
  const state = scenario(context)
  if ((await permissions(page, state.roomId)).mode === mode) return
  await changeMode(context, page, mode, screenshot)
}

async function toolCallStatus(
  page: Page,
  roomId: string,
  predicate: (args: Record<string, unknown>) => boolean,
) {
  return waitFor(async () => {
    const call = (await roomTimeline(page, roomId)).toolCalls
      .filter((candidate) => predicate(candidate.arguments))
      .at(-1)
    return call && !['awaiting-approval', 'running'].includes(call.status) ? call.status : undefined
  }, 'the tool call to settle')
}

export const permissionCases: CaseDefinition[] = [
  {
    id: 'automatic-review',
    title: 'Approve-for-me: a safe write is allowed by the reviewer; a destructive command is not',
    screenshots: ['permission-approve-for-me.png'],
    async run(context) {
      const page = await context.driver.workbench()
      const state = scenario(context)
      await changeMode(context, page, 'approve-for-me', 'permission-approve-for-me.png')
      // Counted, not looked at: a window that opened and closed again
      // between two looks still counts.
      const openedBefore = await context.driver.consentWindowsOpened()
      await sendViaComposer(page, 'write reviewed.txt checked by the reviewer')
      const file = join(context.driver.workspace, 'reviewed.txt')
      await waitFor(async () => (existsSync(file) ? true : undefined), 'reviewed.txt')
      const approvals = await roomApprovals(page, state.roomId)
      const reviewed = approvals.find(
        (approval) => approval.decidedBy === 'agent-review' && approval.status === 'allowed',
      )
      context.check(
        'the reviewer allowed the safe write',
        reviewed !== undefined,
        JSON.stringify(approvals.at(-1)),
      )
      context.check(
        'it recorded its reason',
        (reviewed?.reason ?? '').length > 0,
        reviewed?.reason ?? '',
      )
      context.check(
        'no protected window opened for the safe write',
        (await context.driver.consentWindowsOpened()) === openedBefore,
      )
      for (const approval of approvals) state.known.add(approval.id)
      await findInTimeline(page, `${UI.card(reviewed!.id)} [data-testid="approval-outcome"]`)
      const card = (await page.textContent(UI.card(reviewed!.id))) ?? ''
      context.check("the card shows the reviewer's reason", card.includes(reviewed!.reason!), card)
      await timelineToBottom(page)
      mkdirSync(join(context.driver.workspace, 'precious'), { recursive: true })
      await sendViaComposer(page, 'delete -r precious')
      const requested = await waitFor(
        async () =>
          (await roomApprovals(page, state.roomId)).find(
            (approval) => !state.known.has(approval.id),
          ),
        'the approval for the destructive command',
      )
      state.known.add(requested.id)
      const verdict = await reviewerVerdict(context, page, requested.id)
      context.check(
        'the destructive command is denied by the reviewer or escalated to the person',
        (verdict.approval.status === 'denied' && verdict.approval.decidedBy === 'agent-review') ||
          (verdict.approval.status === 'pending' && verdict.how !== 'decided'),
        `${verdict.approval.status} by ${verdict.approval.decidedBy ?? '-'} (${verdict.how}) ${verdict.approval.reason ?? ''}`,
      )
      context.check(
        'the folder still exists',
        existsSync(join(context.driver.workspace, 'precious')),
      )
      context.check(
        'no protected window opened for either action',
        (await context.driver.consentWindowsOpened()) === openedBefore,
        `${openedBefore} before, ${await context.driver.consentWindowsOpened()} after`,
      )
      if (verdict.approval.status === 'pending') {
        const consent = await openReview(context, page, verdict.approval.id, 'deny')
        await clickToDecide(consent.page, '#assent-deny')
        await closedSoon(consent)
      }
    },
  },
  {
    id: 'full-access',
    title: 'Full access through the protected window really writes outside the workspace',
    screenshots: ['permission-full-access.png'],
    async run(context) {
      const page = await context.driver.workbench()
      const state = scenario(context)
      await ensureMode(context, page, 'ask-for-approval', 'permission-ask-again.png')
      const outside = join(context.driver.outsideDir, 'outside.txt')
      await sendViaComposer(page, `write ${outside} written with full access`)
      const refused = await toolCallStatus(page, state.roomId, (args) => args.path === outside)
      context.check(
        'in ask-for-approval the outside write is refused without a prompt',
        refused === 'refused',
        refused,
      )
      context.check('the outside file does not exist yet', !existsSync(outside))
      await changeMode(context, page, 'full-access', 'permission-full-access.png')
      await sendViaComposer(page, `write ${outside} written with full access`)
      await waitFor(async () => (existsSync(outside) ? true : undefined), 'the outside file')
      context.check('in full access the outside file was created', existsSync(outside), outside)
    },
  },
  {
    id: 'cancel-mode-change',
    title: 'Escape, Cancel or closing the mode-change window itself changes nothing',
    async run(context) {
      const page = await context.driver.workbench()
      const state = scenario(context)
      const before = await permissions(page, state.roomId)
      const escape = await pickMode(context, page, 'approve-for-me')
      await pressEscapeToCancel(escape.page)
      context.check('Escape closes the window', await closedSoon(escape))
      const afterEscape = await permissions(page, state.roomId)
      context.check(
        'Escape leaves mode and revision unchanged',
        JSON.stringify(afterEscape) === JSON.stringify(before),
        JSON.stringify(afterEscape),
      )
      const cancelling = await pickMode(context, page, 'approve-for-me')
      await clickToDecide(cancelling.page, '#assent-cancel')
      context.check('Cancel closes the window', await closedSoon(cancelling))
      const afterCancel = await permissions(page, state.roomId)
      context.check(
        'Cancel leaves mode and revision unchanged',
        JSON.stringify(afterCancel) === JSON.stringify(before),
        JSON.stringify(afterCancel),
      )
      const closing = await pickMode(context, page, 'approve-for-me')
      await closing.close()
      context.check('closing the window itself closes it', await closedSoon(closing))
      // Main learns of the close asynchronously. Rather than wait a while and
      // look, take one more step through main after it: a new mode-change
      // window opens and is cancelled, and only then are mode and revision
      // read. Anything the close had set in motion came before that.
      const after = await pickMode(context, page, 'approve-for-me')
      await clickToDecide(after.page, '#assent-cancel')
      context.check(
        'a later mode-change window opens and cancels after the close',
        await closedSoon(after),
      )
      const afterClose = await permissions(page, state.roomId)
      context.check(
        'closing the window leaves mode and revision unchanged',
        afterClose.mode === before.mode && afterClose.revision === before.revision,
        JSON.stringify(afterClose),
      )
    },
  },
  {
    id: 'persistence',
    title: 'After reloading the workbench and restarting the runtime the chosen mode holds',
    async run(context) {
      const state = scenario(context)
      // After the full-access case the room is in full access; run alone,
      // the case first chooses it the way that case does.
      await ensureMode(
        context,
        await context.driver.workbench(),
        'full-access',
        'permission-full-access-again.png',
      )
      await context.driver.restartRuntime()
      const page = await context.driver.reloadWorkbench()
      const current = await waitFor(async () => {
        const response = await gui<{ status: number; body: Permissions }>(
          page,
          'permissions',
          state.roomId,
        )
        return response.status === 200 ? response.body : undefined
      }, 'the permissions after restart')
      context.check(
        'the runtime still reports full-access',
        current.mode === 'full-access',
        JSON.stringify(current),
      )
      // The workbench reopens the room the person was in, without a click.
      const reopened = await page
        .waitForSelector(`[data-testid="room-view"][data-room-id="${state.roomId}"]`, {
          timeout: WAIT_TIMEOUT_MS,
        })
        .then(() => true)
        .catch(() => false)
      context.check('the reloaded workbench reopens the room the person was in', reopened)
      await page
        .waitForSelector(`${UI.modePicker}[data-mode="full-access"]`, { timeout: WAIT_TIMEOUT_MS })
        .catch(() => undefined)
      const shown = await page.getAttribute(UI.modePicker, 'data-mode')
      context.check(
        'the picker shows full-access after the reload',
        shown === 'full-access',
        String(shown),
      )
    },
  },
  {
    id: 'approval-expiry',
    title: 'An approval left pending past its (shortened) TTL shows Expired and its window closes',
    screenshots: ['approval-expired.png'],
    async run(context) {
      const state = scenario(context)
      await context.driver.restartRuntime({ approvalTtlMs: SHORT_APPROVAL_TTL_MS })
      let page = await context.driver.reloadWorkbench()
      await openRoom(page, state.roomId)
      await ensureMode(context, page, 'ask-for-approval', 'permission-ask-before-expiry.png')
      page = await context.driver.workbench()
      const approval = await askFor(context, page, 'write expired.txt nobody answered in time')
      const consent = await openReview(context, page, approval.id)
      context.check('the window closes when the approval expires', await closedSoon(consent))
      const expired = await waitFor(async () => {
        const current = await approvalStatus(page, state.roomId, approval.id)
        return current?.status === 'expired' ? current : undefined
      }, 'the expiry')
      context.check(
        'the runtime expired it by timeout',
        expired.decidedBy === 'timeout',
        JSON.stringify(expired),
      )
      await page.waitForSelector(UI.cardOutcome(approval.id))
      const outcome = (await page.textContent(UI.cardOutcome(approval.id))) ?? ''
      context.check('the card says Expired', /Expired/.test(outcome), outcome)
      context.check(
        'nothing was written',
        !existsSync(join(context.driver.workspace, 'expired.txt')),
      )
      await context.screenshot(page, 'approval-expired.png', 'An expired approval card')
      await context.driver.restartRuntime({ approvalTtlMs: DEFAULT_APPROVAL_TTL_MS })
      await context.driver.reloadWorkbench()
    },
  },
]

/**
 * What the automatic reviewer made of an approval, waited for as an event:
 * the approval is decided (the reviewer allowed or denied it; no answer
 * within its time limit counts as a denial), or the runtime recorded a
 * `review_escalated` audit event for it (left to the person). One of the two
 * always happens; the ceiling only bounds a hang.
 */
async function reviewerVerdict(context: CaseContext, page: Page, approvalId: string) {
  const state = scenario(context)
  return waitFor(async () => {
    const approval = await approvalStatus(page, state.roomId, approvalId)
    if (!approval) return undefined
    if (approval.status !== 'pending') return { approval, how: 'decided' }
    const trail = await auditTrail(context.driver)
    const escalated = trail.events.some(
      (event) =>
        event.type === 'review_escalated' &&
        (event.subjectId === approvalId || event.payload.approvalId === approvalId),
    )
    return escalated ? { approval, how: 'review_escalated in the audit log' } : undefined
  }, 'the reviewer on the destructive command')
}

/** Runs last: compares the global settings before and after everything. */
export const closingCases: CaseDefinition[] = [
  {
    id: 'global-settings-unchanged',
    title: 'Global settings before and after the whole scenario are deep-equal',
    async run(context) {
      const { client } = await context.driver.runtime()
      const after = JSON.stringify((await client.raw('GET', '/v1/settings/global')).body)
      // Read by the run's fixture as the host started, before any case.
      const before = scenario(context).globalSettingsBefore
      context.check('global settings are unchanged by every room change', after === before, after)
    },
  },
]
