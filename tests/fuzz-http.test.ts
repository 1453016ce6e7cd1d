import { Agent, request } from 'node:http'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RUNTIME_ROUTE_TABLE } from '../src/runtime/server/route-table.ts'
import {
  httpCaseArb,
  rawCaseArb,
  type FuzzTargets,
  type HttpFuzzCase,
  type RawFuzzCase,
} from './support/http-fuzz-cases.ts'
import { rawExchange } from './support/raw-http-exchange.ts'
import { createRoom, pendingApprovalFor, timeline } from './support/room-helpers.ts'
import { startHarness, type RuntimeHarness } from './support/runtime-harness.ts'
import { storeFingerprint } from './support/store-fingerprint.ts'
import { WAIT_TIMEOUT_MS, scaledMs } from '../scripts/test-timing.ts'

// Fuzzes the runtime's HTTP surface end to end: a real runtime process, real
// loopback sockets, every route of RUNTIME_ROUTE_TABLE. Each batch of
// requests is followed by a store fingerprint read over HTTP (checking after
// every single request would multiply the run time by seven); every request
// in this run is one the runtime must refuse or only read, so the
// fingerprint must never move.

const STRESS = process.env.ASSENT_STRESS === '1'
const BATCHES = STRESS ? 200 : 40
const HTTP_PER_BATCH = 220
const RAW_PER_BATCH = 36
const CONCURRENCY = 8
/** Generous on a shared two-core machine: only a request that gets no
 *  answer at all should reach it. */
const REQUEST_TIMEOUT_MS = WAIT_TIMEOUT_MS
const SEED = Number(process.env.ASSENT_FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31))

/** Codes the edge or the router answer with: a response carrying one of
 *  these never reached the route's handler. */
const BEFORE_HANDLER_CODES = new Set([
  'wrong_host',
  'browser_origin',
  'unauthorized',
  'unexpected_query',
  'not_found',
  'method_not_allowed',
  'malformed_request',
  'headers_too_large',
  'request_timeout',
])

/** Methods node:http sends without a body (and without chunked framing)
 *  when none is written. */
const BODYLESS_METHODS = new Set(['GET', 'HEAD', 'DELETE', 'OPTIONS', 'TRACE', 'CONNECT'])

type Outcome =
  | { kind: 'response'; status: number; code: string | undefined }
  | { kind: 'reset'; error: string }
  | { kind: 'timeout' }

let harness: RuntimeHarness
let targets: FuzzTargets
let agent: Agent

beforeAll(async () => {
  harness = await startHarness({ approvalTtlMs: 86_400_000 })
  const room = await createRoom(harness)
  const view = await pendingApprovalFor(harness, room.id, 'write fuzz-seed.txt seeded')
  const current = await timeline(harness, room.id)
  const call = current.toolCalls.find((candidate) => candidate.approvalId === view.approval.id)
  if (!call) throw new Error('the seeded approval has no tool call')
  const group = await createRoom(harness, { kind: 'group' })
  const connection = harness.connection()
  targets = {
    port: connection.port,
    bearerToken: connection.bearerToken,
    consentKey: connection.consentKey,
    instanceId: connection.instanceId,
    roomId: room.id,
    groupRoomId: group.id,
    approvalId: view.approval.id,
    actionDigest: view.actionDigest,
    turnId: view.approval.turnId,
    toolCallId: call.id,
  }
  agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY })
})

afterAll(async () => {
  agent?.destroy()
  await harness?.close()
})

function codeOf(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as { code?: unknown }
    return typeof parsed.code === 'string' ? parsed.code : undefined
  } catch {
    return undefined
  }
}

/**
 * Sends one case on a pooled keep-alive connection.
 *
 * Two resets are the client's side of the exchange, not the runtime's:
 * - a pooled connection the server closed while it sat idle resets the next
 *   request written on it before the server read a byte; Node flags that
 *   (`reusedSocket`) and the request is sent again on a fresh connection, as
 *   any HTTP client does;
 * - the runtime answers a refused request without reading the rest of its
 *   body and closes the connection; body bytes still arriving then (node:http
 *   frames even an empty POST body as a chunk of its own) make the kernel
 *   reset it, and node:http can lose the answer it had already received.
 *   Such a case is replayed on a raw socket that reads the answer the
 *   moment it arrives.
 * Whatever still resets after that is reported.
 */
async function sendHttp(fuzz: HttpFuzzCase, tally: Tally): Promise<Outcome> {
  let outcome = await sendOnce(fuzz, agent)
  if (outcome.kind === 'reset' && outcome.reusedSocket) {
    tally.resentOnFreshConnection += 1
    outcome = await sendOnce(fuzz, false)
  }
  if (outcome.kind === 'reset') {
    tally.replayedOnRawSocket += 1
    return replayOnRawSocket(fuzz)
  }
  return outcome
}

