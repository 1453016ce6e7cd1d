import { existsSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  buttonsEnabled,
  chromiumAvailable,
  startHostHarness,
  type HostHarness,
} from './support/cdp-host-harness.ts'
import { eventually } from './support/runtime-harness.ts'
import { RECENT } from '../scripts/smoke/workbench-ui.ts'
import {
  ID,
  createRoomViaForm,
  focusRing,
  layout,
  sendAndWaitForCard,
  seriousViolations,
  tabInto,
  visibleRing,
  type FocusRing,
} from './support/workbench-ui-helpers.ts'
import { WAIT_TIMEOUT_MS } from '../scripts/test-timing.ts'

// The built workbench (out/renderer, rebuilt by tests/support/build-once.ts)
// on the CDP host: real Chromium, the real preload bridge, main's core and a
// real runtime. The UI is driven the way a person drives it: the form, the
// composer, the card's buttons and the protected window's own buttons.

const run = chromiumAvailable()
const SHOTS = run ? mkdtempSync(join(tmpdir(), 'assent-workbench-shots-')) : ''
if (run) console.log(`workbench screenshots: ${SHOTS}`)

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
/** What the runtime's result and the offline agent say, in each language. */
const WROTE = {
  en: (path: string) => `wrote 5 bytes to ${path}`,
  'zh-CN': (path: string) => `已向 ${path} 写入 5 字节`,
}
const WRITING = { en: 'Writing notes.txt.', 'zh-CN': '正在写入 notes.txt。' }
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
    })
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
      await page.waitForSelector(outcome, { timeout: WAIT_TIMEOUT_MS })
      expect((await page.textContent(outcome))?.trim()).toBe(APPROVED[config.lang])
      expect(await page.getAttribute(outcome, 'data-outcome')).toBe('approved')
      // Decided, the card left the open block and stays in the timeline.
      expect(await page.locator(`${ID.requests} ${card}`).count()).toBe(0)
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
      // A write's result is said in words, in the page's language.
      const result =
        '[data-testid="timeline-tool"][data-status="succeeded"] [data-testid="tool-said"]'
      await page.waitForSelector(result)
      expect(await page.textContent(result)).toBe(
        WROTE[config.lang](join(h.workspace, 'notes.txt')),
      )
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
        text: WRITING[config.lang],
      })
      await page.screenshot({
        path: join(SHOTS, `workbench-approved-${config.width}-${config.lang}-${config.theme}.png`),
      })
    })

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
      await page.waitForSelector(`${ID.requests} ${card}[data-status="waiting"]`)
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
    })
  },
)

describe.runIf(run)('the workbench at 760 px: long actions, the drawer, the keyboard', () => {
  let h: HostHarness
  let roomId: string

  beforeAll(async () => {
    h = await startHostHarness({ viewport: { width: 760, height: 760 }, locale: 'en-US' })
    roomId = await createRoomViaForm(h, 'Narrow')
  })
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
        'timelinePage',
        roomId,
        RECENT,
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
    const card = `${ID.requests} ${ID.card(approvalId)}`
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
    await page.waitForSelector(`${ID.requests} ${ID.card(approvalId!)}`)
    await h.host.services.restartRuntime()
    const card = `[data-testid="timeline"] ${ID.card(approvalId!)}[data-outcome="stale"]`
    await page.waitForSelector(card, { timeout: WAIT_TIMEOUT_MS })
    expect(await page.locator(`${card} button`).count()).toBe(0)
    expect(await page.textContent(`${card} [data-testid="approval-note"]`)).toContain(
      'no longer waiting',
    )
    expect(await page.locator(ID.requests).count()).toBe(0)
    expect(await seriousViolations(page)).toEqual([])
    await page.screenshot({ path: join(SHOTS, 'workbench-stale-760.png') })
  })
})
