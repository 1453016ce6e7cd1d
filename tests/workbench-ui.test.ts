import { AxeBuilder } from '@axe-core/playwright'
import { existsSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  buttonsEnabled,
  chromiumAvailable,
  startHostHarness,
  type HostHarness,
} from './support/cdp-host-harness.ts'
import { eventually } from './support/runtime-harness.ts'

// The built workbench (out/renderer, rebuilt by tests/support/build-once.ts)
// on the CDP host: real Chromium, the real preload bridge, main's core and a
// real runtime. The UI is driven the way a person drives it: the form, the
// composer, the card's buttons and the protected window's own buttons.

const run = chromiumAvailable()
const SHOTS = run ? mkdtempSync(join(tmpdir(), 'assent-workbench-shots-')) : ''
if (run) console.log(`workbench screenshots: ${SHOTS}`)

const ID = {
  newRoom: '[data-testid="new-room"]',
  agent: '[data-testid="room-agent"]',
  workspace: '[data-testid="room-workspace"]',
  title: '[data-testid="room-title"]',
  create: '[data-testid="room-create"]',
  input: '[data-testid="composer-input"]',
  send: '[data-testid="composer-send"]',
  status: '[data-testid="status-line"]',
  picker: '[data-testid="mode-picker"]',
  drawer: '[data-testid="rooms-drawer-toggle"]',
  pending: '[data-testid="pending-approvals"]',
  card: (id: string) => `[data-testid="approval-card"][data-approval-id="${id}"]`,
} as const

interface Layout {
  scrollWidth: number
  clientWidth: number
  viewport: { width: number; height: number }
  outside: string[]
}

/** Measures the layout facts: nothing wider than the viewport, and the
 *  named elements fully inside it. */
function layout(page: Page, selectors: readonly string[]): Promise<Layout> {
  return page.evaluate((list) => {
    const viewport = { width: window.innerWidth, height: window.innerHeight }
    const outside: string[] = []
    for (const selector of list) {
      const element = document.querySelector(selector)
      if (!element) {
        outside.push(`${selector}: missing`)
        continue
      }
      const box = element.getBoundingClientRect()
      if (
        box.width === 0 ||
        box.left < 0 ||
        box.top < 0 ||
        box.right > viewport.width + 0.5 ||
        box.bottom > viewport.height + 0.5
      ) {
        outside.push(
          `${selector}: ${Math.round(box.left)},${Math.round(box.top)} → ${Math.round(box.right)},${Math.round(box.bottom)}`,
        )
      }
    }
    return {
      scrollWidth: document.documentElement.scrollWidth,
      clientWidth: document.documentElement.clientWidth,
      viewport,
      outside,
    }
  }, selectors)
}

interface FocusRing {
  testId: string | null
  outline: string
  outlineWidth: number
  boxShadow: string
}

/** The focused element and the ring it draws: an outline or a box shadow. */
function focusRing(page: Page): Promise<FocusRing> {
  return page.evaluate(() => {
    const element = document.activeElement as HTMLElement | null
    const style = element ? getComputedStyle(element) : undefined
    return {
      testId: element?.getAttribute('data-testid') ?? null,
      outline: style?.outlineStyle ?? 'none',
      outlineWidth: parseFloat(style?.outlineWidth ?? '0'),
      boxShadow: style?.boxShadow ?? 'none',
    }
  })
}

/** Leaves `selector` backwards and comes back to it with Tab, so the focus
 *  arrives the way a keyboard brings it (and :focus-visible applies). */
async function tabInto(page: Page, selector: string): Promise<FocusRing> {
  await page.focus(selector)
  await page.keyboard.press('Shift+Tab')
  await page.keyboard.press('Tab')
  return focusRing(page)
}

const visibleRing = (ring: FocusRing) =>
  (ring.outline !== 'none' && ring.outlineWidth >= 2) || ring.boxShadow !== 'none'

