import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { MainServices } from './main-services.ts'
import type { RuntimeLauncher } from './runtime-launcher.ts'

/** Services that are never started: these tests reach only the workbench
 *  call handling, which needs no runtime. */
function services() {
  return new MainServices({
    launcher: {} as RuntimeLauncher,
    dataDir: '/nonexistent',
    integrityKey: randomBytes(32),
    windows: { open: () => Promise.reject(new Error('no windows here')) },
    notifier: { send: () => {} },
    preferences: () => ({ lang: 'en', theme: 'light' }),
  })
}

describe('MainServices preferences channel', () => {
  it('uses the system preferences until the workbench reports its own', async () => {
    const main = services()
    expect(main.preferences).toEqual({ lang: 'en', theme: 'light' })
    await expect(
      main.handleWorkbenchCall('preferences', [{ lang: 'zh-CN', theme: 'dark' }]),
    ).resolves.toBeNull()
    expect(main.preferences).toEqual({ lang: 'zh-CN', theme: 'dark' })
  })

  it('refuses anything but one { lang, theme } and keeps the last good value', async () => {
    const main = services()
    await main.handleWorkbenchCall('preferences', [{ lang: 'zh-CN', theme: 'dark' }])
    for (const args of [
      [],
      [{ lang: 'fr', theme: 'dark' }],
      [{ lang: 'en', theme: 'sepia' }],
      [{ lang: 'en', theme: 'light', decision: 'allow-once' }],
      [{ lang: 'en', theme: 'light' }, 'extra'],
      ['en'],
      [null],
    ]) {
      await expect(main.handleWorkbenchCall('preferences', args)).rejects.toThrow(
        /^refused: setPreferences/,
      )
    }
    expect(main.preferences).toEqual({ lang: 'zh-CN', theme: 'dark' })
  })
})

describe('MainServices reject-for-message channel', () => {
  it('refuses anything but one approval id before it reaches the runtime', async () => {
    const main = services()
    for (const args of [[], ['ap_1', 'allow-once'], [{ approvalId: 'ap_1' }], ['ap 1']]) {
      await expect(main.handleWorkbenchCall('reject', args)).rejects.toThrow(/can only deny/)
    }
    await expect(main.handleWorkbenchCall('reject', ['ap_1'])).rejects.toThrow(
      'the runtime is not running',
    )
  })
})
