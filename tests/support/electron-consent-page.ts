import { IPC } from '../../src/common/ipc-channels.ts'
import type { FakeBrowserWindow } from './fake-electron.ts'

// The consent page's part in the Electron host's protocol, played by a test
// (the fake runs no renderer): when main sends a view, the page reports it
// drawn a task later, from its main frame, as the protected preload does.

/** The IPC event Electron gives a message from `win`'s main frame. */
export function mainFrameEvent(win: FakeBrowserWindow) {
  return { sender: { id: win.webContents.id }, senderFrame: win.webContents.mainFrame }
}

/** Makes `win`'s page report each view drawn, as the preload would. */
export function drawViews(win: FakeBrowserWindow): void {
  win.webContents.onSend = (channel, payload) => {
    if (channel !== IPC.consentShow) return
    const { promptId } = payload as { promptId: string }
    setImmediate(() => {
      if (!win.webContents.isDestroyed()) {
        win.webContents.ipc.emit(IPC.consentDrawn, mainFrameEvent(win), { promptId })
      }
    })
  }
}
