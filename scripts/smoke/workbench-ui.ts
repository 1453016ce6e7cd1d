import type { TimelinePage } from '../../src/contracts/room.ts'
import type { Page } from 'playwright-core'
import { LATIN_NAMES_KEPT } from '../../src/common/i18n/latin-words.ts'
import { WAIT_TIMEOUT_MS } from '../test-timing.ts'
import { waitFor } from './wait.ts'

export { WAIT_TIMEOUT_MS, waitFor }

/**
 * How the scenario operates the workbench UI: one place for selectors, so
 * the cases read as what a person does. Test ids are set by the workbench
 * components (src/renderer/workbench).
 */
export const UI = {
  newRoomButton: '[data-testid="new-room"]',
  roomAgent: '[data-testid="room-agent"]',
  roomWorkspace: '[data-testid="room-workspace"]',
  roomTitle: '[data-testid="room-title"]',
  roomCreate: '[data-testid="room-create"]',
  composerInput: '[data-testid="composer-input"]',
  composerSend: '[data-testid="composer-send"]',
  statusLine: '[data-testid="status-line"]',
  modePicker: '[data-testid="mode-picker"]',
  modeOption: (mode: string) => `[data-testid="mode-option-${mode}"]`,
  card: (approvalId: string) => `[data-testid="approval-card"][data-approval-id="${approvalId}"]`,
  cardReview: (approvalId: string) => `${UI.card(approvalId)} [data-testid="approval-review"]`,
  cardDeny: (approvalId: string) => `${UI.card(approvalId)} [data-testid="approval-deny"]`,
  cardOutcome: (approvalId: string) => `${UI.card(approvalId)} [data-testid="approval-outcome"]`,
  permissionCard: (approvalId: string) =>
    `[data-testid="permission-request-card"][data-approval-id="${approvalId}"]`,
  roomLink: (roomId: string) => `[data-testid="room-link"][data-room-id="${roomId}"]`,
  drawerToggle: '[data-testid="rooms-drawer-toggle"]',
  settingsButton: '[data-testid="settings-open"]',
  languageSelect: '[data-testid="settings-language"]',
  themeSelect: '[data-testid="settings-theme"]',
} as const

type Gui = Record<string, (...args: unknown[]) => Promise<{ status: number; body: unknown }>>

/** The newest page of a room's timeline (`assentGui.timelinePage`): the
 *  whole of a room with fewer turns than a page, as every room a smoke case
 *  or a workbench test reads this way is. */
export const RECENT = { kind: 'recent' } as const

/** A room's timeline as the workbench reads it first (`RECENT`). */
export async function roomTimeline(page: Page, roomId: string): Promise<TimelinePage> {
  return (await gui<{ body: TimelinePage }>(page, 'timelinePage', roomId, RECENT)).body
}

/** Calls `window.assentGui` in the workbench, as the page itself would. */
export function gui<T = { status: number; body: unknown }>(
  page: Page,
  method: string,
  ...args: unknown[]
) {
  return page.evaluate(
    ([name, list]) =>
      (window as unknown as { assentGui: Gui }).assentGui[name as string]!(...(list as unknown[])),
    [method, args] as const,
  ) as Promise<T>
}

export async function createRoomViaUi(
  page: Page,
  fields: { agent: string; workspace: string; title: string },
) {
  await page.click(UI.newRoomButton)
  // The form lists the runtime's agents once it has asked for them.
  await page.waitForSelector(`${UI.roomAgent} option[value="${fields.agent}"]`, {
    state: 'attached',
    timeout: WAIT_TIMEOUT_MS,
  })
  await page.selectOption(UI.roomAgent, fields.agent)
  await page.fill(UI.roomWorkspace, fields.workspace)
  await page.fill(UI.roomTitle, fields.title)
  await page.click(UI.roomCreate)
}

export async function sendViaComposer(page: Page, text: string) {
  await page.fill(UI.composerInput, text)
  await page.click(UI.composerSend)
}

interface ApprovalSummary {
  id: string
  turnId: string
  kind: string
  status: string
  toolName: string
  decidedBy?: string
  reason?: string
}

/** The room's approvals as the workbench sees them (allowlisted route). */
export async function roomApprovals(page: Page, roomId: string): Promise<ApprovalSummary[]> {
  const response = await gui<{ body: { approvals: ApprovalSummary[] } }>(page, 'approvals', roomId)
  return response.body.approvals
}

/** Waits for a new pending approval in the room, other than `known`. */
export function newPendingApproval(page: Page, roomId: string, known: ReadonlySet<string>) {
  return waitFor(async () => {
    const approvals = await roomApprovals(page, roomId)
    return approvals.find((approval) => approval.status === 'pending' && !known.has(approval.id))
  }, 'a new pending approval')
}

export async function approvalStatus(page: Page, roomId: string, approvalId: string) {
  return (await roomApprovals(page, roomId)).find((approval) => approval.id === approvalId)
}

