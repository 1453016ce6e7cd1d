import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import type { CaseContext, CaseDefinition } from '../case-runner.ts'
import {
  UI,
  approvalStatus,
  gui,
  insideViewport,
  openRoom,
  roomApprovals,
  sendViaComposer,
  waitFor,
} from '../workbench-ui.ts'
import { askFor, closedSoon, openReview, scenario } from './manual-cases.ts'
import { pressEscapeToCancel } from '../consent-keys.ts'

interface Permissions {
  mode: string
  revision: number
}

async function permissions(page: Page, roomId: string): Promise<Permissions> {
  const response = await gui<{ status: number; body: Permissions }>(page, 'permissions', roomId)
  return response.body
}

/** Picks a mode in the composer's picker and waits for the protected window. */
async function pickMode(context: CaseContext, page: Page, mode: string) {
  await page.click(UI.modePicker)
  await page.click(UI.modeOption(mode))
  const consent = await context.driver.nextConsentWindow()
  await consent.page.waitForSelector('#assent-cancel:not([disabled])', { timeout: 15_000 })
  return consent
}

async function changeMode(context: CaseContext, page: Page, mode: string, screenshot: string) {
  const state = scenario(context)
  const consent = await pickMode(context, page, mode)
  await consent.page.click('#assent-confirm')
  context.check(`the ${mode} window closes after confirming`, await closedSoon(consent))
  const current = await waitFor(async () => {
    const now = await permissions(page, state.roomId)
    return now.mode === mode ? now : undefined
  }, `mode ${mode}`)
  context.check(`the runtime reports ${mode}`, current.mode === mode, JSON.stringify(current))
  await page.waitForSelector(`${UI.modePicker}[data-mode="${mode}"]`, { timeout: 10_000 })
  await context.screenshot(page, screenshot, `The picker shows ${mode}, read back from the runtime`)
}

async function toolCallStatus(
  page: Page,
  roomId: string,
  predicate: (args: Record<string, unknown>) => boolean,
) {
  return waitFor(async () => {
    const timeline = await gui<{
      body: { toolCalls: Array<{ status: string; arguments: Record<string, unknown> }> }
    }>(page, 'timeline', roomId)
    const call = timeline.body.toolCalls
      .filter((candidate) => predicate(candidate.arguments))
      .at(-1)
    return call && !['awaiting-approval', 'running'].includes(call.status) ? call.status : undefined
  }, 'the tool call to settle')
}

export const displayCases: CaseDefinition[] = [
  {
    id: 'chinese-dark',
    title: 'The protected approval window and the workbench in Chinese with the dark theme',
    async run(context) {
      const page = await context.driver.workbench()
      await page.click(UI.settingsButton)
      await page.selectOption(UI.languageSelect, 'zh-CN')
      await page.selectOption(UI.themeSelect, 'dark')
      const lang = await page.evaluate(() => document.documentElement.lang)
      context.check('the workbench is in Chinese', lang === 'zh-CN', lang)
      const approval = await askFor(context, page, 'write zh.txt 你好，世界')
      const consent = await openReview(context, page, approval.id)
      const look = await consent.page.evaluate(() => ({
        lang: document.documentElement.lang,
        theme: document.documentElement.dataset.theme,
        background: getComputedStyle(document.body).backgroundColor,
        text: document.body.innerText,
      }))
      context.check('the protected window is in Chinese', look.lang === 'zh-CN', look.lang)
      context.check(
        'the protected window uses the dark theme',
        look.theme === 'dark',
        `${look.theme} ${look.background}`,
      )
      context.check('the content shows in Chinese characters', look.text.includes('你好，世界'))
      await context.screenshot(
        consent.page,
        'protected-approval-zh-dark.png',
        'The protected window in Chinese, dark theme',
      )
      await consent.page.click('#assent-deny')
      await closedSoon(consent)
      await context.screenshot(
        page,
        'workbench-zh-dark.png',
        'The workbench in Chinese, dark theme',
      )
      await page.click(UI.settingsButton)
      await page.selectOption(UI.languageSelect, 'en')
      await page.selectOption(UI.themeSelect, 'light')
    },
  },
  {
    id: 'narrow-window',
    title: 'At 760 px the composer, the card buttons and the picker stay inside the window',
    async run(context) {
      const page = await context.driver.workbench()
      await context.driver.setViewport({ width: 760, height: 760 })
      const approval = await askFor(context, page, 'write narrow.txt a card at 760 px')
      const scroll = await page.evaluate(() => [
        document.documentElement.scrollWidth,
        document.documentElement.clientWidth,
      ])
      context.check(
        'no horizontal scrolling',
        scroll[0]! <= scroll[1]!,
        `scrollWidth ${scroll[0]} clientWidth ${scroll[1]}`,
      )
      for (const selector of [
        UI.composerInput,
        UI.composerSend,
        UI.cardReview(approval.id),
        UI.cardDeny(approval.id),
        UI.modePicker,
      ]) {
        await page.locator(selector).first().scrollIntoViewIfNeeded()
        const box = await insideViewport(page, selector)
        context.check(`${selector} is inside the viewport`, box.ok, box.detail)
      }
      await context.screenshot(
        page,
        'approval-narrow-composer.png',
        'The workbench at 760 px with a pending card',
      )
      const consent = await openReview(context, page, approval.id, 'deny')
      await consent.page.click('#assent-deny')
      await closedSoon(consent)
      await context.driver.setViewport({ width: 1280, height: 800 })
    },
  },
]

