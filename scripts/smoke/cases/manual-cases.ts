import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import type { CaseContext, CaseDefinition } from '../case-runner.ts'
import type { SmokeConsentWindow } from '../drivers/smoke-driver.ts'
import {
  UI,
  approvalStatus,
  createRoomViaUi,
  gui,
  newPendingApproval,
  roomApprovals,
  sendViaComposer,
  waitFor,
} from '../workbench-ui.ts'

export interface ScenarioState {
  roomId: string
  known: Set<string>
  globalSettingsBefore: string
}

export function scenario(context: CaseContext): ScenarioState {
  const state = context.state as Partial<ScenarioState>
  if (!state.roomId || !state.known) throw new Error('the room from the first case is missing')
  return state as ScenarioState
}

/** Sends a message through the composer and returns the approval it asks for. */
export async function askFor(context: CaseContext, page: Page, text: string) {
  const state = scenario(context)
  await sendViaComposer(page, text)
  const approval = await newPendingApproval(page, state.roomId, state.known)
  state.known.add(approval.id)
  await page.waitForSelector(UI.card(approval.id))
  return approval
}

/** Opens the protected review of a card and waits until its buttons are enabled. */
export async function openReview(
  context: CaseContext,
  page: Page,
  approvalId: string,
  via: 'review' | 'deny' = 'review',
) {
  await page.click(via === 'review' ? UI.cardReview(approvalId) : UI.cardDeny(approvalId))
  const consent = await context.driver.nextConsentWindow()
  await consent.page.waitForSelector('#assent-deny:not([disabled])', { timeout: 15_000 })
  return consent
}

export async function closedSoon(consent: SmokeConsentWindow): Promise<boolean> {
  try {
    await waitFor(async () => (consent.isOpen() ? undefined : true), 'the window to close', 10_000)
    return true
  } catch {
    return false
  }
}

async function outcomeText(page: Page, approvalId: string): Promise<string> {
  await page.waitForSelector(UI.cardOutcome(approvalId), { timeout: 15_000 })
  return (await page.textContent(UI.cardOutcome(approvalId)))?.trim() ?? ''
}

