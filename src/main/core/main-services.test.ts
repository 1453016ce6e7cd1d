import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { parseWorkbenchError, type WorkbenchError } from '../../common/workbench-error.ts'
import { FileSecretStore } from './file-secret-store.ts'
import { MainServices } from './main-services.ts'
import { RollbackAnchorKeeper } from './rollback-anchor-keeper.ts'
import type { RuntimeLauncher } from './runtime-launcher.ts'

/** Services that are never started: these tests reach only the workbench
 *  call handling, which needs no runtime. */
function services() {
  return new MainServices({
    launcher: {} as RuntimeLauncher,
    dataDir: '/nonexistent',
    integrityKey: randomBytes(32),
    rollbackAnchor: new RollbackAnchorKeeper(new FileSecretStore(), '/nonexistent'),
    windows: { open: () => Promise.reject(new Error('no windows here')) },
    notifier: { send: () => {} },
    preferences: () => ({ lang: 'en', theme: 'light' }),
  })
}

/** The typed error a workbench call was rejected with, as the page reads
 *  it (common/workbench-error.ts); fails the test when there is none. */
async function rejectionOf(call: Promise<unknown>): Promise<WorkbenchError> {
  const error = await call.then(
    () => {
      throw new Error('the call was not rejected')
    },
    (caught: unknown) => caught,
  )
  const typed = parseWorkbenchError((error as Error).message)
  if (!typed) throw new Error(`rejected without a typed error: ${(error as Error).message}`)
  return typed
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
      expect(await rejectionOf(main.handleWorkbenchCall('preferences', args))).toEqual({
        code: 'invalid_arguments',
        detail: expect.stringMatching(/^setPreferences takes one/),
      })
    }
    expect(main.preferences).toEqual({ lang: 'zh-CN', theme: 'dark' })
  })
})

describe('MainServices reject-for-message channel', () => {
  it('refuses anything but one approval id before it reaches the runtime', async () => {
    const main = services()
    for (const args of [[], ['ap_1', 'allow-once'], [{ approvalId: 'ap_1' }], ['ap 1']]) {
      expect(await rejectionOf(main.handleWorkbenchCall('reject', args))).toEqual({
        code: 'invalid_arguments',
        detail: expect.stringContaining('can only deny'),
      })
    }
    expect(await rejectionOf(main.handleWorkbenchCall('reject', ['ap_1']))).toEqual({
      code: 'runtime_down',
      detail: 'the runtime is not running',
    })
  })
})

describe('MainServices workbench calls', () => {
  it('rejects every failure with a typed error, whatever threw it', async () => {
    const main = services()
    expect(await rejectionOf(main.handleWorkbenchCall('nope' as 'relay', []))).toMatchObject({
      code: 'unknown_channel',
    })
    expect(
      await rejectionOf(
        main.handleWorkbenchCall('relay', [{ method: 'GET', path: '/v1/audit/export' }]),
      ),
    ).toEqual({
      code: 'relay_refused',
      detail: 'not allowed from the workbench: GET /v1/audit/export',
    })
    expect(await rejectionOf(main.handleWorkbenchCall('relay', []))).toMatchObject({
      code: 'relay_refused',
    })
    expect(
      await rejectionOf(main.handleWorkbenchCall('relay', [{ method: 'GET', path: '/v1/rooms' }])),
    ).toEqual({ code: 'runtime_down', detail: 'the runtime is not running' })
    expect(
      await rejectionOf(main.handleWorkbenchCall('review', ['ap_1', { decision: 'allow-once' }])),
    ).toMatchObject({ code: 'invalid_arguments' })
  })
})
