import type { Page } from 'playwright-core'
import { WAIT_TIMEOUT_MS } from '../test-timing.ts'

/**
 * Input that ends a protected window's prompt: the window answers on a
 * key's keydown (Escape) or on the click a release makes (a mouse button,
 * Space), and closes, so the release's own round trip may find the page
 * already gone: that, and only that, is not an error. Everything before
 * the release must land, so a window that was gone before the input counts
 * as a failure, never as an answer.
 */
function releaseClosing(page: Page, release: () => Promise<void>): Promise<void> {
  return release().catch((error: unknown) => {
    if (!page.isClosed() && !/has been closed/.test((error as Error).message)) throw error
  })
}

/** Presses Escape in a protected window: it cancels and closes on the
 *  keydown, so the keydown's own round trip, like a release's, may find
 *  the page already gone. The window must be there before it: a window
 *  gone before the input is a failure, never an answer (and the caller
 *  checks the answer the window gave). */
export async function pressEscapeToCancel(page: Page): Promise<void> {
  if (page.isClosed()) throw new Error('the protected window was gone before Escape was pressed')
  await releaseClosing(page, () => page.keyboard.down('Escape'))
  await releaseClosing(page, () => page.keyboard.up('Escape'))
}

/** Presses Space on the focused button of a protected window. */
export async function pressSpaceToDecide(page: Page): Promise<void> {
  await page.keyboard.down('Space')
  await releaseClosing(page, () => page.keyboard.up('Space'))
}

/** Clicks a button of a protected window whose answer closes it, with a
 *  real mouse press and release at its centre, as a person would: having
 *  read the action to its end (the window keeps Allow off until then when
 *  the action does not fit) and once the button is on. */
export async function clickToDecide(page: Page, selector: string): Promise<void> {
  const end = page.locator('#assent-action-end')
  // Forms and mode changes keep the action's end hidden: nothing to read there.
  if (await end.isVisible()) await end.scrollIntoViewIfNeeded()
  await page.waitForSelector(`${selector}:not([disabled])`, { timeout: WAIT_TIMEOUT_MS })
  const button = page.locator(selector)
  await button.scrollIntoViewIfNeeded()
  const box = await button.boundingBox()
  if (!box) throw new Error(`${selector} is not on screen`)
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2)
  await page.mouse.down()
  await releaseClosing(page, () => page.mouse.up())
}
