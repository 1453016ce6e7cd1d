/**
 * Names the CDP host and the CDP builds of the preloads share: the isolated
 * worlds, their bindings, and the functions the host calls inside them.
 * No DOM types here, so the host (Node) can import this file.
 */

/** Name of the isolated world the CDP host injects the protected preload
 *  into, and of the binding visible only in that world. */
export const CDP_PROTECTED_WORLD = 'assent-protected'
export const CDP_PROTECTED_BINDING = 'assentProtectedSend'
export const CDP_WORKBENCH_WORLD = 'assent-workbench'
export const CDP_WORKBENCH_BINDING = 'assentWorkbenchSend'

/**
 * The function the CDP host calls inside the protected isolated world
 * (`Runtime.evaluate` with that world's `contextId`) to deliver a view, as a
 * JSON string: `globalThis.__assentProtectedReceive(json)`. It exists only in
 * that world, never in the page's main world.
 */
export const CDP_PROTECTED_RECEIVE = '__assentProtectedReceive'

/** DOM event names the CDP host's two workbench scripts talk through: the
 *  isolated world holds the binding; the main world gets `assentGui`. */
export const GUI_REQUEST_EVENT = 'assent-gui:request'
export const GUI_RESPONSE_EVENT = 'assent-gui:response'
export const WORKBENCH_RECEIVE = '__assentWorkbenchReceive'
