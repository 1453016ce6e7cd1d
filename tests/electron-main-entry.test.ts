import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { IPC } from '../src/common/ipc-channels.ts'
import { DataDirLock } from '../src/main/core/data-dir-lock.ts'
import type * as FakeElectronModule from './support/fake-electron.ts'
import type { FakeBrowserWindow, FakeWebContents } from './support/fake-electron.ts'
import { drawViews, mainFrameEvent } from './support/electron-consent-page.ts'
import { eventually } from './support/runtime-harness.ts'

// src/main/index.ts itself, from its first line to 'before-quit', with the
// fake `electron` module standing in for the Electron binary (which cannot
// run here). What the binary would start in a utility process, the runtime,
// runs for real as a child Node process; only the keychain is replaced by a
// key made for the test (the secret store has tests of its own).
vi.mock('electron', () => import('./support/fake-electron.ts'))
vi.mock('../src/main/electron/utility-launcher.ts', async () => {
  const { ChildProcessLauncher } = await import('../src/main/core/runtime-launcher.ts')
  const { RUNTIME_ENTRY } = await import('./support/runtime-harness.ts')
  return {
    UtilityProcessLauncher: class extends ChildProcessLauncher {
      constructor() {
        super(RUNTIME_ENTRY)
      }
    },
  }
})
vi.mock('../src/main/core/app-secret-store.ts', async () => {
  const { RollbackAnchorKeeper } = await import('../src/main/core/rollback-anchor-keeper.ts')
  const { FileSecretStore } = await import('../src/main/core/file-secret-store.ts')
  return {
    loadAppDataDirSecrets: async (dataDir: string) => ({
      integrityKey: randomBytes(32),
      rollbackAnchor: new RollbackAnchorKeeper(new FileSecretStore(), dataDir),
      keyInDataDirFile: false,
    }),
  }
})

let dataDir: string
let workspace: string
/** The fake `electron` module index.ts gets: a fresh one per test, since
 *  each test loads index.ts anew (vi.resetModules). */
let fake: typeof FakeElectronModule

beforeEach(async () => {
  vi.resetModules()
  // The mock itself: the instance index.ts imports as `electron`.
  fake = (await import('electron')) as unknown as typeof FakeElectronModule
  fake.resetFakeElectron()
  dataDir = mkdtempSync(join(tmpdir(), 'assent-main-entry-'))
  workspace = mkdtempSync(join(tmpdir(), 'assent-main-workspace-'))
  process.env.ASSENT_DATA_DIR = dataDir
  Reflect.set(globalThis, '__ASSENT_DEVELOPMENT_BUILD__', false)
})

afterEach(() => {
  delete process.env.ASSENT_DATA_DIR
  rmSync(dataDir, { recursive: true, force: true })
  rmSync(workspace, { recursive: true, force: true })
})

/** Loads src/main/index.ts as Electron would run it: before 'ready'. */
async function startMain(): Promise<{ sandboxBeforeReady: boolean }> {
  await import('../src/main/index.ts')
  return { sandboxBeforeReady: fake.app.sandboxEnabled && !fake.app.isReady() }
}

/** The workbench window, once its page has loaded and it is shown. */
async function workbenchWindow(): Promise<FakeBrowserWindow> {
  return eventually(() => {
    const win = fake.FakeBrowserWindow.created.find((each) =>
      String(each.loadedUrl).startsWith('assent-app:'),
    )
    return win && !win.isDestroyed() && win.isVisible() ? win : undefined
  }, 'the workbench window')
}

/** The prepared protected window, once main has warmed one. */
async function spareWindow(): Promise<FakeBrowserWindow> {
  return eventually(() => {
    const win = fake.FakeBrowserWindow.created.find(
      (each) =>
        String(each.loadedUrl).startsWith('assent-consent:') &&
        !each.isDestroyed() &&
        !each.isVisible(),
    )
    return win && win.webContents.finishedLoads > 0 ? win : undefined
  }, 'a prepared protected window')
}

/** A workbench call from its own page, as its preload makes it. */
function fromWorkbench(workbench: FakeBrowserWindow, channel: string, args: unknown) {
  return fake.ipcMain.invoke(channel, mainFrameEvent(workbench), args)
}

async function createRoom(workbench: FakeBrowserWindow): Promise<string> {
  const response = (await fromWorkbench(workbench, IPC.relayCall, [
    {
      method: 'POST',
      path: '/v1/rooms',
      body: { kind: 'direct', agentId: 'assistant', workspace, title: 'Entry test' },
    },
  ])) as { body: { room: { id: string } } }
  return response.body.room.id
}