/** Whether an element's box lies fully inside the viewport. */
export async function insideViewport(
  page: Page,
  selector: string,
): Promise<{ ok: boolean; detail: string }> {
  const box = await page.locator(selector).first().boundingBox()
  // Asked of the page, not of Playwright: an Electron window has no
  // Playwright viewport, only its content size.
  const viewport = await page.evaluate(() => ({
    width: document.documentElement.clientWidth,
    height: document.documentElement.clientHeight,
  }))
  if (!box || !viewport) return { ok: false, detail: `${selector} has no box` }
  const ok =
    box.x >= 0 &&
    box.y >= 0 &&
    box.x + box.width <= viewport.width + 0.5 &&
    box.y + box.height <= viewport.height + 0.5
  return {
    ok,
    detail: `${selector} at ${Math.round(box.x)},${Math.round(box.y)} ${Math.round(box.width)}×${Math.round(box.height)} in ${viewport.width}×${viewport.height}`,
  }
}

/** Opens a room from the sidebar (or the drawer, below 900 px), as a person
 *  does after a reload. */
export async function openRoom(page: Page, roomId: string) {
  const link = page.locator(UI.roomLink(roomId))
  if (!(await link.isVisible()) && (await page.locator(UI.drawerToggle).isVisible())) {
    await page.click(UI.drawerToggle)
  }
  await link.click()
  await page.waitForSelector(UI.modePicker)
}

export interface Placement {
  what: string
  inside: boolean
  /** What a click at its centre reaches is the element itself (or inside
   *  it): not scrolled away inside a box, not covered by anything. */
  hit: boolean
  box: string
}

/** Where every element matching each selector lies, and whether a person
 *  could click it there. */
export function placements(page: Page, selectors: readonly string[]): Promise<Placement[]> {
  return page.evaluate((list) => {
    const viewport = {
      width: document.documentElement.clientWidth,
      height: document.documentElement.clientHeight,
    }
    return list.flatMap((selector) =>
      [...document.querySelectorAll<HTMLElement>(selector)].map((element, index) => {
        const box = element.getBoundingClientRect()
        const inside =
          box.width > 0 &&
          box.height > 0 &&
          box.left >= 0 &&
          box.top >= 0 &&
          box.right <= viewport.width + 0.5 &&
          box.bottom <= viewport.height + 0.5
        const target = inside
          ? document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2)
          : null
        return {
          what: `${selector} #${index + 1}`,
          inside,
          hit: target !== null && (target === element || element.contains(target)),
          box: `${Math.round(box.left)},${Math.round(box.top)} ${Math.round(box.width)}×${Math.round(box.height)} in ${viewport.width}×${viewport.height}`,
        }
      }),
    )
  }, selectors)
}

/**
 * The English words a person reading Chinese would find on the page: every
 * visible text, except values shown as they are (code, paths, arguments,
 * file content: `pre`, `code`, tables of lines, the page's monospace
 * values), what the person typed (`skip`), and the names in
 * `LATIN_NAMES_KEPT`. Each word comes with the text it was found in.
 */
export function englishWordsShown(
  page: Page,
  skip: readonly string[],
): Promise<Array<{ word: string; in: string }>> {
  return page.evaluate(
    ({ skipped, kept }) => {
      const verbatim = [
        'pre',
        'code',
        'table',
        '.mono',
        '.consent-mono',
        '[data-verbatim]',
        ...skipped,
      ].join(',')
      const found: Array<{ word: string; in: string }> = []
      const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT)
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const parent = node.parentElement
        if (!parent || parent.closest(verbatim)) continue
        if (parent.closest('script, style, [hidden], [aria-hidden="true"]')) continue
        if (!parent.checkVisibility({ visibilityProperty: true, opacityProperty: true })) continue
        const text = node.textContent ?? ''
        for (const match of text.matchAll(/[A-Za-z]{2,}/g)) {
          if (!kept.includes(match[0]))
            found.push({ word: match[0], in: text.trim().slice(0, 120) })
        }
      }
      return found
    },
    { skipped: [...skip], kept: [...LATIN_NAMES_KEPT] },
  )
}

/**
 * Waits until the timeline holds an entry matching `selector`, scrolling
 * the timeline up from its newest entry a screen at a time as a person
 * looking for it would: the timeline mounts only the entries near its
 * viewport, so an older one exists in the page only once scrolled to. It
 * leaves the timeline there, for the caller to read the entry; the caller
 * scrolls back down (timelineToBottom) so the timeline follows new entries.
 */
export async function findInTimeline(page: Page, selector: string): Promise<void> {
  const inTimeline = `[data-testid="timeline"] ${selector}`
  const deadline = Date.now() + WAIT_TIMEOUT_MS
  await timelineToBottom(page)
  for (;;) {
    if ((await page.locator(inTimeline).count()) > 0) return
    const atTop = await page.locator('[data-testid="timeline"]').evaluate((timeline) => {
      const top = timeline.scrollTop <= 0
      timeline.scrollTop = top ? timeline.scrollHeight : timeline.scrollTop - timeline.clientHeight
      return top
    })
    if (Date.now() > deadline) {
      throw new Error(
        `the timeline holds no ${selector} (scrolled to its ${atTop ? 'top' : 'middle'})`,
      )
    }
    await page.waitForTimeout(100)
  }
}

/** Scrolls the timeline to its newest entry, where it follows new ones. */
export async function timelineToBottom(page: Page): Promise<void> {
  await page.locator('[data-testid="timeline"]').evaluate((timeline) => {
    timeline.scrollTop = timeline.scrollHeight
  })
}
