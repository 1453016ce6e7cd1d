import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { canonicalJson } from '../src/contracts/canonical-json.ts'
import { MODE_PRESETS } from '../src/runtime/policy/permission-modes.ts'
import {
  buttonsEnabled,
  chromiumAvailable,
  startHostHarness,
  type HostHarness,
} from './support/cdp-host-harness.ts'
import { editDatabase } from './support/integrity-helpers.ts'

const run = chromiumAvailable()
let h: HostHarness

beforeAll(async () => {
  if (run) h = await startHostHarness({ viewport: { width: 760, height: 760 } })
})
afterAll(async () => {
  await h?.close()
})

describe.runIf(run)('a room edited on disk, as the workbench shows it (real Chromium)', () => {
  it('shows the report and the room banner, and a mode confirmed in the protected window clears it', async () => {
    const { page } = h
    const roomId = await h.createRoom({ title: 'Tampered' })
    // At 760 px the room list is a drawer.
    await page.click('[data-testid="rooms-drawer-toggle"]')
    await page.click(`[data-testid="room-link"][data-room-id="${roomId}"]`)
    await page.waitForSelector(`[data-testid="room-view"][data-room-id="${roomId}"]`)
    // The banner depends on the permissions answer: wait for it (the picker
    // shows its mode) before saying there is none, or "none" proves nothing.
    await page.waitForSelector('[data-testid="mode-picker"][data-mode="ask-for-approval"]')
    expect(await page.locator('[data-testid="integrity-room-banner"]').count()).toBe(0)

    // Someone with write access to the data dir, but not the key, widens the
    // room to full access. The runtime's next read of the row reports it.
    editDatabase(join(h.root, 'data'), (db) => {
      const changed = db
        .prepare('UPDATE rooms SET policy_json = ? WHERE id = ?')
        .run(canonicalJson(MODE_PRESETS['full-access']), roomId).changes
      expect(Number(changed)).toBe(1)
    })
    await h.gui('permissions', roomId)

    const notices = page.locator('[data-testid="integrity-notices"]')
    await notices.waitFor()
    expect(await notices.textContent()).toContain('room “Tampered” were changed on disk')
    const banner = page.locator('[data-testid="integrity-room-banner"]')
    await banner.waitFor()
    expect(await banner.textContent()).toContain('Ask for approval with no grants')
    // The picker shows what the runtime enforces, not what the file says.
    expect(await page.getAttribute('[data-testid="mode-picker"]', 'data-mode')).toBe(
      'ask-for-approval',
    )

    await page.click('[data-testid="mode-picker"]')
    await page.click('[data-testid="mode-option-ask-for-approval"]')
    const consent = await h.nextWindow()
    await buttonsEnabled(consent, 'assent-confirm')
    await consent.page.click('#assent-confirm')
    await banner.waitFor({ state: 'detached' })
    expect(await page.getAttribute('[data-testid="mode-picker"]', 'data-mode')).toBe(
      'ask-for-approval',
    )
  })
})
