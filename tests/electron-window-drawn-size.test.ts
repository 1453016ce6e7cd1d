import { beforeEach, describe, expect, it, vi } from 'vitest'
import { IPC } from '../src/common/ipc-channels.ts'
import { ElectronProtectedWindowFactory } from '../src/main/electron/protected-window.ts'
import { approvalView } from '../src/preload-protected/test-support/consent-views.ts'
import { drawViews } from './support/electron-consent-page.ts'
import { FakeBrowserWindow, fakeDisplays, resetFakeElectron } from './support/fake-electron.ts'

// The page draws the view and measures it (whether the end of the action
// is in view keeps Allow off until it has been), so the window must already
// have the size it is shown at when the view reaches it. No Electron binary
// exists here: the recording double of `electron` stands in for it.
vi.mock('electron', () => import('./support/fake-electron.ts'))

beforeEach(() => resetFakeElectron())

/** Screens whose work area is shorter than the window asks for: a laptop
 *  at 125 % or 150 % scaling, the taskbar or dock taken off. */
const SMALL_SCREENS = [
  { name: '1366×768 at 125 %', workArea: { x: 0, y: 0, width: 1093, height: 574 } },
  { name: '1920×1080 at 150 %', workArea: { x: 0, y: 0, width: 1280, height: 672 } },
] as const

describe('the size a protected window draws its view at (electron mocked)', () => {
  for (const { name, workArea } of SMALL_SCREENS) {
    it(`is the size it is shown at, on a ${name} screen, with the workbench its parent once shown`, async () => {
      fakeDisplays.push({ id: 1, bounds: { ...workArea, height: workArea.height + 40 }, workArea })
      const workbench = new FakeBrowserWindow({ webPreferences: {} })
      workbench.setBounds({ x: 0, y: 0, width: workArea.width, height: workArea.height })
      const factory = new ElectronProtectedWindowFactory({
        appRoot: '/app',
        developmentBuild: false,
        now: () => 0,
        onDecision: () => {},
        parent: () => workbench as never,
      })
      const window = await factory.open('prompt-1', { width: 560, height: 680 })
      factory.close()
      const win = FakeBrowserWindow.created.at(-1)!
      drawViews(win)
      const draw = win.webContents.onSend
      let drawnIn: { width: number; height: number; visible: boolean } | undefined
      win.webContents.onSend = (channel, payload) => {
        if (channel === IPC.consentShow) {
          const { width, height } = win.getBounds()
          drawnIn = { width, height, visible: win.isVisible() }
        }
        draw?.(channel, payload)
      }
      await window.show(approvalView())
      const shown = win.getBounds()
      expect(drawnIn).toEqual({ width: shown.width, height: shown.height, visible: false })
      expect(shown.height).toBe(workArea.height)
      expect(win.getParentWindow()).toBe(workbench)
    })
  }
})
