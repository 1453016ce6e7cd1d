import { beforeEach, describe, expect, it, vi } from 'vitest'
import type { AssentGui, WorkbenchEvent } from '../common/assent-gui.ts'
import { IPC, WORKBENCH_CHANNELS } from '../common/ipc-channels.ts'

// No Electron binary runs here: `electron` is mocked with a recording
// contextBridge and ipcRenderer, and the real preload entry is loaded
// against them to see exactly what it hands the page.
const electron = vi.hoisted(() => {
  type Listener = (event: unknown, ...args: unknown[]) => void
  const listeners = new Map<string, Listener[]>()
  const ipcRenderer = {
    invoke: vi.fn(async (..._args: unknown[]): Promise<unknown> => null),
    on: vi.fn((channel: string, listener: Listener) => {
      listeners.set(channel, [...(listeners.get(channel) ?? []), listener])
      return ipcRenderer
    }),
    removeListener: vi.fn((channel: string, listener: Listener) => {
      listeners.set(
        channel,
        (listeners.get(channel) ?? []).filter((each) => each !== listener),
      )
      return ipcRenderer
    }),
    send: vi.fn(),
  }
  const contextBridge = { exposeInMainWorld: vi.fn(), exposeInIsolatedWorld: vi.fn() }
  /** What main's `webContents.send` would deliver, with a real-looking event. */
  const emit = (channel: string, payload: unknown) => {
    const event = { sender: ipcRenderer, senderId: 0, ports: [] }
    for (const listener of listeners.get(channel) ?? []) listener(event, payload)
  }
  return { ipcRenderer, contextBridge, emit, listeners }
})
vi.mock('electron', () => ({
  contextBridge: electron.contextBridge,
  ipcRenderer: electron.ipcRenderer,
}))

async function loadPreload(): Promise<AssentGui> {
  vi.resetModules()
  electron.contextBridge.exposeInMainWorld.mockClear()
  electron.ipcRenderer.invoke.mockClear()
  electron.listeners.clear()
  await import('./index.ts')
  const [call] = electron.contextBridge.exposeInMainWorld.mock.calls
  return call?.[1] as AssentGui
}

beforeEach(() => {
  electron.ipcRenderer.on.mockClear()
})

describe('the workbench preload entry (electron mocked: no binary here)', () => {
  it('exposes exactly one thing, assentGui, made only of functions', async () => {
    const gui = await loadPreload()
    expect(electron.contextBridge.exposeInMainWorld).toHaveBeenCalledTimes(1)
    expect(electron.contextBridge.exposeInMainWorld.mock.calls[0]?.[0]).toBe('assentGui')
    expect(electron.contextBridge.exposeInIsolatedWorld).not.toHaveBeenCalled()
    for (const [name, value] of Object.entries(gui)) {
      expect(typeof value, name).toBe('function')
      expect(value, name).not.toBe(electron.ipcRenderer.invoke)
      expect(value, name).not.toBe(electron.ipcRenderer.on)
    }
    expect(Object.values(gui)).not.toContain(electron.ipcRenderer)
    expect(Object.isFrozen(gui)).toBe(true)
  })

  it('sends each call on the channel main registers for it', async () => {
    const gui = await loadPreload()
    await gui.listRooms()
    await gui.reviewApproval('ap_1')
    await gui.rejectApprovalForMessage('ap_1')
    await gui.openSensitiveForm('in_1')
    await gui.requestModeChange('room_1', 'full-access')
    await gui.requestApproverWebhook('room_1', null)
    await gui.setPreferences({ lang: 'en', theme: 'dark' })
    expect(electron.ipcRenderer.invoke.mock.calls.map(([channel]) => channel)).toEqual([
      WORKBENCH_CHANNELS.relay,
      WORKBENCH_CHANNELS.review,
      WORKBENCH_CHANNELS.reject,
      WORKBENCH_CHANNELS.form,
      WORKBENCH_CHANNELS.mode,
      WORKBENCH_CHANNELS.webhook,
      WORKBENCH_CHANNELS.preferences,
    ])
    expect(electron.ipcRenderer.invoke.mock.calls[1]).toEqual([IPC.reviewApproval, ['ap_1']])
  })

  it('hands event listeners only { type, data }, never the IpcRendererEvent or ipcRenderer', async () => {
    const gui = await loadPreload()
    const received: unknown[][] = []
    const unsubscribe = gui.onEvent((...args: unknown[]) => {
      received.push(args)
    })
    electron.emit(IPC.runtimeEvent, {
      type: 'approval.created',
      data: { approvalId: 'ap_1' },
      sender: 'smuggled',
    })
    expect(received).toEqual([[{ type: 'approval.created', data: { approvalId: 'ap_1' } }]])
    const [[event]] = received as [[WorkbenchEvent]]
    expect(Object.keys(event)).toEqual(['type', 'data'])
    expect(Object.values(event)).not.toContain(electron.ipcRenderer)
    unsubscribe()
    electron.emit(IPC.runtimeEvent, { type: 'approval.created', data: {} })
    expect(received).toHaveLength(1)
  })
})
