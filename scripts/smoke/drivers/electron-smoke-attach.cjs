/* global process */
// Preloaded into Electron's main process by the smoke scenario's Electron
// driver: `electron -r <this file> <project root>`. Electron's default app
// (default_app/main.ts) preloads `-r` modules before it loads the app's
// main; a packaged app has no default app, and its release build no smoke
// port. A development build's main offers its smoke port on `process` only
// when this listener is already there (src/main/electron/smoke-port.ts);
// this module keeps the port where the driver's `app.evaluate` reaches it,
// `globalThis.__assentSmoke`, put there by the smoke, never by main.
'use strict'

/** Must equal SMOKE_PORT_EVENT in src/main/electron/smoke-port.ts
 *  (electron-smoke-attach.test.ts runs the two together). */
const SMOKE_PORT_EVENT = 'assent:smoke-port'

process.once(SMOKE_PORT_EVENT, (port) => {
  Object.defineProperty(globalThis, '__assentSmoke', {
    value: port,
    enumerable: false,
    writable: false,
    configurable: false,
  })
})
