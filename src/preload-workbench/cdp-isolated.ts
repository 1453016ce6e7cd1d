import {
  CDP_WORKBENCH_BINDING,
  GUI_REQUEST_EVENT,
  GUI_RESPONSE_EVENT,
  WORKBENCH_RECEIVE,
} from '../common/cdp-names.ts'

// Runs in the CDP host's isolated world `assent-workbench`, the only world
// where the binding to main exists. It relays JSON strings between the page's
// `assentGui` (main world, via DOM events) and main (via the binding).
const binding = (globalThis as Record<string, unknown>)[CDP_WORKBENCH_BINDING]
const send = typeof binding === 'function' ? (binding as (payload: string) => void) : undefined

document.addEventListener(GUI_REQUEST_EVENT, (event) => {
  const detail = (event as CustomEvent<unknown>).detail
  // Without the binding there is no channel to main: fail closed.
  if (typeof detail !== 'string' || !send) return
  send(detail)
})

Object.defineProperty(globalThis, WORKBENCH_RECEIVE, {
  value: (json: string) => {
    document.dispatchEvent(new CustomEvent(GUI_RESPONSE_EVENT, { detail: json }))
  },
})
