import { readFile } from 'node:fs/promises'
import { extname, join, relative, sep } from 'node:path'
import type { BrowserContext, Route } from 'playwright-core'

/** Origins the CDP host serves pages from. Requests are answered from disk
 *  by the router below and never reach a network. */
export const WORKBENCH_ORIGIN = 'https://workbench.assent.invalid'
export const CONSENT_ORIGIN = 'https://consent.assent.invalid'
export const WORKBENCH_URL = `${WORKBENCH_ORIGIN}/workbench/index.html`
export const CONSENT_URL = `${CONSENT_ORIGIN}/consent/index.html`

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
}

export interface ServedFolder {
  origin: string
  /** Folder on disk the origin's paths map into. */
  root: string
  /** Only paths under this prefix are served (e.g. `/consent/`). */
  pathPrefix: string
  csp: string
}

/**
 * The request router of one browser context: files under the served
 * folder are answered from disk, everything else is aborted, so a window
 * can load nothing but its own page's files. Blocked URLs are recorded.
 */
export async function routeOnly(context: BrowserContext, served: ServedFolder): Promise<string[]> {
  const blocked: string[] = []
  await context.route('**/*', async (route: Route) => {
    const request = route.request()
    const file = fileFor(request.url(), served)
    if (!file) {
      blocked.push(request.url())
      // A refused navigation is answered 204 No Content: the browser then
      // stays on the current document (as Electron's prevented
      // will-navigate does) instead of replacing it with an error page.
      if (request.isNavigationRequest()) await route.fulfill({ status: 204, body: '' })
      else await route.abort('blockedbyclient')
      return
    }
    try {
      const body = await readFile(file)
      await route.fulfill({
        status: 200,
        body,
        headers: {
          'content-type': CONTENT_TYPES[extname(file)] ?? 'application/octet-stream',
          'content-security-policy': served.csp,
          'x-content-type-options': 'nosniff',
          'cache-control': 'no-store',
        },
      })
    } catch {
      blocked.push(route.request().url())
      await route.abort('blockedbyclient')
    }
  })
  return blocked
}

/** Maps a URL to a file inside the served folder, or undefined. Compared
 *  after parsing, never by string prefix, and refused on any traversal. */
export function fileFor(url: string, served: ServedFolder): string | undefined {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return undefined
  }
  if (parsed.origin !== served.origin || parsed.search !== '' || parsed.username !== '')
    return undefined
  const path = parsed.pathname
  if (!path.startsWith(served.pathPrefix) || path.includes('%') || path.includes('..'))
    return undefined
  const file = join(served.root, ...path.split('/').filter(Boolean))
  const inside = relative(served.root, file)
  if (inside === '' || inside.startsWith('..') || inside.split(sep).includes('..')) return undefined
  return CONTENT_TYPES[extname(file)] ? file : undefined
}