/** Serious and critical axe violations, one line each, so a failure names them. */
async function seriousViolations(page: Page, only?: string): Promise<string[]> {
  // Legacy mode runs axe inside the page itself; the default mode opens a
  // helper page in the same browser context, which the protected window's
  // context must never get.
  const builder = new AxeBuilder({ page }).setLegacyMode(true)
  const results = await (only ? builder.include(only) : builder).analyze()
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(
      (violation) =>
        `${violation.id} (${violation.impact}): ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`,
    )
}

async function createRoomViaForm(h: HostHarness, title: string): Promise<string> {
  const page = h.page
  await page.waitForSelector(ID.workspace)
  await page.selectOption(ID.agent, 'assistant')
  await page.fill(ID.workspace, h.workspace)
  await page.fill(ID.title, title)
  await page.click(ID.create)
  await page.waitForSelector(ID.input)
  const rooms = await h.gui<{ body: { rooms: Array<{ id: string; title: string }> } }>('listRooms')
  const room = rooms.body.rooms.find((candidate) => candidate.title === title)
  if (!room) throw new Error(`no room titled ${title}`)
  return room.id
}

/** Sends through the composer with Enter and waits for the open card. */
async function sendAndWaitForCard(h: HostHarness, roomId: string, text: string): Promise<string> {
  const known = new Set(
    (
      await h.gui<{ body: { approvals: Array<{ id: string }> } }>('approvals', roomId)
    ).body.approvals.map((approval) => approval.id),
  )
  await h.page.fill(ID.input, text)
  await h.page.press(ID.input, 'Enter')
  const approvalId = await eventually(async () => {
    const answer = await h.gui<{ body: { approvals: Array<{ id: string; status: string }> } }>(
      'approvals',
      roomId,
    )
    return answer.body.approvals.find(
      (approval) => approval.status === 'pending' && !known.has(approval.id),
    )?.id
  }, `an approval for "${text}"`)
  // The card arrives with the event; its full arguments only with the
  // timeline refresh that follows. Wait for both, so a test that reads the
  // arguments never races the refresh.
  const card = `${ID.pending} ${ID.card(approvalId)}`
  await h.page.waitForSelector(`${card} [data-testid="approval-review"]`)
  await h.page.waitForSelector(`${card} [data-testid="approval-arguments"]`)
  return approvalId
}

// axe takes seconds a run, so it runs once per theme (both pages), where
// the page is narrowest for dark and widest for light.
const CONFIGS = [
  { width: 1280, locale: 'en-US', colorScheme: 'light', lang: 'en', theme: 'light', axe: true },
  { width: 760, locale: 'en-US', colorScheme: 'light', lang: 'en', theme: 'light', axe: false },
  { width: 1280, locale: 'zh-CN', colorScheme: 'dark', lang: 'zh-CN', theme: 'dark', axe: false },
  { width: 760, locale: 'zh-CN', colorScheme: 'dark', lang: 'zh-CN', theme: 'dark', axe: true },
] as const

const STATUS_WAITING = {
  en: 'Waiting for confirmation: write_file',
  'zh-CN': '等待确认：write_file',
}
const APPROVED = { en: 'Approved', 'zh-CN': '已批准' }
const CANCELLED = { en: 'Cancelled', 'zh-CN': '已取消' }
const MODE_CHANGE = { en: 'Ask for approval → Approve for me', 'zh-CN': '请求批准 → 代我批准' }

