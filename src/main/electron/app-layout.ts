import { join } from 'node:path'
import type { CustomScheme } from 'electron'

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
 * A page the host serves from its own scheme with `protocol.handle`, never
 * `file://`. URL paths mirror the layout under `out/renderer/`, so the
 * relative asset links Vite writes (`../assets/…`) resolve without rewriting.
 */
export interface PageSite {
  scheme: string
  host: string
  /** The page itself, loaded with `loadURL` and checked by the sender validator. */
  pageUrl: string
  /** Top-level folders under `out/renderer/` this site may serve from. */
  folders: readonly string[]
  /** File extensions it may serve, with their content types. */
  contentTypes: Readonly<Record<string, string>>
  /** Sent as a header as well as the page's own meta tag: a header also
   *  carries `frame-ancestors`, which a meta tag cannot. */
  contentSecurityPolicy: string
}

/** The protected consent page: static HTML and its stylesheet, no scripts. */
export const CONSENT_SITE: PageSite = {
  scheme: 'assent-consent',
  host: 'consent',
  pageUrl: 'assent-consent://consent/consent/index.html',
  folders: ['consent'],
  contentTypes: {
    '.html': 'text/html; charset=utf-8',
    '.css': 'text/css; charset=utf-8',
  },
  contentSecurityPolicy: [
    "default-src 'none'",
    "style-src 'self'",
    "img-src 'self'",
    "script-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; '),
}

/** The workbench: the React app and its assets. It shows model output, so
 *  its policy allows no connection anywhere; it reaches main over IPC only. */
export const WORKBENCH_SITE: PageSite = {
  scheme: 'assent-app',
  host: 'app',
  pageUrl: 'assent-app://app/workbench/index.html',
  folders: ['workbench', 'assets'],
  contentTypes: {
    '.html': 'text/html; charset=utf-8',
    '.js': 'text/javascript; charset=utf-8',
    '.css': 'text/css; charset=utf-8',
    '.svg': 'image/svg+xml',
    '.png': 'image/png',
    '.woff2': 'font/woff2',
  },
  contentSecurityPolicy: [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'none'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; '),
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
