import { existsSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { chromium, type Browser, type CDPSession, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ACTION_DIGEST_HEADER, CONSENT_HEADER } from '../src/contracts/http-headers.ts'
import { chromiumArgs, findChromium } from '../src/main/cdp/chromium.ts'
import { chromiumAvailable } from './support/cdp-host-harness.ts'
import { createRoom, pendingApprovalFor } from './support/room-helpers.ts'
import { eventually, startHarness, type RuntimeHarness } from './support/runtime-harness.ts'
import { storeFingerprint } from './support/store-fingerprint.ts'

// A hostile page in a real Chromium attacks the runtime the two ways a
// browser can reach a loopback service: cross-origin from another local
// port, and by DNS rebinding (a name the attacker controls, resolved to
// 127.0.0.1). The page is given everything a leak could give it: the bearer
// token and a valid consent token for a pending approval. The runtime must
// refuse every request that reaches it (403 for a browser origin, 421 for a
// foreign Host) and nothing may change.

const REBIND_HOST = 'rebind.test'
const PRIVATE_NETWORK_CHECKS = [
  'BlockInsecurePrivateNetworkRequests',
  'PrivateNetworkAccessSendPreflights',
  'PrivateNetworkAccessRespectPreflightResults',
  'LocalNetworkAccessChecks',
]
const run = chromiumAvailable()

interface AttackArgs {
  runtime: string
  roomId: string
  approvalId: string
  actionDigest: string
  bearer: string
  consent: string
  headers: { consent: string; digest: string }
}

/** What the page could see of each attack. */
interface PageOutcome {
  name: string
  /** `blocked`: fetch threw (CORS); `opaque`: no-cors, unreadable;
   *  a number: a status the page could read. */
  seen: 'blocked' | 'opaque' | number
}

/** Runs in the page. Every request is one a real attacker could send; from
 *  another origin, the ones with an Authorization or JSON content type are
 *  preflighted, the others go out as simple requests. */
async function attack(args: AttackArgs): Promise<PageOutcome[]> {
  const results: PageOutcome[] = []
  const attempt = async (name: string, go: () => Promise<Response>) => {
    try {
      const response = await go()
      results.push({ name, seen: response.type === 'opaque' ? 'opaque' : response.status })
    } catch {
      results.push({ name, seen: 'blocked' })
    }
  }
  const message = JSON.stringify({ clientRequestId: 'pwned', text: 'write pwned.txt pwned' })
  await attempt('simple GET without the token', () =>
    fetch(`${args.runtime}/v1/rooms`, { mode: 'no-cors' }),
  )
  await attempt('GET with the bearer token', () =>
    fetch(`${args.runtime}/v1/audit/export`, {
      headers: { authorization: `Bearer ${args.bearer}` },
    }),
  )
  await attempt('simple text/plain POST of a message', () =>
    fetch(`${args.runtime}/v1/rooms/${args.roomId}/messages`, {
      method: 'POST',
      mode: 'no-cors',
      headers: { 'content-type': 'text/plain' },
      body: message,
    }),
  )
  await attempt('JSON POST of a message with the bearer token', () =>
    fetch(`${args.runtime}/v1/rooms/${args.roomId}/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${args.bearer}`, 'content-type': 'application/json' },
      body: message,
    }),
  )
  await attempt('a decision with the bearer and a valid consent token', () =>
    fetch(`${args.runtime}/v1/approvals/${args.approvalId}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${args.bearer}`,
        'content-type': 'application/json',
        [args.headers.consent]: args.consent,
        [args.headers.digest]: args.actionDigest,
      },
      body: JSON.stringify({ decision: 'allow-always' }),
    }),
  )
  // A beacon is a simple POST the page never sees answered.
  const beaconQueued = navigator.sendBeacon(
    `${args.runtime}/v1/rooms/${args.roomId}/messages`,
    new Blob([message], { type: 'text/plain' }),
  )
  results.push({ name: 'beacon POST of a message', seen: beaconQueued ? 'opaque' : 'blocked' })
  // A form POST navigates a frame: the classic CSRF, sent with an Origin.
  await new Promise<void>((resolve) => {
    const frame = document.createElement('iframe')
    frame.name = 'csrf'
    frame.addEventListener('load', () => resolve(), { once: true })
    document.body.append(frame)
    const form = document.createElement('form')
    form.method = 'POST'
    form.enctype = 'text/plain'
    form.target = 'csrf'
    form.action = `${args.runtime}/v1/rooms/${args.roomId}/messages`
    const field = document.createElement('input')
    field.name = message.slice(0, -2)
    field.value = '"}'
    form.append(field)
    document.body.append(form)
    form.submit()
    setTimeout(resolve, 5_000)
  })
  results.push({ name: 'form POST of a message', seen: 'opaque' })
  return results
}