describe.runIf(run).each(CONFIGS)(
  'the workbench at $width px, $lang, $theme (real Chromium on the CDP host)',
  (config) => {
    let h: HostHarness

    beforeAll(async () => {
      h = await startHostHarness({
        viewport: { width: config.width, height: 760 },
        locale: config.locale,
        colorScheme: config.colorScheme,
      })
    }, 60_000)
    afterAll(async () => {
      await h?.close()
    })

    it('creates a room from the form, asks through a card and turns it Approved after the protected window allows', async () => {
      const page = h.page
      expect(await page.evaluate(() => document.documentElement.lang)).toBe(config.lang)
      expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe(config.theme)

      const roomId = await createRoomViaForm(h, `Notes ${config.width}`)
      const approvalId = await sendAndWaitForCard(h, roomId, 'write notes.txt hello')
      const card = ID.card(approvalId)
      expect(await page.textContent(ID.status)).toBe(STATUS_WAITING[config.lang])
      expect(await page.textContent(`${card} [data-testid="approval-arguments"]`)).toContain(
        '"content": "hello"',
      )
      expect(await page.locator(`[data-approval-id="${approvalId}"]`).count()).toBe(1)

      // The layout facts, measured rather than compared by pixels.
      const facts = await layout(page, [
        ID.input,
        ID.send,
        ID.picker,
        `${card} [data-testid="approval-review"]`,
        `${card} [data-testid="approval-deny"]`,
      ])
      expect(facts.scrollWidth).toBeLessThanOrEqual(facts.clientWidth)
      expect(facts.outside).toEqual([])
      await page.screenshot({
        path: join(SHOTS, `workbench-pending-${config.width}-${config.lang}-${config.theme}.png`),
      })
      if (config.axe) {
        expect(await seriousViolations(page)).toEqual([])
        // The picker's menu, open, with the full-access option and its reason.
        await page.click(ID.picker)
        await page.waitForSelector('[data-testid="mode-option-full-access"]', { state: 'visible' })
        expect(await seriousViolations(page, '.picker')).toEqual([])
        await page.keyboard.press('Escape')
      }

      await page.click(`${card} [data-testid="approval-review"]`)
      const consent = await h.nextWindow()
      await buttonsEnabled(consent)
      // The protected window opens in the workbench's language and theme.
      expect(await consent.page.evaluate(() => document.documentElement.lang)).toBe(config.lang)
      expect(await consent.page.evaluate(() => document.documentElement.dataset.theme)).toBe(
        config.theme,
      )
      if (config.axe) expect(await seriousViolations(consent.page)).toEqual([])
      await consent.page.screenshot({
        path: join(SHOTS, `consent-${config.width}-${config.lang}-${config.theme}.png`),
      })
      await consent.page.click('#assent-allow-once')

      const outcome = `${card} [data-testid="approval-outcome"]`
      await page.waitForSelector(outcome, { timeout: 15_000 })
      expect((await page.textContent(outcome))?.trim()).toBe(APPROVED[config.lang])
      expect(await page.getAttribute(outcome, 'data-outcome')).toBe('approved')
      // Decided, the card left the open block and stays in the timeline.
      expect(await page.locator(`${ID.pending} ${card}`).count()).toBe(0)
      expect(await page.locator(`[data-testid="timeline"] ${card}`).count()).toBe(1)
      await eventually(
        () => (existsSync(join(h.workspace, 'notes.txt')) ? true : undefined),
        'notes.txt',
      )
      expect(readFileSync(join(h.workspace, 'notes.txt'), 'utf8')).toBe('hello')
      await page.waitForFunction(
        (waiting) =>
          !document.querySelector('[data-testid="status-line"]')?.textContent?.includes(waiting),
        STATUS_WAITING[config.lang],
      )
      // The conversation around it: the person's message, the offline
      // agent's reply and the write's result, once the tool ran.
      const result =
        '[data-testid="timeline-tool"][data-status="succeeded"] [data-testid="tool-output"]'
      await page.waitForSelector(result)
      expect(await page.textContent(result)).toContain('wrote 5 bytes')
      const messages = await page.$$eval('[data-testid="timeline-message"]', (elements) =>
        elements.map((element) => ({
          role: element.className,
          text: element.querySelector('.message__text')?.textContent,
        })),
      )
      expect(messages).toContainEqual({
        role: 'message message--user',
        text: 'write notes.txt hello',
      })
      expect(messages).toContainEqual({
        role: 'message message--agent',
        text: 'Writing notes.txt.',
      })
      await page.screenshot({
        path: join(SHOTS, `workbench-approved-${config.width}-${config.lang}-${config.theme}.png`),
      })
    }, 120_000)

    it('shows the sidebar as a sidebar when wide and as a drawer when narrow', async () => {
      const page = h.page
      if (config.width >= 900) {
        expect(await page.isVisible('[data-testid="room-list"]')).toBe(true)
        expect(await page.isVisible(ID.drawer)).toBe(false)
        const facts = await layout(page, ['[data-testid="room-list"]', ID.newRoom, ID.input])
        expect(facts.outside).toEqual([])
        const overlap = await page.evaluate(() => {
          const list = document.querySelector('[data-testid="room-list"]')!.getBoundingClientRect()
          const room = document.querySelector('[data-testid="room-view"]')!.getBoundingClientRect()
          return list.right <= room.left + 0.5
        })
        expect(overlap).toBe(true)
      } else {
        expect(await page.isVisible('[data-testid="room-list"]')).toBe(false)
        expect(await page.isVisible(ID.drawer)).toBe(true)
        if (config.axe) {
          // The drawer open, in this theme, for axe.
          await page.click(ID.drawer)
          await page.waitForSelector('[data-testid="room-list"]', { state: 'visible' })
          expect(await seriousViolations(page)).toEqual([])
          await page.screenshot({
            path: join(
              SHOTS,
              `workbench-drawer-${config.width}-${config.lang}-${config.theme}.png`,
            ),
          })
          await page.keyboard.press('Escape')
          await page.waitForSelector('[data-testid="room-list"]', { state: 'hidden' })
        }
      }
    })

    it('follows a mode change through the protected window with a Permissions request card', async () => {
      const page = h.page
      await page.click(ID.picker)
      await page.click('[data-testid="mode-option-approve-for-me"]')
      const card = '[data-testid="mode-request-card"]'
      await page.waitForSelector(`${ID.pending} ${card}[data-status="waiting"]`)
      expect(await page.textContent(`${card} [data-testid="mode-request-change"]`)).toBe(
        MODE_CHANGE[config.lang],
      )
      const consent = await h.nextWindow()
      await buttonsEnabled(consent, 'assent-confirm')
      expect(await consent.page.evaluate(() => document.documentElement.dataset.theme)).toBe(
        config.theme,
      )
      if (config.axe) expect(await seriousViolations(consent.page)).toEqual([])
      await consent.page.screenshot({
        path: join(SHOTS, `consent-mode-${config.width}-${config.lang}-${config.theme}.png`),
      })
      await consent.page.click('#assent-cancel')
      await page.waitForSelector(`${card}[data-status="cancelled"]`)
      expect((await page.textContent(`${card} [data-testid="mode-request-outcome"]`))?.trim()).toBe(
        CANCELLED[config.lang],
      )
      expect(await page.getAttribute(ID.picker, 'data-mode')).toBe('ask-for-approval')
      // The decided write card and the closed permissions request, for axe.
      if (config.axe) expect(await seriousViolations(page)).toEqual([])
      await page.screenshot({
        path: join(
          SHOTS,
          `workbench-mode-cancelled-${config.width}-${config.lang}-${config.theme}.png`,
        ),
      })
    }, 60_000)
  },
)

