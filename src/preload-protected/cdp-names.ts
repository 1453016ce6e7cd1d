/**
 * The function the CDP host calls inside the protected isolated world
 * (`Runtime.evaluate` with that world's `contextId`) to deliver a view, as a
 * JSON string: `globalThis.__assentProtectedReceive(json)`. It exists only in
 * that world, never in the page's main world. No DOM types here, so the host
 * (Node) can import this file.
 */
export const CDP_PROTECTED_RECEIVE = '__assentProtectedReceive'