/** Every response Chromium received from the runtime's port, preflights
 *  included, read over the DevTools protocol (so CORS does not hide them),
 *  and whether every request that went to that port has ended. */
function watchRuntimeResponses(cdp: CDPSession, runtimePort: number) {
  const seen: Array<{ method: string; url: string; status: number }> = []
  const methods = new Map<string, string>()
  const open = new Set<string>()
  const toRuntime = (url: string) => Number(new URL(url).port) === runtimePort
  cdp.on('Network.requestWillBeSent', (event) => {
    methods.set(event.requestId, event.request.method)
    if (toRuntime(event.request.url)) open.add(event.requestId)
  })
  cdp.on('Network.responseReceived', (event) => {
    if (!toRuntime(event.response.url)) return
    seen.push({
      method: methods.get(event.requestId) ?? (event.type === 'Preflight' ? 'OPTIONS' : '?'),
      url: new URL(event.response.url).pathname,
      status: event.response.status,
    })
  })
  // A request has ended once the runtime answered it (the page need not
  // read the body) or it failed (CORS, a refused preflight).
  const ended = ({ requestId }: { requestId: string }) => open.delete(requestId)
  cdp.on('Network.responseReceived', ended)
  cdp.on('Network.loadingFinished', ended)
  cdp.on('Network.loadingFailed', ended)
  return {
    seen,
    /** Waits for the event, not for a while: every request to the runtime
     *  answered or failed, so no late one can change the store after the
     *  test looks. */
    settled: () =>
      eventually(() => (open.size === 0 ? true : undefined), 'every request to the runtime to end'),
  }
}

