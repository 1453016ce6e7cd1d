import { readFile, realpath } from 'node:fs/promises'
import { extname, isAbsolute, join, relative } from 'node:path'
import type { PageSite } from '../core/page-sites.ts'

/**
 * Serves a site's built files for `protocol.handle`. Node only (no Electron
 * import), so it is tested against real files. Everything it cannot map to a
 * file inside one of the site's folders is a 404, with no detail: the page
 * asking is not trusted with our layout.
 */

export type PagePath =
  { ok: true; relativePath: string; contentType: string } | { ok: false; reason: string }

/** True when `url` is on this site's scheme and host: the only requests the
 *  protected session lets through. */
export function isSiteUrl(site: PageSite, url: string): boolean {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return false
  }
  return (
    parsed.protocol === `${site.scheme}:` &&
    parsed.host === site.host &&
    parsed.username === '' &&
    parsed.password === ''
  )
}

/**
 * The file a URL names, relative to `out/renderer/`, or why it names none.
 * Refuses encoded characters (no built file needs one, and decoding is where
 * traversal hides), dot segments, empty segments, backslashes, folders the
 * site does not own and extensions it does not serve.
 */
export function resolvePagePath(site: PageSite, url: string): PagePath {
  if (!isSiteUrl(site, url)) return { ok: false, reason: 'not this site' }
  const { pathname } = new URL(url)
  if (/[%\\\0]/.test(pathname)) return { ok: false, reason: 'encoded or unusual characters' }
  const segments = pathname.slice(1).split('/')
  if (segments.some((segment) => segment === '' || segment === '.' || segment === '..')) {
    return { ok: false, reason: 'empty or dot segment' }
  }
  const [folder] = segments
  if (segments.length < 2 || folder === undefined || !site.folders.includes(folder)) {
    return { ok: false, reason: 'outside the site folders' }
  }
  const relativePath = segments.join('/')
  const contentType = site.contentTypes[extname(relativePath).toLowerCase()]
  if (contentType === undefined) return { ok: false, reason: 'extension not served' }
  return { ok: true, relativePath, contentType }
}

const notFound = () =>
  new Response('not found', {
    status: 404,
    headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' },
  })

/**
 * Answers one `protocol.handle` request. Only GET; the resolved file must
 * still lie inside `rendererDir` after symlinks are followed, so a link in
 * the build output cannot serve a file from elsewhere on disk.
 */
export async function servePageFile(
  site: PageSite,
  rendererDir: string,
  request: { method: string; url: string },
): Promise<Response> {
  if (request.method !== 'GET') {
    return new Response('method not allowed', { status: 405, headers: { allow: 'GET' } })
  }
  const resolved = resolvePagePath(site, request.url)
  if (!resolved.ok) return notFound()
  let body: Buffer
  try {
    const root = await realpath(rendererDir)
    const file = await realpath(join(root, ...resolved.relativePath.split('/')))
    const inside = relative(root, file)
    if (inside === '' || inside.startsWith('..') || isAbsolute(inside)) return notFound()
    body = await readFile(file)
  } catch {
    return notFound()
  }
  return new Response(new Uint8Array(body), {
    status: 200,
    headers: {
      'content-type': resolved.contentType,
      'content-security-policy': site.contentSecurityPolicy,
      'x-content-type-options': 'nosniff',
      'cache-control': 'no-store',
    },
  })
}