async function replayOnRawSocket(fuzz: HttpFuzzCase): Promise<Outcome> {
  // Framed as node:http frames it: Content-Length when the case set one,
  // no body for a bodyless GET-like method, chunks otherwise.
  const bodyless = fuzz.body === undefined && BODYLESS_METHODS.has(fuzz.method)
  const framed = bodyless || fuzz.headers.some(([name]) => name.toLowerCase() === 'content-length')
  const body = fuzz.body ?? Buffer.alloc(0)
  const head =
    `${fuzz.method} ${fuzz.path} HTTP/1.1\r\n` +
    fuzz.headers.map(([name, value]) => `${name}: ${value}\r\n`).join('') +
    (framed ? '' : 'Transfer-Encoding: chunked\r\n') +
    'Connection: close\r\n\r\n'
  const payload = framed
    ? body
    : Buffer.concat([
        Buffer.from(body.length > 0 ? `${body.length.toString(16)}\r\n` : ''),
        body,
        Buffer.from(body.length > 0 ? '\r\n0\r\n\r\n' : '0\r\n\r\n'),
      ])
  const result = await rawExchange({
    port: targets.port,
    bytes: Buffer.concat([Buffer.from(head, 'latin1'), payload]),
    methods: [fuzz.method],
    timeoutMs: REQUEST_TIMEOUT_MS,
  })
  const [response] = result.responses
  if (response) return { kind: 'response', status: response.status, code: codeOf(response.body) }
  if (result.timedOut) return { kind: 'timeout' }
  return { kind: 'reset', error: 'raw replay: closed without an answer' }
}

function sendOnce(
  fuzz: HttpFuzzCase,
  via: Agent | false,
): Promise<Outcome & { reusedSocket?: boolean }> {
  return new Promise((resolve) => {
    let settled = false
    const settle = (outcome: Outcome & { reusedSocket?: boolean }) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resolve(outcome)
    }
    const req = request(
      {
        agent: via,
        host: '127.0.0.1',
        port: targets.port,
        method: fuzz.method,
        path: fuzz.path,
        headers: fuzz.headers.flat(),
        setHost: false,
      },
      (res) => {
        const status = res.statusCode ?? 0
        // The event stream never ends by design: its headers are the answer.
        if ((res.headers['content-type'] ?? '').startsWith('text/event-stream')) {
          res.destroy()
          settle({ kind: 'response', status, code: undefined })
          return
        }
        const chunks: Buffer[] = []
        res.on('data', (chunk: Buffer) => chunks.push(chunk))
        res.on('end', () =>
          settle({ kind: 'response', status, code: codeOf(Buffer.concat(chunks).toString()) }),
        )
        res.on('error', (error) => settle({ kind: 'reset', error: error.message }))
      },
    )
    const timer = setTimeout(() => {
      req.destroy()
      settle({ kind: 'timeout' })
    }, REQUEST_TIMEOUT_MS)
    req.on('error', (error) =>
      settle({ kind: 'reset', error: error.message, reusedSocket: req.reusedSocket }),
    )
    // Headers and body in one write: a refused request is answered and its
    // connection closed before the body is read, and body bytes still in
    // flight then would make the kernel reset the connection over the answer.
    req.end(fuzz.body)
  })
}

async function inPool<T>(items: readonly T[], run: (item: T) => Promise<void>): Promise<void> {
  let next = 0
  const worker = async () => {
    while (next < items.length) {
      const item = items[next]
      next += 1
      if (item !== undefined) await run(item)
    }
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, worker))
}

interface Tally {
  requests: number
  byRoute: Map<string, { sent: number; reachedHandler: number }>
  statuses: Map<number, number>
  resets: number
  resentOnFreshConnection: number
  replayedOnRawSocket: number
}

/** Why one outcome breaks a guarantee, or undefined when it keeps them all. */
function httpProblem(fuzz: HttpFuzzCase, outcome: Outcome): string | undefined {
  if (outcome.kind === 'timeout') return 'no answer within the timeout (hang)'
  if (outcome.kind === 'reset') {
    return fuzz.mayReset ? undefined : `connection reset without an answer: ${outcome.error}`
  }
  const { status } = outcome
  if (status >= 500) return `server error ${status} (${outcome.code})`
  if (fuzz.expectStatus !== undefined && status !== fuzz.expectStatus) {
    return `answered ${status} (${outcome.code}), expected ${fuzz.expectStatus}`
  }
  const reads = fuzz.method === 'GET' || fuzz.method === 'HEAD'
  if (!reads && (status < 400 || status > 499)) {
    return `a ${fuzz.method} that must be refused answered ${status}`
  }
  if (status < 200) return `answered ${status}`
  return undefined
}

