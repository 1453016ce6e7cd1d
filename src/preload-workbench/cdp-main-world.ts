import type { WorkbenchEvent } from '../common/assent-gui.ts'
import { GUI_REQUEST_EVENT, GUI_RESPONSE_EVENT } from '../common/cdp-names.ts'
import { createAssentGui } from './gui-api.ts'

// Runs in the page's main world on the CDP host and defines `assentGui` the
// way contextBridge does on Electron. It holds no capability the page lacks:
// every call becomes a request main validates.
type Reply = { id: number; ok: boolean; value?: unknown; error?: string }
type Incoming = Reply | { event: WorkbenchEvent }

let nextId = 1
const pending = new Map<
  number,
  { resolve: (value: unknown) => void; reject: (error: Error) => void }
>()
const listeners = new Set<(event: WorkbenchEvent) => void>()

document.addEventListener(GUI_RESPONSE_EVENT, (event) => {
  const detail = (event as CustomEvent<unknown>).detail
  if (typeof detail !== 'string') return
  let message: Incoming
  try {
    message = JSON.parse(detail) as Incoming
  } catch {
    return
  }
  if ('event' in message) {
    for (const listener of listeners) listener(message.event)
    return
  }
  const waiter = pending.get(message.id)
  if (!waiter) return
  pending.delete(message.id)
  if (message.ok) waiter.resolve(message.value)
  else waiter.reject(new Error(message.error ?? 'refused'))
})

const gui = createAssentGui({
  invoke: (channel, args) =>
    new Promise((resolve, reject) => {
      const id = nextId++
      pending.set(id, { resolve, reject })
      document.dispatchEvent(
        new CustomEvent(GUI_REQUEST_EVENT, { detail: JSON.stringify({ id, channel, args }) }),
      )
    }),
  onEvent: (listener) => {
    listeners.add(listener)
    return () => {
      listeners.delete(listener)
    }
  },
})

Object.defineProperty(window, 'assentGui', { value: gui, enumerable: true })
