import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import type { CaseContext, CaseDefinition } from '../case-context.ts'
import { clickToDecide } from '../consent-keys.ts'
import type { SmokeConsentWindow } from '../drivers/smoke-driver.ts'
import {
  UI,
  approvalStatus,
  createRoomViaUi,
  gui,
  WAIT_TIMEOUT_MS,
  newPendingApproval,
  sendViaComposer,
  waitFor,
} from '../workbench-ui.ts'

export interface ScenarioState {
  roomId: string
  known: Set<string>
  /** `GET /v1/settings/global` as the host started, before any case. */
  globalSettingsBefore: string
}

export const SCENARIO_ROOM_TITLE = 'Smoke room'

export function scenario(context: CaseContext): ScenarioState {
  const state = context.state as Partial<ScenarioState>
  if (!state.roomId || !state.known) throw new Error('the scenario room is missing')
  return state as ScenarioState
}

type Rooms = { body: { rooms: Array<{ id: string; title: string; mode: string }> } }

/** Creates the scenario's room in the workbench, as a person does, and
 *  waits until the runtime lists it (undefined if it never does). */
export async function createScenarioRoom(page: Page, workspace: string) {
  await createRoomViaUi(page, { agent: 'assistant', workspace, title: SCENARIO_ROOM_TITLE })
  const listed = async () => (await gui<Rooms>(page, 'listRooms')).body.rooms
  const room = await waitFor(
    async () => (await listed()).find((candidate) => candidate.title === SCENARIO_ROOM_TITLE),
    'the new room',
  ).catch(() => undefined)
  return { room, titles: (await listed()).map((candidate) => candidate.title) }
}

/** For a case run without the one that creates the room (`--grep`): the
 *  room it would have made, without that case's assertions. */
export async function ensureScenarioRoom(
  driver: CaseContext['driver'],
  state: Record<string, unknown>,
): Promise<void> {
  if (state.roomId) return
  const { room, titles } = await createScenarioRoom(await driver.workbench(), driver.workspace)
  if (!room) throw new Error(`the scenario room was not created (rooms: ${titles.join(', ')})`)
  state.roomId = room.id
  state.known = new Set<string>()
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
  await consent.page.waitForSelector('#assent-deny:not([disabled])', { timeout: WAIT_TIMEOUT_MS })
  return consent
}

export async function closedSoon(consent: SmokeConsentWindow): Promise<boolean> {
  try {
    await waitFor(async () => (consent.isOpen() ? undefined : true), 'the window to close')
    return true
  } catch {
    return false
  }
}

async function outcomeText(page: Page, approvalId: string): Promise<string> {
  await page.waitForSelector(UI.cardOutcome(approvalId), { timeout: WAIT_TIMEOUT_MS })
  return (await page.textContent(UI.cardOutcome(approvalId)))?.trim() ?? ''
}

export const manualCases: CaseDefinition[] = [
  {
    id: 'ui-create-and-send',
    title: 'Create a direct room in the workbench and send a message that needs a write',
    createsRoom: true,
    screenshots: ['permission-ask-for-approval.png', 'approval-inline-card.png'],
    async run(context) {
      const page = await context.driver.workbench()
      const { room, titles } = await createScenarioRoom(page, context.driver.workspace)
      context.check('the room exists in the runtime', room !== undefined, JSON.stringify(titles))
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
    screenshots: ['protected-approval.png'],
    async run(context) {
      const page = await context.driver.workbench()
      // The first case's pending write, or (run alone) the same write asked now.
      const approvalId =
        (context.state.firstApproval as string | undefined) ??
        (await askFor(context, page, 'write notes.txt hello from the smoke scenario')).id
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
      await clickToDecide(consent.page, '#assent-allow-once')
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
      await clickToDecide(consent.page, '#assent-deny')
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
    title:
      'Scripted activation in the protected window is ignored; the real click that follows decides',
    async run(context) {
      const page = await context.driver.workbench()
      const state = scenario(context)
      const approval = await askFor(context, page, 'write scripted.txt allowed only by a person')
      const consent = await openReview(context, page, approval.id)
      const bridge = await consent.page.evaluate(
        () => typeof (window as unknown as Record<string, unknown>).assentGui,
      )
      context.check('the protected window has no window.assentGui', bridge === 'undefined', bridge)
      // A script's click() on Allow, then a person's click on Deny. Both
      // reach main through the same channel in this order, so had the
      // scripted Allow been taken it would have decided first (allowed) and
      // the Deny would find the prompt answered. No fixed wait is needed.
      await consent.page.evaluate(() => document.getElementById('assent-allow-once')?.click())
      await clickToDecide(consent.page, '#assent-deny')
      context.check('the real click closes the window', await closedSoon(consent))
      const decided = await waitFor(async () => {
        const current = await approvalStatus(page, state.roomId, approval.id)
        return current?.status === 'pending' ? undefined : current
      }, 'the decision')
      context.check(
        "the real click's Deny decided it, not the scripted Allow before it",
        decided.status === 'denied',
        decided.status,
      )
      context.check(
        'nothing was written',
        !existsSync(join(context.driver.workspace, 'scripted.txt')),
      )
    },
  },
]
