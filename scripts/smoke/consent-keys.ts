import type { Page } from 'playwright-core'

/**
 * Presses Escape in a protected window. The window cancels and closes on the
 * keydown, so the keyup that follows may find the page already gone: that,
 * and only that, is not an error.
 */
export async function pressEscapeToCancel(page: Page): Promise<void> {
  await page.keyboard.down('Escape')
  await page.keyboard.up('Escape').catch((error: unknown) => {
    if (!page.isClosed() && !/has been closed/.test((error as Error).message)) throw error
  })
}
