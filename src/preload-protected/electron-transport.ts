import type { ConsentDecisionMessage } from '../common/consent-view.ts'
import { IPC } from '../common/ipc-channels.ts'
import { ViewInbox, type ProtectedTransport } from './transport.ts'

/** The two `ipcRenderer` methods the transport uses; the entry passes
 *  Electron's `ipcRenderer`, tests pass a fake. */
export interface RendererIpc {
  on(channel: string, listener: (event: unknown, ...args: unknown[]) => void): unknown
  send(channel: string, ...args: unknown[]): void
}

/**
 * The Electron transport: views come on `IPC.consentShow`, the decision goes
 * out on `IPC.consentDecide`. Main checks the sender (this webContents, its
 * main frame, the consent page's URL) before it believes anything sent here.
 * Nothing is exposed to the page's main world.
 */
export function createElectronTransport(ipc: RendererIpc): ProtectedTransport {
  const inbox = new ViewInbox()
  let refused: ((message: unknown) => void) | undefined
  ipc.on(IPC.consentShow, (_event, view) => inbox.deliver(view))
  ipc.on(IPC.consentRefused, (_event, message) => refused?.(message))
  return {
    onShow: (listener) => inbox.onShow(listener),
    sendDecision: (message: ConsentDecisionMessage) => ipc.send(IPC.consentDecide, message),
    onRefused: (listener) => {
      refused = listener
    },
    viewDrawn: (promptId) => ipc.send(IPC.consentDrawn, { promptId }),
  }
}
