import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CONSENT_SITE, WORKBENCH_SITE } from '../core/page-sites.ts'
import { isSiteUrl, resolvePagePath, servePageFile } from './page-files.ts'

let base: string
let rendererDir: string

// A real build layout on disk: out/renderer/{consent,workbench,assets}, and a
// secret beside it that no URL may reach.
beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'assent-page-files-'))
  rendererDir = join(base, 'renderer')
  await mkdir(join(rendererDir, 'consent'), { recursive: true })
  await mkdir(join(rendererDir, 'workbench'), { recursive: true })
  await mkdir(join(rendererDir, 'assets'), { recursive: true })
  await writeFile(join(rendererDir, 'consent', 'index.html'), '<!doctype html><p>consent</p>')
  await writeFile(join(rendererDir, 'consent', 'consent-abc.css'), 'body{}')
  await writeFile(join(rendererDir, 'workbench', 'index.html'), '<!doctype html><p>workbench</p>')
  await writeFile(join(rendererDir, 'assets', 'workbench-abc.js'), 'export {}')
  await writeFile(join(base, 'secret.txt'), 'bearer token')
  await writeFile(join(base, 'secret.css'), 'stolen{}')
  await symlink(join(base, 'secret.css'), join(rendererDir, 'consent', 'escape.css'))
})

afterAll(async () => {
  await rm(base, { recursive: true, force: true })
})

const get = (site = CONSENT_SITE, url = site.pageUrl) =>
  servePageFile(site, rendererDir, { method: 'GET', url })

describe('servePageFile', () => {
  it('serves the consent page with its content type and security headers', async () => {
    const response = await get()
    expect(response.status).toBe(200)
    expect(await response.text()).toBe('<!doctype html><p>consent</p>')
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(response.headers.get('content-security-policy')).toBe(CONSENT_SITE.contentSecurityPolicy)
    expect(response.headers.get('x-content-type-options')).toBe('nosniff')
  })

  it('serves the stylesheet the built page links relatively', async () => {
    const cssUrl = new URL('../consent/consent-abc.css', CONSENT_SITE.pageUrl).href
    const response = await get(CONSENT_SITE, cssUrl)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('text/css; charset=utf-8')
  })

  it('serves the workbench page and its module script from their folders', async () => {
    expect((await get(WORKBENCH_SITE)).status).toBe(200)
    const scriptUrl = new URL('../assets/workbench-abc.js', WORKBENCH_SITE.pageUrl).href
    const script = await get(WORKBENCH_SITE, scriptUrl)
    expect(script.status).toBe(200)
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8')
  })

  it('refuses a symlink that leads out of the build folder', async () => {
    expect((await get(CONSENT_SITE, 'assent-consent://consent/consent/escape.css')).status).toBe(
      404,
    )
  })

  it('refuses traversal, encodings and files outside the site folders', async () => {
    for (const url of [
      'assent-consent://consent/consent/%2e%2e/%2e%2e/secret.css',
      'assent-consent://consent/consent/..%2f..%2fsecret.css',
      'assent-consent://consent/consent/..\\..\\secret.css',
      'assent-consent://consent/workbench/index.html',
      'assent-consent://consent/assets/workbench-abc.js',
      'assent-consent://consent/consent/',
      'assent-consent://consent/consent//index.html',
      'assent-consent://consent/index.html',
      'assent-consent://consent/',
      'assent-consent://evil/consent/index.html',
      'assent-app://app/consent/index.html',
    ]) {
      expect((await get(CONSENT_SITE, url)).status, url).toBe(404)
    }
  })

  it('refuses a file type the site does not serve', async () => {
    await writeFile(join(rendererDir, 'consent', 'notes.txt'), 'x')
    expect((await get(CONSENT_SITE, 'assent-consent://consent/consent/notes.txt')).status).toBe(404)
  })

  it('answers 404 for a missing file', async () => {
    expect((await get(CONSENT_SITE, 'assent-consent://consent/consent/missing.css')).status).toBe(
      404,
    )
  })

  it('answers only GET', async () => {
    const response = await servePageFile(CONSENT_SITE, rendererDir, {
      method: 'POST',
      url: CONSENT_SITE.pageUrl,
    })
    expect(response.status).toBe(405)
  })
})

describe('resolvePagePath', () => {
  it('maps a URL to its path under out/renderer', () => {
    expect(resolvePagePath(WORKBENCH_SITE, 'assent-app://app/assets/a.js?v=1#x')).toEqual({
      ok: true,
      relativePath: 'assets/a.js',
      contentType: 'text/javascript; charset=utf-8',
    })
  })

  it('refuses dot segments even where the URL parser would keep them', () => {
    expect(resolvePagePath(WORKBENCH_SITE, 'assent-app://app/assets/%2e%2e/x.js').ok).toBe(false)
  })
})

describe('isSiteUrl', () => {
  it("recognises only the site's own scheme and host", () => {
    expect(isSiteUrl(CONSENT_SITE, CONSENT_SITE.pageUrl)).toBe(true)
    for (const url of [
      'assent-consent://consent.evil/consent/index.html',
      'assent-consent://user@consent/consent/index.html',
      'assent-app://consent/consent/index.html',
      'https://consent/consent/index.html',
      'data:text/html,x',
      'devtools://devtools/bundled/inspector.html',
      'not a url',
    ]) {
      expect(isSiteUrl(CONSENT_SITE, url), url).toBe(false)
    }
  })
})
