import { join } from 'node:path'
import type { CustomScheme } from 'electron'
import { CONSENT_SITE, WORKBENCH_SITE } from '../core/page-sites.ts'

/**
 * Where the Electron host finds what electron-vite built (see
 * electron.vite.config.ts), relative to the app root (`app.getAppPath()`, the
 * asar in a packaged build). One place, so a moved output breaks loudly here
 * rather than quietly loading something else.
 */
export const BUILT_FILES = {
  runtimeEntry: 'out/main/runtime.js',
  protectedPreload: 'out/preload/protected.cjs',
  workbenchPreload: 'out/preload/workbench.cjs',
  /** Both pages and their assets: `workbench/`, `consent/`, `assets/`. */
  rendererDir: 'out/renderer',
} as const

export function builtPath(appRoot: string, part: keyof typeof BUILT_FILES): string {
  return join(appRoot, BUILT_FILES[part])
}

/**
 * Registered once, before `ready`. `standard` gives each scheme a real origin
 * (so the sender validator and CSP `'self'` mean something), `secure` makes
 * it a secure context, `corsEnabled` lets the `crossorigin` module script and
 * stylesheet Vite emits load from their own origin. No service workers, no
 * fetch API, no CSP bypass.
 */
export const PRIVILEGED_SCHEMES: CustomScheme[] = [CONSENT_SITE, WORKBENCH_SITE].map((site) => ({
  scheme: site.scheme,
  privileges: {
    standard: true,
    secure: true,
    corsEnabled: true,
    supportFetchAPI: false,
    allowServiceWorkers: false,
    bypassCSP: false,
    stream: false,
    codeCache: false,
  },
}))
