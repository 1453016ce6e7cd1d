import { CDP_PROTECTED_BINDING, CDP_PROTECTED_RECEIVE } from '../common/cdp-names.ts'
import type { ConsentDecisionMessage } from '../common/consent-view.ts'
import { ViewInbox, type ProtectedTransport } from './transport.ts'

/**
 * The CDP transport, for the preload injected by the CDP host into the
 * isolated world `CDP_PROTECTED_WORLD`. That world shares the DOM with the
 * page but none of its JS globals, so the page's main world sees neither the
 * binding nor the receive function.
 *
 * - Send: the `Runtime.addBinding` function `CDP_PROTECTED_BINDING`, called
 *   with the JSON of the decision. It is captured now, at document start,
 *   so nothing that runs later can swap it. Without it nothing is sent.
 * - Receive: `CDP_PROTECTED_RECEIVE(json)`, defined here as a non-writable,
 *   non-configurable property of the world's global.
 */
export function createCdpTransport(scope: object): ProtectedTransport {
  const binding: unknown = Reflect.get(scope, CDP_PROTECTED_BINDING)
  const send = typeof binding === 'function' ? binding : undefined
  const stringify = JSON.stringify
  const parse = JSON.parse
  const inbox = new ViewInbox()
  let refused: ((message: unknown) => void) | undefined

  Object.defineProperty(scope, CDP_PROTECTED_RECEIVE, {
    value: (json: unknown) => {
      if (typeof json !== 'string') return
      let message: unknown
      try {
        message = parse(json)
      } catch {
        return
      }
      // Main's refusal of a decision comes the same way, marked as such;
      // anything else is a view candidate (the preload parses both).
      if (isRefusal(message)) refused?.(message)
      else inbox.deliver(message)
    },
    writable: false,
    configurable: false,
    enumerable: false,
  })

  return {
    onShow: (listener) => inbox.onShow(listener),
    onRefused: (listener) => {
      refused = listener
    },
    sendDecision: (message: ConsentDecisionMessage) => {
      // Fail closed: without the host's binding there is no trusted way out.
      if (!send) return
      Reflect.apply(send, undefined, [stringify(message)])
    },
  }
}

/** The CDP host's refusal message: `{ refused: true, promptId }`. */
function isRefusal(message: unknown): boolean {
  return typeof message === 'object' && message !== null && Reflect.get(message, 'refused') === true
}