describe.skipIf(!run)('a hostile page in Chromium', () => {
  let harness: RuntimeHarness
  let browser: Browser
  let pageServer: Server
  let pagePort: number
  let args: Omit<AttackArgs, 'runtime'>
  let roomIds: string[]

  beforeAll(async () => {
    harness = await startHarness({ approvalTtlMs: 86_400_000 })
    const room = await createRoom(harness)
    const view = await pendingApprovalFor(harness, room.id, 'write target.txt from-the-room')
    roomIds = [room.id]
    args = {
      roomId: room.id,
      approvalId: view.approval.id,
      actionDigest: view.actionDigest,
      bearer: harness.connection().bearerToken,
      // Minted per attack run below: a consent token lives 30 s.
      consent: '',
      headers: { consent: CONSENT_HEADER, digest: ACTION_DIGEST_HEADER },
    }
    pageServer = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      res.end('<!doctype html><title>attacker</title><body></body>')
    })
    await new Promise<void>((resolve) => pageServer.listen(0, '127.0.0.1', () => resolve()))
    pagePort = (pageServer.address() as AddressInfo).port
    browser = await chromium.launch({
      executablePath: findChromium() ?? '/usr/bin/chromium',
      args: [
        ...chromiumArgs(),
        `--host-resolver-rules=MAP ${REBIND_HOST} 127.0.0.1`,
        // Chromium's own private-network checks would stop the rebinding page
        // before it reached the runtime; other browsers have none, so they
        // are off here and the runtime's refusal is what gets tested.
        `--disable-features=${PRIVATE_NETWORK_CHECKS.join(',')}`,
      ],
    })
  })

  afterAll(async () => {
    await browser?.close()
    await new Promise<void>((resolve) =>
      pageServer ? pageServer.close(() => resolve()) : resolve(),
    )
    await harness?.close()
  })

  async function openPage(
    url: string,
  ): Promise<{ page: Page; watch: ReturnType<typeof watchRuntimeResponses> }> {
    const context = await browser.newContext()
    const page = await context.newPage()
    const cdp = await context.newCDPSession(page)
    await cdp.send('Network.enable')
    const watch = watchRuntimeResponses(cdp, harness.connection().port)
    await page.goto(url)
    return { page, watch }
  }

  function freshArgs(runtime: string): AttackArgs {
    return {
      ...args,
      runtime,
      consent: harness.mintApproval(args.approvalId, 'allow-always', args.actionDigest),
    }
  }

  async function expectNothingChanged(before: string): Promise<void> {
    expect(await storeFingerprint(harness, roomIds)).toBe(before)
    expect((await harness.client.getApproval(args.approvalId)).approval.status).toBe('pending')
    expect(existsSync(join(harness.workspace, 'pwned.txt'))).toBe(false)
    expect(existsSync(join(harness.workspace, 'target.txt'))).toBe(false)
  }

  it('refuses every request from a page on another loopback port (403), with or without the tokens', async () => {
    const before = await storeFingerprint(harness, roomIds)
    const runtimePort = harness.connection().port
    const { page, watch } = await openPage(`http://127.0.0.1:${pagePort}/`)
    const outcomes = await page.evaluate(attack, freshArgs(`http://127.0.0.1:${runtimePort}`))
    await watch.settled()
    await page.context().close()
    const { seen } = watch

    // The page never read a success: CORS blocked what was preflighted, and
    // what went out as a simple request stayed opaque.
    for (const outcome of outcomes)
      expect(['blocked', 'opaque'], outcome.name).toContain(outcome.seen)
    // The runtime saw the requests that left the browser and refused each
    // as a browser request; no preflight got the go-ahead, so no preflighted
    // request was ever sent for real.
    expect(seen.length).toBeGreaterThanOrEqual(5)
    for (const response of seen)
      expect(response.status, `${response.method} ${response.url}`).toBe(403)
    expect(seen.filter((r) => r.method === 'OPTIONS').length).toBeGreaterThanOrEqual(3)
    expect(seen.filter((r) => r.method === 'POST').map((r) => r.url)).not.toContain(
      `/v1/approvals/${args.approvalId}`,
    )
    await expectNothingChanged(before)
  })

  it(`refuses a rebinding page that reaches the runtime as ${REBIND_HOST} from another port (421)`, async () => {
    const before = await storeFingerprint(harness, roomIds)
    const runtimePort = harness.connection().port
    const { page, watch } = await openPage(`http://${REBIND_HOST}:${pagePort}/`)
    const outcomes = await page.evaluate(attack, freshArgs(`http://${REBIND_HOST}:${runtimePort}`))
    await watch.settled()
    await page.context().close()
    const { seen } = watch

    for (const outcome of outcomes)
      expect(['blocked', 'opaque'], outcome.name).toContain(outcome.seen)
    expect(seen.length).toBeGreaterThanOrEqual(5)
    for (const response of seen)
      expect(response.status, `${response.method} ${response.url}`).toBe(421)
    await expectNothingChanged(before)
  })

  it(`refuses a rebinding page that is same-origin with the runtime under ${REBIND_HOST} (421)`, async () => {
    const before = await storeFingerprint(harness, roomIds)
    const runtimePort = harness.connection().port
    const origin = `http://${REBIND_HOST}:${runtimePort}`
    const context = await browser.newContext()
    const page = await context.newPage()
    const cdp = await context.newCDPSession(page)
    await cdp.send('Network.enable')
    const watch = watchRuntimeResponses(cdp, runtimePort)
    const { seen } = watch
    // After the rebind the attacker's document is served from the runtime's
    // own origin; only that document is stood in for, every request it
    // makes goes to the real runtime.
    await page.route(`${origin}/attack.html`, (route) =>
      route.fulfill({ contentType: 'text/html', body: '<!doctype html><body></body>' }),
    )
    await page.goto(`${origin}/attack.html`)
    const outcomes = await page.evaluate(attack, freshArgs(origin))
    await watch.settled()
    await context.close()

    // Same-origin: nothing is preflighted and the page reads every status,
    // so each fetch shows the runtime's own refusal.
    const readable = outcomes.filter((outcome) => typeof outcome.seen === 'number')
    expect(readable.length).toBeGreaterThanOrEqual(4)
    for (const outcome of readable) expect(outcome.seen, outcome.name).toBe(421)
    expect(seen.filter((r) => r.url !== '/attack.html').length).toBeGreaterThanOrEqual(5)
    for (const response of seen.filter((r) => r.url !== '/attack.html')) {
      expect(response.status, `${response.method} ${response.url}`).toBe(421)
    }
    await expectNothingChanged(before)
  })
})
