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
