import { AxeBuilder } from '@axe-core/playwright'
import type { Page } from 'playwright-core'
import type { HostHarness } from './cdp-host-harness.ts'
import { eventually } from './runtime-harness.ts'

// The workbench as tests/workbench-ui.test.ts drives it in real Chromium:
// its elements, the layout and focus facts it measures, and axe.

export const ID = {
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
  requests: '[data-testid="open-requests"]',
  card: (id: string) => `[data-testid="approval-card"][data-approval-id="${id}"]`,
} as const

export interface Layout {
  scrollWidth: number
  clientWidth: number
  viewport: { width: number; height: number }
  outside: string[]
}

/** Measures the layout facts: nothing wider than the viewport, and the
 *  named elements fully inside it. */
export function layout(page: Page, selectors: readonly string[]): Promise<Layout> {
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

export interface FocusRing {
  testId: string | null
  outline: string
  outlineWidth: number
  boxShadow: string
}

/** The focused element and the ring it draws: an outline or a box shadow. */
export function focusRing(page: Page): Promise<FocusRing> {
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
export async function tabInto(page: Page, selector: string): Promise<FocusRing> {
  await page.focus(selector)
  await page.keyboard.press('Shift+Tab')
  await page.keyboard.press('Tab')
  return focusRing(page)
}

export const visibleRing = (ring: FocusRing) =>
  (ring.outline !== 'none' && ring.outlineWidth >= 2) || ring.boxShadow !== 'none'

/** Serious and critical axe violations, one line each, so a failure names them. */
export async function seriousViolations(page: Page, only?: string): Promise<string[]> {
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

export async function createRoomViaForm(h: HostHarness, title: string): Promise<string> {
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
export async function sendAndWaitForCard(
  h: HostHarness,
  roomId: string,
  text: string,
): Promise<string> {
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
  const card = `${ID.requests} ${ID.card(approvalId)}`
  await h.page.waitForSelector(`${card} [data-testid="approval-review"]`)
  await h.page.waitForSelector(`${card} [data-testid="approval-arguments"]`)
  return approvalId
}
