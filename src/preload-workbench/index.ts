import { contextBridge, ipcRenderer } from 'electron'
import type { WorkbenchEvent } from '../common/assent-gui.ts'
import { IPC, WORKBENCH_CHANNELS } from '../common/ipc-channels.ts'
import { createAssentGui } from './gui-api.ts'

// Only this small API reaches the page: never ipcRenderer itself, and never
// an IpcRendererEvent (its `sender` would hand the page the whole IPC API).
contextBridge.exposeInMainWorld(
  'assentGui',
  createAssentGui({
    invoke: (channel, args) => ipcRenderer.invoke(WORKBENCH_CHANNELS[channel], args),
    onEvent: (listener) => {
      const handler = (_event: unknown, payload: WorkbenchEvent) =>
        listener({ type: String(payload?.type), data: payload?.data })
      ipcRenderer.on(IPC.runtimeEvent, handler)
      return () => {
        ipcRenderer.removeListener(IPC.runtimeEvent, handler)
      }
    },
  }),
)