export const permissionCases: CaseDefinition[] = [
  {
    id: 'automatic-review',
    title: 'Approve-for-me: a safe write is allowed by the reviewer; a destructive command is not',
    async run(context) {
      const page = await context.driver.workbench()
      const state = scenario(context)
      await changeMode(context, page, 'approve-for-me', 'permission-approve-for-me.png')
      const before = context.driver.openConsentWindows().length
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
        'no protected window opened',
        context.driver.openConsentWindows().length === before,
      )
      for (const approval of approvals) state.known.add(approval.id)
      await page.waitForSelector(`${UI.card(reviewed!.id)} [data-testid="approval-outcome"]`)
      const card = (await page.textContent(UI.card(reviewed!.id))) ?? ''
      context.check("the card shows the reviewer's reason", card.includes(reviewed!.reason!), card)
      mkdirSync(join(context.driver.workspace, 'precious'), { recursive: true })
      await sendViaComposer(page, 'delete -r precious')
      const verdict = await waitFor(async () => {
        const latest = (await roomApprovals(page, state.roomId)).find(
          (approval) => !state.known.has(approval.id),
        )
        return latest && (latest.status !== 'pending' || latest.decidedBy === undefined)
          ? latest
          : undefined
      }, 'the reviewer on the destructive command')
      state.known.add(verdict.id)
      context.check(
        'the destructive command is denied or escalated',
        verdict.status === 'denied' || verdict.status === 'pending',
        `${verdict.status} ${verdict.reason ?? ''}`,
      )
      context.check(
        'the folder still exists',
        existsSync(join(context.driver.workspace, 'precious')),
      )
      if (verdict.status === 'pending') {
        const consent = await openReview(context, page, verdict.id, 'deny')
        await consent.page.click('#assent-deny')
        await closedSoon(consent)
      }
    },
  },
  {
    id: 'full-access',
    title: 'Full access through the protected window really writes outside the workspace',
    async run(context) {
      const page = await context.driver.workbench()
      const state = scenario(context)
      await changeMode(context, page, 'ask-for-approval', 'permission-ask-again.png')
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
    title: 'Closing the mode-change window, or pressing Escape, changes nothing',
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
      const closing = await pickMode(context, page, 'approve-for-me')
      await closing.page.click('#assent-cancel')
      context.check('Cancel closes the window', await closedSoon(closing))
      const afterCancel = await permissions(page, state.roomId)
      context.check(
        'Cancel leaves mode and revision unchanged',
        JSON.stringify(afterCancel) === JSON.stringify(before),
        JSON.stringify(afterCancel),
      )
    },
  },
  {
    id: 'persistence',
    title: 'After reloading the workbench and restarting the runtime the chosen mode holds',
    async run(context) {
      const state = scenario(context)
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
      await openRoom(page, state.roomId)
      await page
        .waitForSelector(`${UI.modePicker}[data-mode="full-access"]`, { timeout: 15_000 })
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
    async run(context) {
      const state = scenario(context)
      await context.driver.restartRuntime({ approvalTtlMs: 4_000 })
      let page = await context.driver.reloadWorkbench()
      await openRoom(page, state.roomId)
      await changeMode(context, page, 'ask-for-approval', 'permission-ask-before-expiry.png')
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
      await context.driver.restartRuntime({ approvalTtlMs: 120_000 })
      await context.driver.reloadWorkbench()
    },
  },
]

/** Runs last: compares the global settings before and after everything. */
export const closingCases: CaseDefinition[] = [
  {
    id: 'global-settings-unchanged',
    title: 'Global settings before and after the whole scenario are deep-equal',
    async run(context) {
      const { client } = await context.driver.runtime()
      const after = JSON.stringify((await client.raw('GET', '/v1/settings/global')).body)
      const before = String(context.state.globalSettingsBefore)
      context.check('global settings are unchanged by every room change', after === before, after)
    },
  },
]
