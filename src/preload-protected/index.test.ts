import { afterEach, describe, expect, it, vi } from 'vitest'
import { IPC } from '../common/ipc-channels.ts'

// No Electron binary runs here: `electron` is mocked with a recording
// contextBridge and ipcRenderer, and the real protected preload entry is
// loaded against them. docs/architecture.md §3: it exposes nothing to
// the page's main world.
const electron = vi.hoisted(() => ({
  contextBridge: { exposeInMainWorld: vi.fn(), exposeInIsolatedWorld: vi.fn() },
  ipcRenderer: { on: vi.fn(), send: vi.fn(), invoke: vi.fn() },
}))
vi.mock('electron', () => electron)

afterEach(() => {
  vi.unstubAllGlobals()
})

describe('the protected preload entry (electron mocked: no binary here)', () => {
  it("exposes nothing to the main world and listens only for the view and main's refusals", async () => {
    const page = { readyState: 'loading', addEventListener: vi.fn() }
    const window = {}
    vi.stubGlobal('document', page)
    vi.stubGlobal('window', window)
    await import('./index.ts')
    expect(electron.contextBridge.exposeInMainWorld).not.toHaveBeenCalled()
    expect(electron.contextBridge.exposeInIsolatedWorld).not.toHaveBeenCalled()
    expect(electron.ipcRenderer.on.mock.calls.map(([channel]) => channel)).toEqual([
      IPC.consentShow,
      IPC.consentRefused,
    ])
    expect(electron.ipcRenderer.send).not.toHaveBeenCalled()
    expect(electron.ipcRenderer.invoke).not.toHaveBeenCalled()
    expect(Object.keys(window)).toEqual([])
    expect(page.addEventListener).toHaveBeenCalledWith('DOMContentLoaded', expect.any(Function), {
      once: true,
    })
  })
})