describe.runIf(run)('the workbench at 760 px: long actions, the drawer, the keyboard', () => {
  let h: HostHarness
  let roomId: string

  beforeAll(async () => {
    h = await startHostHarness({ viewport: { width: 760, height: 760 }, locale: 'en-US' })
    roomId = await createRoomViaForm(h, 'Narrow')
  }, 60_000)
  afterAll(async () => {
    await h?.close()
  })

  it('shows a long action in full, scrolling inside the card without widening the page', async () => {
    const content = Array.from({ length: 120 }, (_, line) => `line-${line}-${'x'.repeat(90)}`).join(
      '',
    )
    const approvalId = await sendAndWaitForCard(h, roomId, `write long.txt ${content}`)
    const card = ID.card(approvalId)
    const pre = await h.page.$eval(`${card} [data-testid="approval-arguments"]`, (element) => ({
      text: element.textContent ?? '',
      scrollHeight: element.scrollHeight,
      clientHeight: element.clientHeight,
      scrollWidth: element.scrollWidth,
      clientWidth: element.clientWidth,
    }))
    expect(pre.text).toContain(content)
    expect(pre.scrollHeight).toBeGreaterThan(pre.clientHeight)
    expect(pre.scrollWidth).toBeLessThanOrEqual(pre.clientWidth)
    const facts = await layout(h.page, [
      ID.input,
      ID.send,
      ID.picker,
      `${card} [data-testid="approval-review"]`,
      `${card} [data-testid="approval-deny"]`,
    ])
    expect(facts.scrollWidth).toBeLessThanOrEqual(facts.clientWidth)
    expect(facts.outside).toEqual([])
    await h.page.screenshot({ path: join(SHOTS, 'workbench-long-action-760.png') })
  })

  it('never approves on Enter: Enter in the composer rejects the open approval and sends, and no window opens', async () => {
    const approvalId = (
      await h.gui<{ body: { approvals: Array<{ id: string; status: string }> } }>(
        'approvals',
        roomId,
      )
    ).body.approvals.find((approval) => approval.status === 'pending')?.id
    expect(approvalId).toBeDefined()
    const windows = h.host.windows.opened.length
    await h.page.focus(`${ID.card(approvalId!)}`)
    await h.page.keyboard.press('Enter')
    await h.page.fill(ID.input, 'list')
    await h.page.press(ID.input, 'Enter')
    await eventually(async () => {
      const timeline = await h.gui<{ body: { messages: Array<{ text: string }> } }>(
        'timeline',
        roomId,
      )
      return timeline.body.messages.some((message) => message.text === 'list') || undefined
    }, 'the message "list"')
    // The card settles as Rejected once the routing is done: only then is
    // "no window opened" a fact rather than a race.
    await h.page.waitForSelector(
      `[data-testid="timeline"] ${ID.card(approvalId!)} [data-testid="approval-outcome"][data-outcome="rejected"]`,
    )
    expect(h.host.windows.opened).toHaveLength(windows)
    const status = await h.gui<{
      body: { approvals: Array<{ id: string; status: string; decision?: string }> }
    }>('approvals', roomId)
    // A message sent while an approval is open first closes it as rejected,
    // with a deny main minted without any window: never an allow.
    expect(status.body.approvals.find((approval) => approval.id === approvalId)).toMatchObject({
      status: 'denied',
      decision: 'deny',
    })
  })

  it('keeps the room list in a drawer that the keyboard opens and Escape closes', async () => {
    const page = h.page
    expect(await page.isVisible('[data-testid="room-list"]')).toBe(false)
    await page.focus(ID.drawer)
    await page.keyboard.press('Enter')
    await page.waitForSelector('[data-testid="room-list"]', { state: 'visible' })
    const facts = await layout(page, ['[data-testid="room-list"]', ID.newRoom])
    expect(facts.outside).toEqual([])
    expect(facts.scrollWidth).toBeLessThanOrEqual(facts.clientWidth)
    await page.screenshot({ path: join(SHOTS, 'workbench-drawer-760.png') })
    await page.focus(ID.newRoom)
    await page.keyboard.press('Escape')
    await page.waitForSelector('[data-testid="room-list"]', { state: 'hidden' })
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe(
      'rooms-drawer-toggle',
    )
  })

  it('shows a visible focus ring on keyboard focus', async () => {
    const page = h.page
    await page.focus(ID.input)
    await page.keyboard.press('Shift+Tab')
    await page.keyboard.press('Tab')
    const outline = await page.evaluate(() => {
      const style = getComputedStyle(document.activeElement as Element)
      return { style: style.outlineStyle, width: parseFloat(style.outlineWidth) }
    })
    expect(outline.style).not.toBe('none')
    expect(outline.width).toBeGreaterThanOrEqual(2)
  })

  it('keeps every option of the open picker inside the viewport', async () => {
    const page = h.page
    await page.click(ID.picker)
    await page.waitForSelector('[data-testid="mode-option-full-access"]', { state: 'visible' })
    const facts = await layout(page, [
      '[data-testid="mode-option-ask-for-approval"]',
      '[data-testid="mode-option-approve-for-me"]',
      '[data-testid="mode-option-full-access"]',
    ])
    expect(facts.outside).toEqual([])
    expect(facts.scrollWidth).toBeLessThanOrEqual(facts.clientWidth)
    await page.screenshot({ path: join(SHOTS, 'workbench-picker-760.png') })
    await page.keyboard.press('Escape')
    await page.waitForSelector('[data-testid="mode-option-full-access"]', { state: 'hidden' })
  })

  it('rings every control the keyboard reaches: card buttons, picker options, drawer toggle, settings', async () => {
    const page = h.page
    const approvalId = await sendAndWaitForCard(h, roomId, 'write ring.txt focus')
    const card = `${ID.pending} ${ID.card(approvalId)}`
    const rings: FocusRing[] = [
      await tabInto(page, `${card} [data-testid="approval-review"]`),
      await tabInto(page, `${card} [data-testid="approval-deny"]`),
      await tabInto(page, ID.drawer),
      await tabInto(page, '[data-testid="settings-open"]'),
    ]
    // The picker's options get the keyboard from its toggle, then the arrows.
    await tabInto(page, ID.picker)
    await page.keyboard.press('Enter')
    await page.waitForSelector('[data-testid="mode-option-ask-for-approval"]:focus')
    rings.push(await focusRing(page))
    await page.keyboard.press('ArrowDown')
    rings.push(await focusRing(page))
    await page.keyboard.press('Escape')
    // The settings panel's own controls, reached with Tab from its button.
    await page.focus('[data-testid="settings-open"]')
    await page.keyboard.press('Enter')
    await page.waitForSelector('[data-testid="settings-theme"]', { state: 'visible' })
    rings.push(await tabInto(page, '[data-testid="settings-theme"]'))
    rings.push(await tabInto(page, '[data-testid="settings-language"]'))
    await page.keyboard.press('Escape')

    expect(rings.map((ring) => ring.testId)).toEqual([
      'approval-review',
      'approval-deny',
      'rooms-drawer-toggle',
      'settings-open',
      'mode-option-ask-for-approval',
      'mode-option-approve-for-me',
      'settings-theme',
      'settings-language',
    ])
    expect(rings.filter((ring) => !visibleRing(ring))).toEqual([])
  })

  it('mutes an open card after a runtime restart: no buttons, the agent no longer waits, axe clean', async () => {
    const page = h.page
    const approvalId = (
      await h.gui<{ body: { approvals: Array<{ id: string; status: string }> } }>(
        'approvals',
        roomId,
      )
    ).body.approvals.find((approval) => approval.status === 'pending')?.id
    expect(approvalId).toBeDefined()
    await page.waitForSelector(`${ID.pending} ${ID.card(approvalId!)}`)
    await h.host.services.restartRuntime()
    const card = `[data-testid="timeline"] ${ID.card(approvalId!)}[data-outcome="stale"]`
    await page.waitForSelector(card, { timeout: 20_000 })
    expect(await page.locator(`${card} button`).count()).toBe(0)
    expect(await page.textContent(`${card} [data-testid="approval-note"]`)).toContain(
      'no longer waiting',
    )
    expect(await page.locator(ID.pending).count()).toBe(0)
    expect(await seriousViolations(page)).toEqual([])
    await page.screenshot({ path: join(SHOTS, 'workbench-stale-760.png') })
  }, 60_000)
})
