/**
 * Electron entry of the protected preload (sandboxed, context-isolated,
 * main frame only). Built to out/preload/protected.cjs.
 */
import { ipcRenderer } from 'electron'
import { startConsentPreload } from './consent-preload.ts'
import { createElectronTransport } from './electron-transport.ts'

// Listen before the page is parsed so a view sent early is queued, not lost.
const transport = createElectronTransport(ipcRenderer)

const start = () =>
  startConsentPreload({
    transport,
    document,
    window,
    now: () => performance.now(),
    setTimeout: (callback, ms) => window.setTimeout(callback, ms),
    clearTimeout: (handle) => window.clearTimeout(handle),
    afterDraw: afterNextFrame,
  })

/** After the next frame, or a short while if frames are held back (a
 *  hidden window may get none): main bounds its own wait as well. */
function afterNextFrame(callback: () => void): void {
  let called = false
  const once = () => {
    if (called) return
    called = true
    callback()
  }
  window.requestAnimationFrame(() => window.setTimeout(once, 0))
  window.setTimeout(once, 250)
}

if (document.readyState === 'loading') {
  document.addEventListener('DOMContentLoaded', start, { once: true })
} else {
  start()
}
