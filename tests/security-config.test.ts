import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import type { Response } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CONSENT_SITE, WORKBENCH_SITE } from '../src/main/core/page-sites.ts'
import { pressEscapeToCancel } from '../scripts/smoke/consent-keys.ts'
import {
  chromiumAvailable,
  startHostHarness,
  type HostHarness,
} from './support/cdp-host-harness.ts'

// Security settings that live in more than one place (a page's meta tag, the
// Electron host's header, the CDP host's header) or only in packaging
// configuration: each is checked against the one the design names.

const ROOT = resolve(import.meta.dirname, '..')
const read = (path: string) => readFileSync(resolve(ROOT, path), 'utf8')

/** docs/architecture.md §3, the consent page's policy, word for word. */
const ARCHITECTURE_CONSENT_CSP =
  "default-src 'none'; style-src 'self'; img-src 'self'; script-src 'none'; base-uri 'none'; form-action 'none'"

/** A meta tag cannot carry `frame-ancestors` (browsers ignore it there), so
 *  the header has it and the meta tag has every other directive. */
const withoutFrameAncestors = (csp: string) =>
  csp
    .split(';')
    .map((directive) => directive.trim())
    .filter((directive) => directive !== '' && !directive.startsWith('frame-ancestors'))
    .join('; ')

function metaCsp(htmlPath: string): string {
  const html = read(htmlPath)
  const tags = html.match(/<meta\s[^>]*http-equiv="Content-Security-Policy"[^>]*>/gi) ?? []
  expect(tags, htmlPath).toHaveLength(1)
  const content = /content="([^"]*)"/.exec(tags[0] ?? '')?.[1]
  if (content === undefined) throw new Error(`${htmlPath}: the CSP meta tag has no content`)
  return content
}

describe('content security policies agree everywhere they are written', () => {
  it("the consent page's meta tag is docs/architecture.md's policy", () => {
    expect(metaCsp('src/renderer/consent/index.html')).toBe(ARCHITECTURE_CONSENT_CSP)
  })

  it("the Electron host's consent header is that policy plus frame-ancestors 'none'", () => {
    expect(withoutFrameAncestors(CONSENT_SITE.contentSecurityPolicy)).toBe(ARCHITECTURE_CONSENT_CSP)
    expect(CONSENT_SITE.contentSecurityPolicy).toContain("frame-ancestors 'none'")
  })

  it("the workbench's meta tag and Electron header agree, and allow no connection", () => {
    expect(metaCsp('src/renderer/workbench/index.html')).toBe(
      withoutFrameAncestors(WORKBENCH_SITE.contentSecurityPolicy),
    )
    expect(WORKBENCH_SITE.contentSecurityPolicy).toContain("connect-src 'none'")
  })
})

/** The policy header of a response as Chromium received it. */
async function cspOf(response: Response | null): Promise<string | undefined> {
  if (!response) throw new Error('no response for the page')
  return (await response.allHeaders())['content-security-policy']
}

// The CDP host's windows in real Chromium: the headers its asset router
// really answers with (src/main/cdp/asset-router.ts), read from the
// responses the browser got, as src/main/electron/page-files.test.ts reads
// the Electron host's protocol handler.
describe.runIf(chromiumAvailable())('the CDP host sends the policies it names', () => {
  let h: HostHarness
  beforeAll(async () => {
    h = await startHostHarness()
  })
  afterAll(async () => {
    await h?.close()
  })

  it("answers the workbench page and its script with the Electron host's workbench header", async () => {
    const scripts: Array<Promise<string | undefined>> = []
    h.page.on('response', (response) => {
      if (response.request().resourceType() === 'script') scripts.push(cspOf(response))
    })
    const csp = await cspOf(await h.page.reload())
    expect(csp).toBe(WORKBENCH_SITE.contentSecurityPolicy)
    expect(scripts.length).toBeGreaterThan(0)
    for (const script of await Promise.all(scripts)) expect(script).toBe(csp)
  })

  it("answers a protected window's page with the Electron host's consent header", async () => {
    const roomId = await h.createRoom()
    const approvalId = await h.pendingApproval(roomId, 'write csp.txt x')
    const review = h.gui('reviewApproval', approvalId)
    const window = await h.nextWindow()
    // A second page in the window's own browser context, so its request
    // goes through that context's router exactly as the window's did.
    const probe = await window.context.newPage()
    try {
      const csp = await cspOf(await probe.goto(window.page.url()))
      expect(csp).toBe(CONSENT_SITE.contentSecurityPolicy)
      expect(withoutFrameAncestors(csp ?? '')).toBe(ARCHITECTURE_CONSENT_CSP)
    } finally {
      await probe.close()
      await pressEscapeToCancel(window.page)
      await review
    }
  })
})

/** The `electronFuses:` block of electron-builder.yml as key → value text.
 *  Minimal on purpose: the block is flat `key: value` lines. */
function electronFuses(yml: string): Record<string, string> {
  const lines = yml.split('\n')
  const start = lines.findIndex((line) => /^electronFuses:\s*$/.test(line))
  if (start < 0) throw new Error('electron-builder.yml has no top-level electronFuses block')
  const fuses: Record<string, string> = {}
  for (const line of lines.slice(start + 1)) {
    if (/^\S/.test(line)) break
    const entry = /^\s+([A-Za-z]+):\s*(\S+)\s*(#.*)?$/.exec(line)
    if (!entry) continue
    const [, key = '', value = ''] = entry
    expect(fuses, `${key} is set twice`).not.toHaveProperty(key)
    fuses[key] = value
  }
  return fuses
}

describe('the packaged app flips the fuses docs/architecture.md §3 lists', () => {
  it('sets exactly these fuses in electron-builder.yml', () => {
    expect(electronFuses(read('electron-builder.yml'))).toEqual({
      runAsNode: 'false',
      enableNodeOptionsEnvironmentVariable: 'false',
      enableNodeCliInspectArguments: 'false',
      enableEmbeddedAsarIntegrityValidation: 'true',
      onlyLoadAppFromAsar: 'true',
      enableCookieEncryption: 'true',
      grantFileProtocolExtraPrivileges: 'false',
    })
  })

  it('packs the app into an asar, which the integrity fuses rely on', () => {
    expect(read('electron-builder.yml')).toMatch(/^asar: true$/m)
  })
})