describe('src/main/index.ts, ready to before-quit (electron mocked: no binary here)', () => {
  it('runs a prompt from open to closed, cancels one when the workbench closes, and quits cleanly', async () => {
    const { sandboxBeforeReady } = await startMain()
    expect(sandboxBeforeReady).toBe(true)
    expect(fake.privilegedSchemes.length).toBeGreaterThan(0)
    // Every protected window's page plays its part: it reports views drawn.
    fake.app.on('web-contents-created', (_event, contents) =>
      setImmediate(() => {
        const owner = (contents as FakeWebContents).owner
        if (owner) drawViews(owner)
      }),
    )
    fake.app.becomeReady()

    // Every webContents is guarded, even one nothing of Assent made.
    const stray = new fake.FakeWebContents()
    expect(stray.navigate('https://example.com/')).toBe('cancelled')
    expect(stray.open('https://example.com/')).toEqual({ action: 'deny' })

    const workbench = await workbenchWindow()
    const firstSpare = await spareWindow()

    // A spare whose renderer crashes closes; the workbench stays.
    await firstSpare.webContents.crash()
    await fake.settled()
    expect(firstSpare.isDestroyed()).toBe(true)
    expect(workbench.isDestroyed()).toBe(false)

    const roomId = await createRoom(workbench)
    const shownPrompt = (other?: FakeBrowserWindow) =>
      eventually(
        () =>
          fake.FakeBrowserWindow.created.find(
            (each) =>
              each !== other &&
              String(each.loadedUrl).startsWith('assent-consent:') &&
              !each.isDestroyed() &&
              each.isVisible(),
          ),
        'a prompt window shown',
      )

    // A prompt asked for with no press in the workbench: shown without
    // focus, flashing; then decided (cancel) and closed.
    const first = fromWorkbench(workbench, IPC.requestModeChange, [roomId, 'full-access'])
    const prompt = await shownPrompt()
    expect(prompt.isFocused()).toBe(false)
    expect(prompt.flashes).toContain(true)
    const shown = prompt.webContents.sent.find(([channel]) => channel === IPC.consentShow)
    const promptId = (shown?.[1] as { promptId: string }).promptId
    prompt.webContents.ipc.emit(IPC.consentDecide, mainFrameEvent(prompt), {
      promptId,
      answer: 'cancel',
    })
    await expect(first).resolves.toEqual({ status: 'cancelled' })
    await eventually(() => prompt.isDestroyed() || undefined, 'the prompt window closed')

    // One asked for right after a click in the workbench: focused, the
    // workbench's child, kept out of screen capture.
    workbench.webContents.input({ type: 'mouseUp', button: 'left' })
    const second = fromWorkbench(workbench, IPC.requestModeChange, [roomId, 'full-access'])
    const focused = await shownPrompt(prompt)
    expect(focused.isFocused()).toBe(true)
    expect(focused.getParentWindow()).toBe(workbench)
    expect(focused.contentProtected).toBe(true)

    // The workbench closes with it open: the prompt ends, nothing minted,
    // its window closes, and the app quits once the runtime has stopped.
    await workbench.close()
    await expect(second).resolves.toMatchObject({
      status: 'closed',
      reason: { code: 'app_closing' },
    })
    await eventually(() => focused.isDestroyed() || undefined, 'the prompt window closed')
    await eventually(() => fake.app.quitting || undefined, 'the app to quit')
    expect(fake.FakeBrowserWindow.created.every((each) => each.isDestroyed())).toBe(true)
    // The data folder is free again: another instance may take it.
    const lock = DataDirLock.acquire(dataDir)
    expect(lock).toBeDefined()
    lock?.release()
  })
})

describe('src/main/index.ts refuses to start (electron mocked: no binary here)', () => {
  it('refuses a debugging switch in a release build, before any window', async () => {
    fake.app.switches.add('remote-debugging-port')
    await startMain()
    expect(fake.app.exitCode).toBe(1)
    expect(fake.errorBoxes).toHaveLength(1)
    expect(fake.errorBoxes[0]?.[1]).toContain('remote-debugging-port')
    expect(fake.app.sandboxEnabled).toBe(false)
    expect(fake.FakeBrowserWindow.created).toEqual([])
  })

  it('leaves to the instance that holds the single-instance lock', async () => {
    fake.app.singleInstanceLock = false
    await startMain()
    expect(fake.app.quitCalls).toBe(1)
    expect(fake.errorBoxes).toEqual([])
    expect(fake.app.sandboxEnabled).toBe(false)
  })
})