function rawProblem(fuzz: RawFuzzCase, result: Awaited<ReturnType<typeof rawExchange>>) {
  if (result.timedOut) return 'no complete answer within the timeout (hang)'
  if (result.responses.length === 0 && !fuzz.allowNoResponse) {
    return 'closed without any answer'
  }
  const bad = result.responses.find((response) => response.status < 100 || response.status >= 500)
  if (bad) return `answered ${bad.status}: ${bad.body.slice(0, 120)}`
  return undefined
}

async function runBatch(index: number, tally: Tally, failures: string[]): Promise<void> {
  const httpCases = fc.sample(httpCaseArb(targets), { numRuns: HTTP_PER_BATCH, seed: SEED + index })
  const rawCases = fc.sample(rawCaseArb(targets), { numRuns: RAW_PER_BATCH, seed: SEED - index })
  const cases: Array<HttpFuzzCase | RawFuzzCase> = [...httpCases, ...rawCases]
  await inPool(cases, async (fuzz) => {
    const entry = tally.byRoute.get(fuzz.route) ?? { sent: 0, reachedHandler: 0 }
    tally.byRoute.set(fuzz.route, entry)
    entry.sent += 1
    if (fuzz.transport === 'http') {
      tally.requests += 1
      const outcome = await sendHttp(fuzz, tally)
      if (outcome.kind === 'response') {
        tally.statuses.set(outcome.status, (tally.statuses.get(outcome.status) ?? 0) + 1)
        // A status below 500 with a code the edge and router never use, or a
        // success, means the request got as far as the route's handler.
        const reached =
          (outcome.code !== undefined && !BEFORE_HANDLER_CODES.has(outcome.code)) ||
          (outcome.status >= 200 && outcome.status < 300)
        if (reached) entry.reachedHandler += 1
      } else if (outcome.kind === 'reset') {
        tally.resets += 1
      }
      const problem = httpProblem(fuzz, outcome)
      if (problem)
        failures.push(`${fuzz.route} ${fuzz.method} ${fuzz.path}: ${problem} [${fuzz.attack}]`)
      return
    }
    tally.requests += fuzz.methods.length
    const result = await rawExchange({
      port: targets.port,
      bytes: fuzz.bytes,
      methods: fuzz.methods,
      timeoutMs: REQUEST_TIMEOUT_MS,
    })
    for (const response of result.responses) {
      tally.statuses.set(response.status, (tally.statuses.get(response.status) ?? 0) + 1)
    }
    const problem = rawProblem(fuzz, result)
    if (problem) failures.push(`${fuzz.route}: ${problem} [${fuzz.attack}]`)
  })
}

describe('the runtime under fuzzed HTTP', () => {
  it(
    'never answers 5xx or hangs, and no refused request changes the store',
    { timeout: scaledMs(STRESS ? 1_800_000 : 300_000) },
    async () => {
      const roomIds = [targets.roomId, targets.groupRoomId]
      const before = await storeFingerprint(harness, roomIds)
      const pid = harness.supervisor.pid
      const tally: Tally = {
        requests: 0,
        byRoute: new Map(),
        statuses: new Map(),
        resets: 0,
        resentOnFreshConnection: 0,
        replayedOnRawSocket: 0,
      }
      for (let index = 0; index < BATCHES; index += 1) {
        const failures: string[] = []
        await runBatch(index, tally, failures)
        expect(failures.slice(0, 20), `batch ${index}, seed ${SEED}`).toEqual([])
        expect(
          await storeFingerprint(harness, roomIds),
          `store after batch ${index}, seed ${SEED}`,
        ).toBe(before)
      }

      // Still the same process, still answering, and the seeded approval is
      // still waiting for a person.
      expect(harness.supervisor.pid).toBe(pid)
      const view = await harness.client.getApproval(targets.approvalId)
      expect(view.approval.status).toBe('pending')

      // Every route was hit and its handler reached, so no route escaped the
      // fuzzing behind the edge checks.
      for (const route of RUNTIME_ROUTE_TABLE) {
        const entry = tally.byRoute.get(`${route.method} ${route.pattern}`)
        expect(entry?.sent ?? 0, `${route.method} ${route.pattern} requests`).toBeGreaterThan(100)
        expect(
          entry?.reachedHandler ?? 0,
          `${route.method} ${route.pattern} handled`,
        ).toBeGreaterThan(0)
      }
      expect(tally.requests).toBeGreaterThanOrEqual(10_000)
      const statuses = [...tally.statuses.entries()].sort(([a], [b]) => a - b)
      console.log(
        `fuzz-http: ${tally.requests} requests (seed ${SEED}, ${BATCHES} batches, store checked after each); ` +
          `statuses ${statuses.map(([status, count]) => `${status}×${count}`).join(' ')}; ` +
          `resets after an over-limit request ${tally.resets}; ` +
          `resent after a pooled connection closed ${tally.resentOnFreshConnection}; ` +
          `replayed on a raw socket after a reset ${tally.replayedOnRawSocket}`,
      )
    },
  )
})
