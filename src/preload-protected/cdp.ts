/**
 * CDP entry of the protected preload. Built as one classic script (IIFE) to
 * out/cdp/preload-protected.js; the CDP host injects it with
 * `Page.addScriptToEvaluateOnNewDocument({ source, worldName:
 * CDP_PROTECTED_WORLD })`, so it runs at document start in an isolated world.
 */
import { createCdpTransport } from './cdp-transport.ts'
import { startConsentPreload } from './consent-preload.ts'

// Created at once, before the page is parsed: the binding is captured and the
// receive function defined before any other script could run.
const transport = createCdpTransport(globalThis)

const start = () =>
  startConsentPreload({
    transport,
    document,
    window,
    now: () => performance.now(),
    setTimeout: (callback, ms) => window.setTimeout(callback, ms),
    clearTimeout: (handle) => window.clearTimeout(handle),
  })

if (document.readyState === 'loading') {
  document.addEventListener('DOMContentLoaded', start, { once: true })
} else {
  start()
}
