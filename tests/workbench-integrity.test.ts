import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { canonicalJson } from '../src/contracts/canonical-json.ts'
import type { PermissionMode } from '../src/contracts/policy-axes.ts'
import { MODE_PRESETS } from '../src/runtime/policy/permission-modes.ts'
import { DATABASE_FILE_NAME } from '../src/runtime/store/database.ts'
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

/** Chooses a mode in the open room's picker and confirms it in the
 *  protected window with a trusted click. */
async function chooseMode(mode: PermissionMode): Promise<void> {
  await h.page.click('[data-testid="mode-picker"]')
  await h.page.click(`[data-testid="mode-option-${mode}"]`)
  const consent = await h.nextWindow()
  await buttonsEnabled(consent, 'assent-confirm')
  await consent.page.click('#assent-confirm')
}

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

    // Someone with write access to the data folder, but not the key, widens the
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

    await chooseMode('ask-for-approval')
    await banner.waitFor({ state: 'detached' })
    expect(await page.getAttribute('[data-testid="mode-picker"]', 'data-mode')).toBe(
      'ask-for-approval',
    )
  })

  it('shows a database put back from an older copy, and the room rolled back until a mode is confirmed', async () => {
    const { page } = h
    const dataDir = join(h.root, 'data')
    const roomId = await h.createRoom({ title: 'Restored' })
    const files = [DATABASE_FILE_NAME, `${DATABASE_FILE_NAME}-wal`, `${DATABASE_FILE_NAME}-shm`]
    const copy = mkdtempSync(join(tmpdir(), 'assent-copy-'))
    for (const name of files) {
      if (existsSync(join(dataDir, name))) copyFileSync(join(dataDir, name), join(copy, name))
    }
    await page.click('[data-testid="rooms-drawer-toggle"]')
    await page.click(`[data-testid="room-link"][data-room-id="${roomId}"]`)
    await page.waitForSelector('[data-testid="mode-picker"][data-mode="ask-for-approval"]')

    // The person widens the room; then the older copy is put back.
    await chooseMode('approve-for-me')
    await page.waitForSelector('[data-testid="mode-picker"][data-mode="approve-for-me"]')
    await h.host.services.supervisor.stop()
    for (const name of files) {
      rmSync(join(dataDir, name), { force: true })
      if (existsSync(join(copy, name))) copyFileSync(join(copy, name), join(dataDir, name))
    }
    rmSync(copy, { recursive: true, force: true })
    await h.host.services.supervisor.start()

    const notices = page.locator('[data-testid="integrity-notices"]')
    await notices.locator('li', { hasText: 'was replaced by an older copy' }).waitFor()
    const banner = page.locator(
      '[data-testid="integrity-room-banner"][data-integrity="rolled-back"]',
    )
    await banner.waitFor()
    expect(await banner.textContent()).toContain('older copy of Assent’s database')
    expect(await page.getAttribute('[data-testid="mode-picker"]', 'data-mode')).toBe(
      'ask-for-approval',
    )

    await chooseMode('ask-for-approval')
    await banner.waitFor({ state: 'detached' })
  })
})