export const manualCases: CaseDefinition[] = [
  {
    id: 'ui-create-and-send',
    title: 'Create a direct room in the workbench and send a message that needs a write',
    async run(context) {
      const page = await context.driver.workbench()
      const { client } = await context.driver.runtime()
      const settings = await client.raw('GET', '/v1/settings/global')
      context.state.globalSettingsBefore = JSON.stringify(settings.body)
      await createRoomViaUi(page, {
        agent: 'assistant',
        workspace: context.driver.workspace,
        title: 'Smoke room',
      })
      type Rooms = { body: { rooms: Array<{ id: string; title: string; mode: string }> } }
      const listed = async () => (await gui<Rooms>(page, 'listRooms')).body.rooms
      // Creating the room is asynchronous: wait until the runtime lists it.
      const room = await waitFor(
        async () => (await listed()).find((candidate) => candidate.title === 'Smoke room'),
        'the new room',
      ).catch(() => undefined)
      const rooms = { body: { rooms: await listed() } }
      context.check(
        'the room exists in the runtime',
        room !== undefined,
        JSON.stringify(rooms.body.rooms.map((r) => r.title)),
      )
      context.check(
        'a new room starts at ask-for-approval',
        room?.mode === 'ask-for-approval',
        room?.mode ?? '',
      )
      context.state.roomId = room!.id
      context.state.known = new Set<string>()
      await context.screenshot(
        page,
        'permission-ask-for-approval.png',
        'The picker shows ask-for-approval for a new room',
      )
      const approval = await askFor(context, page, 'write notes.txt hello from the smoke scenario')
      context.check(
        'the write asks for approval',
        approval.toolName === 'write_file',
        approval.toolName,
      )
      const status = (await page.textContent(UI.statusLine)) ?? ''
      context.check(
        'the status line waits for confirmation of the tool',
        status.includes('write_file'),
        status,
      )
      context.check(
        'nothing was written yet',
        !existsSync(join(context.driver.workspace, 'notes.txt')),
      )
      context.state.firstApproval = approval.id
      await context.screenshot(
        page,
        'approval-inline-card.png',
        'A pending approval card above the composer',
      )
    },
  },
  {
    id: 'manual-allow',
    title: 'Review, a trusted click on "Allow once": the file exists and the card says Approved',
    async run(context) {
      const page = await context.driver.workbench()
      const approvalId = context.state.firstApproval as string
      const consent = await openReview(context, page, approvalId)
      await context.screenshot(
        consent.page,
        'protected-approval.png',
        'The protected window shows the exact action',
      )
      const shown = (await consent.page.textContent('body')) ?? ''
      context.check(
        'the window shows the full content to be written',
        shown.includes('hello from the smoke scenario'),
      )
      await consent.page.click('#assent-allow-once')
      context.check('the window closes after the decision', await closedSoon(consent))
      const file = join(context.driver.workspace, 'notes.txt')
      // The tool may still be writing when the file appears: wait for the
      // content, and report what is there if it never arrives.
      const readNow = () => (existsSync(file) ? readFileSync(file, 'utf8') : '(missing)')
      const content = await waitFor(
        async () => (readNow() === 'hello from the smoke scenario' ? readNow() : undefined),
        'notes.txt with the approved content',
      ).catch(readNow)
      context.check(
        'the file exists with the approved content',
        content === 'hello from the smoke scenario',
        content,
      )
      const outcome = await outcomeText(page, approvalId)
      context.check('the card says Approved', /Approved/.test(outcome), outcome)
    },
  },
  {
    id: 'manual-deny',
    title:
      'Deny in the protected window: the target file does not exist and the card says Rejected',
    async run(context) {
      const page = await context.driver.workbench()
      const approval = await askFor(context, page, 'write denied.txt this must never be written')
      const consent = await openReview(context, page, approval.id, 'deny')
      await consent.page.click('#assent-deny')
      context.check('the window closes after the decision', await closedSoon(consent))
      const outcome = await outcomeText(page, approval.id)
      context.check('the card says Rejected', /Rejected/.test(outcome), outcome)
      context.check(
        'the target file does not exist',
        !existsSync(join(context.driver.workspace, 'denied.txt')),
      )
    },
  },
  {
    id: 'scripted-activation-refused',
    title: 'Scripted activation in the consent window is ignored; only a real click allows',
    async run(context) {
      const page = await context.driver.workbench()
      const state = scenario(context)
      const approval = await askFor(context, page, 'write scripted.txt allowed only by a person')
      const consent = await openReview(context, page, approval.id)
      const bridge = await consent.page.evaluate(
        () => typeof (window as unknown as Record<string, unknown>).assentGui,
      )
      context.check('the consent window has no window.assentGui', bridge === 'undefined', bridge)
      await consent.page.evaluate(() => document.getElementById('assent-allow-once')?.click())
      await new Promise((resolve) => setTimeout(resolve, 120))
      const after = await approvalStatus(page, state.roomId, approval.id)
      context.check(
        'a main-world click() leaves it pending after 120 ms',
        after?.status === 'pending',
        after?.status,
      )
      await consent.page.click('#assent-allow-once')
      context.check('the real click closes the window', await closedSoon(consent))
      const decided = await waitFor(async () => {
        const current = await approvalStatus(page, state.roomId, approval.id)
        return current?.status === 'pending' ? undefined : current
      }, 'the decision')
      context.check('only the real click allowed it', decided.status === 'allowed', decided.status)
    },
  },
]

export async function roomApprovalIds(page: Page, roomId: string): Promise<string[]> {
  return (await roomApprovals(page, roomId)).map((approval) => approval.id)
}
