import type { ConsentDecisionMessage } from '../common/consent-view.ts'

/**
 * How the protected preload talks to main. Two adapters keep the same
 * contract: Electron IPC (`electron-transport.ts`) and a CDP binding in an
 * isolated world (`cdp-transport.ts`). Neither ever puts anything in the
 * page's main world.
 */
export interface ProtectedTransport {
  /** Registers the one listener for views from main. A view that arrived
   *  before the listener was registered is handed to it at once. Views are
   *  untrusted input until the preload has parsed them. */
  onShow(listener: (view: unknown) => void): void
  /** Sends the person's decision to main. Called once per window, or again
   *  after main refused the one before. */
  sendDecision(message: ConsentDecisionMessage): void
  /** Registers the listener for main's refusals of a decision (untrusted
   *  until parsed). A transport without it never hears one. */
  onRefused?(listener: (message: unknown) => void): void
  /** Tells main the view has been drawn (it shows the window then). */
  viewDrawn?(promptId: string): void
}

/** Only the first valid view is ever shown, so a few queued messages are
 *  plenty; anything beyond is dropped rather than buffered without bound. */
const MAX_QUEUED_VIEWS = 4

/** Holds views that arrive before the page is ready (the CDP script runs
 *  before the document is parsed) and hands them over once a listener is set. */
export class ViewInbox {
  #listener: ((view: unknown) => void) | undefined
  readonly #queued: unknown[] = []

  deliver(view: unknown): void {
    if (this.#listener) {
      this.#listener(view)
    } else if (this.#queued.length < MAX_QUEUED_VIEWS) {
      this.#queued.push(view)
    }
  }

  onShow(listener: (view: unknown) => void): void {
    this.#listener = listener
    for (const view of this.#queued.splice(0)) listener(view)
  }
}
