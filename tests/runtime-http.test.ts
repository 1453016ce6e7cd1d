import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ACTION_DIGEST_HEADER, CONSENT_HEADER } from '../src/contracts/http-headers.ts'
import { mintConsentToken } from '../src/consent/consent-token.ts'
import { RUNTIME_ROUTE_TABLE } from '../src/runtime/server/route-table.ts'
import { MAX_BODY_BYTES } from '../src/runtime/server/http-kit.ts'
import { rawExchange } from './support/raw-http-exchange.ts'
import type { ApprovalDecision } from '../src/contracts/consent.ts'
import { rawHttp, startHarness, type RuntimeHarness } from './support/runtime-harness.ts'
import { WAIT_TIMEOUT_MS } from '../scripts/test-timing.ts'
import {
  createRoom,
  pendingApprovalFor,
  send,
  timeline,
  turnSettled,
  pastExpiry,
  SHORT_APPROVAL_TTL_MS,
} from './support/room-helpers.ts'

let harness: RuntimeHarness

beforeAll(async () => {
  harness = await startHarness()
})
afterAll(async () => {
  await harness?.close()
})

function authorized(extra: Array<[string, string]> = []): Array<[string, string]> {
  const { port, bearerToken } = harness.connection()
  return [['Host', `127.0.0.1:${port}`], ['Authorization', `Bearer ${bearerToken}`], ...extra]
}

const CONSENT_REQUIRED = { error: 'protected approval consent required', code: 'consent_required' }

/** Decides with a token minted for exactly this request, as main does. */
function decideWithFreshToken(
  target: RuntimeHarness,
  approvalId: string,
  decision: ApprovalDecision,
  digest: string,
) {
  return target.client.decideApproval(
    approvalId,
    decision,
    target.mintApproval(approvalId, decision, digest),
    digest,
  )
}

function concretePath(pattern: string): string {
  return pattern.replace(/:[A-Za-z]+/g, 'abc123')
}

async function stateFingerprint(): Promise<string> {
  const audit = await harness.client.raw('GET', '/v1/audit/export')
  const rooms = await harness.client.raw('GET', '/v1/rooms')
  return JSON.stringify([(audit.body as { events: unknown[] }).events.length, rooms.body])
}

describe('the runtime HTTP edge', () => {
  it.each(RUNTIME_ROUTE_TABLE)(
    'refuses $method $pattern without the bearer token (401)',
    async (route) => {
      const { port } = harness.connection()
      const response = await rawHttp({
        port,
        method: route.method,
        path: concretePath(route.pattern),
      })
      expect(response.status).toBe(401)
    },
  )

  it('answers a refusal with its reason, then closes without a second answer, when unframed bytes follow', async () => {
    const { port } = harness.connection()
    // A GET whose "body" has no framing: those bytes read as a next request.
    const head = `GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`
    const result = await rawExchange({
      port,
      bytes: Buffer.from(`${head}{"decision":"allow-once"}`),
      methods: ['GET', 'GET'],
      timeoutMs: WAIT_TIMEOUT_MS,
    })
    expect(result.timedOut).toBe(false)
    expect(result.closed).toBe(true)
    expect(result.responses.map((response) => response.status)).toEqual([401])
    expect(JSON.parse(result.responses[0]!.body)).toMatchObject({ code: 'unauthorized' })
  })

  it('answers bytes that are no request at all with a reason, then closes', async () => {
    const { port } = harness.connection()
    const result = await rawExchange({
      port,
      bytes: Buffer.from('{"decision":"allow-once"}\r\n\r\n'),
      methods: ['GET'],
      timeoutMs: WAIT_TIMEOUT_MS,
    })
    expect(result.responses.map((response) => response.status)).toEqual([400])
    expect(JSON.parse(result.responses[0]!.body)).toEqual({
      error: 'the request could not be parsed',
      code: 'malformed_request',
    })
  })

  it('refuses a wrong bearer token', async () => {
    const { port } = harness.connection()
    const response = await rawHttp({
      port,
      method: 'GET',
      path: '/v1/health',
      headers: [['Authorization', 'Bearer not-the-token']],
    })
    expect(response.status).toBe(401)
  })

  it('routes every route in the table (none answers "no such route")', async () => {
    for (const route of RUNTIME_ROUTE_TABLE) {
      if (route.pattern === '/v1/events') continue
      const response = await rawHttp({
        port: harness.connection().port,
        method: route.method,
        path: concretePath(route.pattern),
        headers: authorized(),
      })
      expect(JSON.parse(response.body).code, `${route.method} ${route.pattern}`).not.toBe(
        'not_found',
      )
    }
  })

  it('refuses a foreign Host header (DNS rebinding) with 421', async () => {
    for (const host of ['evil.example:80', 'localhost', `localhost:${harness.connection().port}`]) {
      const response = await rawHttp({
        port: harness.connection().port,
        method: 'GET',
        path: '/v1/health',
        headers: authorized().map(([name, value]) =>
          name === 'Host' ? [name, host] : [name, value],
        ),
      })
      expect(response.status, host).toBe(421)
    }
  })

  it('refuses any request that carries an Origin or browser fetch metadata', async () => {
    for (const header of [
      ['Origin', 'http://127.0.0.1:1234'],
      ['Origin', 'null'],
      ['Sec-Fetch-Site', 'same-origin'],
    ] as Array<[string, string]>) {
      const response = await rawHttp({
        port: harness.connection().port,
        method: 'GET',
        path: '/v1/health',
        headers: authorized([header]),
      })
      expect(response.status, header.join(': ')).toBe(403)
    }
  })

  it('answers the health route with the instance id', async () => {
    const response = await harness.client.raw('GET', '/v1/health')
    expect(response).toEqual({
      status: 200,
      body: { ok: true, instanceId: harness.connection().instanceId },
    })
  })

  it('refuses malformed, oversized, wrongly typed and extra-key bodies with 400 and changes nothing', async () => {
    const before = await stateFingerprint()
    const bodies: Array<[string, string, string]> = [
      ['application/json', '{not json', 'invalid_json'],
      [
        'application/json',
        JSON.stringify({
          kind: 'direct',
          agentId: 'assistant',
          workspace: harness.workspace,
          title: 't',
          extra: 1,
        }),
        'invalid_body',
      ],
      [
        'application/json',
        JSON.stringify({ kind: 'direct', agentId: 7, workspace: harness.workspace, title: 't' }),
        'invalid_body',
      ],
      [
        'application/json',
        JSON.stringify({
          kind: 'direct',
          agentId: 'assistant',
          workspace: harness.workspace,
          title: 'x'.repeat(MAX_BODY_BYTES),
        }),
        'body_too_large',
      ],
      [
        'text/plain',
        JSON.stringify({
          kind: 'direct',
          agentId: 'assistant',
          workspace: harness.workspace,
          title: 't',
        }),
        'bad_content_type',
      ],
    ]
    for (const [type, body, code] of bodies) {
      const response = await rawHttp({
        port: harness.connection().port,
        method: 'POST',
        path: '/v1/rooms',
        headers: authorized([['Content-Type', type]]),
        body,
      })
      expect(response.status, code).toBe(400)
      expect(JSON.parse(response.body).code).toBe(code)
    }
    expect(await stateFingerprint()).toBe(before)
  })

  it('names the offending field in a 400', async () => {
    const response = await harness.client.raw('POST', '/v1/rooms', {
      kind: 'direct',
      agentId: 'assistant',
      workspace: harness.workspace,
      title: 't',
      surprise: true,
    })
    expect(response.status).toBe(400)
    expect(JSON.stringify(response.body)).toMatch(/surprise|unrecognized/i)
  })
})

describe('deciding an approval over HTTP', () => {
  it('allows with a minted token: the file exists with its content and the decision is audited', async () => {
    const room = await createRoom(harness)
    const view = await pendingApprovalFor(harness, room.id, 'write notes.txt hello')
    expect(view.action.toolName).toBe('write_file')
    expect(existsSync(join(harness.workspace, 'notes.txt'))).toBe(false)
    const token = harness.mintApproval(view.approval.id, 'allow-once', view.actionDigest)
    const response = await harness.client.decideApproval(
      view.approval.id,
      'allow-once',
      token,
      view.actionDigest,
    )
    expect(response.status).toBe(200)
    await turnSettled(harness, room.id, view.approval.turnId)
    expect(readFileSync(join(harness.workspace, 'notes.txt'), 'utf8')).toBe('hello')
    const audit = await harness.client.raw('GET', '/v1/audit/export')
    const types = (audit.body as { events: Array<{ type: string; subjectId: string }> }).events
      .filter((event) => event.subjectId === view.approval.id)
      .map((event) => event.type)
    expect(types).toEqual(['approval_requested', 'approval_resolved'])
  })

  it('denies with a minted token: the file never exists', async () => {
    const room = await createRoom(harness)
    const view = await pendingApprovalFor(harness, room.id, 'write denied.txt nope')
    const token = harness.mintApproval(view.approval.id, 'deny', view.actionDigest)
    const response = await harness.client.decideApproval(
      view.approval.id,
      'deny',
      token,
      view.actionDigest,
    )
    expect(response.status).toBe(200)
    const settled = await turnSettled(harness, room.id, view.approval.turnId)
    expect(existsSync(join(harness.workspace, 'denied.txt'))).toBe(false)
    expect(settled.toolCalls.find((call) => call.approvalId === view.approval.id)?.status).toBe(
      'denied',
    )
  })

  it('answers 403 "protected approval consent required" to every bad token, and the approval stays pending', async () => {
    const room = await createRoom(harness)
    const view = await pendingApprovalFor(harness, room.id, 'write guarded.txt x')
    const other = await pendingApprovalFor(harness, room.id, 'write other.txt y')
    const { id } = view.approval
    const valid = harness.mintApproval(id, 'allow-once', view.actionDigest)
    const foreignKey = mintConsentToken({
      key: Buffer.alloc(32, 7),
      now: Date.now(),
      binding: {
        kind: 'approval',
        subject: {
          approvalId: id,
          decision: 'allow-once',
          actionDigest: view.actionDigest,
          instanceId: harness.connection().instanceId,
        },
      },
    })
    const expired = mintConsentToken({
      key: harness.connection().consentKey,
      now: Date.now() - 31_000,
      binding: {
        kind: 'approval',
        subject: {
          approvalId: id,
          decision: 'allow-once',
          actionDigest: view.actionDigest,
          instanceId: harness.connection().instanceId,
        },
      },
    })
    const cases: Array<[string, Record<string, string>]> = [
      ['no token', { [ACTION_DIGEST_HEADER]: view.actionDigest }],
      [
        'malformed token',
        { [CONSENT_HEADER]: 'v1.garbage', [ACTION_DIGEST_HEADER]: view.actionDigest },
      ],
      [
        'token for another approval',
        {
          [CONSENT_HEADER]: harness.mintApproval(
            other.approval.id,
            'allow-once',
            other.actionDigest,
          ),
          [ACTION_DIGEST_HEADER]: view.actionDigest,
        },
      ],
      [
        'token for another decision',
        {
          [CONSENT_HEADER]: harness.mintApproval(id, 'deny', view.actionDigest),
          [ACTION_DIGEST_HEADER]: view.actionDigest,
        },
      ],
      [
        'token for another digest',
        {
          [CONSENT_HEADER]: harness.mintApproval(id, 'allow-once', other.actionDigest),
          [ACTION_DIGEST_HEADER]: other.actionDigest,
        },
      ],
      [
        'token signed with another key',
        { [CONSENT_HEADER]: foreignKey, [ACTION_DIGEST_HEADER]: view.actionDigest },
      ],
      ['expired token', { [CONSENT_HEADER]: expired, [ACTION_DIGEST_HEADER]: view.actionDigest }],
      [
        'no digest',
        { [CONSENT_HEADER]: harness.mintApproval(id, 'allow-once', view.actionDigest) },
      ],
    ]
    for (const [name, headers] of cases) {
      const response = await harness.client.raw(
        'POST',
        `/v1/approvals/${id}`,
        { decision: 'allow-once' },
        headers,
      )
      expect(response, name).toEqual({
        status: 403,
        body: { error: 'protected approval consent required', code: 'consent_required' },
      })
    }
    // The valid token works once; presented again, for another approval, it
    // is refused (replays to the same approval are the tests below).
    const first = await harness.client.decideApproval(id, 'allow-once', valid, view.actionDigest)
    expect(first.status).toBe(200)
    const replay = await harness.client.decideApproval(
      other.approval.id,
      'allow-once',
      valid,
      view.actionDigest,
    )
    expect(replay.status).toBe(403)
    expect((await harness.client.getApproval(other.approval.id)).approval.status).toBe('pending')
  })

  it('burns a token on its first presentation: after a wrong decision body, the right body is refused too', async () => {
    const room = await createRoom(harness)
    const view = await pendingApprovalFor(harness, room.id, 'write burned.txt x')
    const { id } = view.approval
    const token = harness.mintApproval(id, 'allow-once', view.actionDigest)
    const mismatched = await harness.client.decideApproval(id, 'deny', token, view.actionDigest)
    expect(mismatched).toEqual({ status: 403, body: CONSENT_REQUIRED })
    const replayed = await harness.client.decideApproval(id, 'allow-once', token, view.actionDigest)
    expect(replayed).toEqual({ status: 403, body: CONSENT_REQUIRED })
    expect((await harness.client.getApproval(id)).approval.status).toBe('pending')
    expect(existsSync(join(harness.workspace, 'burned.txt'))).toBe(false)
  })

  it('answers 403, not 409, when a used token is presented again to the approval it decided', async () => {
    const room = await createRoom(harness)
    const view = await pendingApprovalFor(harness, room.id, 'write replayed.txt x')
    const { id } = view.approval
    const token = harness.mintApproval(id, 'deny', view.actionDigest)
    expect((await harness.client.decideApproval(id, 'deny', token, view.actionDigest)).status).toBe(
      200,
    )
    const replayed = await harness.client.decideApproval(id, 'deny', token, view.actionDigest)
    expect(replayed).toEqual({ status: 403, body: CONSENT_REQUIRED })
  })

  it('answers 403, not 409, to a bad token for an already decided approval: the token is checked first', async () => {
    const room = await createRoom(harness)
    const view = await pendingApprovalFor(harness, room.id, 'write decided.txt x')
    const { id } = view.approval
    expect((await decideWithFreshToken(harness, id, 'deny', view.actionDigest)).status).toBe(200)
    const badToken = await harness.client.decideApproval(
      id,
      'deny',
      harness.mintApproval(id, 'allow-once', view.actionDigest),
      view.actionDigest,
    )
    expect(badToken).toEqual({ status: 403, body: CONSENT_REQUIRED })
    // With a good token the same request reaches the approval and gets 409:
    // the 403 above was the token, not the approval's state.
    expect((await decideWithFreshToken(harness, id, 'deny', view.actionDigest)).status).toBe(409)
  })

  it('answers 403, not 404, for an unknown approval without a valid token', async () => {
    const response = await harness.client.raw(
      'POST',
      '/v1/approvals/nope',
      { decision: 'deny' },
      { [CONSENT_HEADER]: 'v1.1.a.b', [ACTION_DIGEST_HEADER]: '0'.repeat(64) },
    )
    expect(response.status).toBe(403)
  })

  it('answers 404 for an unknown approval with a valid token, and 409 when already decided', async () => {
    const digest = 'a'.repeat(64)
    const unknown = await harness.client.decideApproval(
      'nope',
      'deny',
      harness.mintApproval('nope', 'deny', digest),
      digest,
    )
    expect(unknown.status).toBe(404)
    expect(unknown.body).toMatchObject({ code: 'unknown_approval' })
    const room = await createRoom(harness)
    const view = await pendingApprovalFor(harness, room.id, 'write twice.txt x')
    const { id } = view.approval
    expect(
      (
        await harness.client.decideApproval(
          id,
          'deny',
          harness.mintApproval(id, 'deny', view.actionDigest),
          view.actionDigest,
        )
      ).status,
    ).toBe(200)
    const again = await harness.client.decideApproval(
      id,
      'allow-once',
      harness.mintApproval(id, 'allow-once', view.actionDigest),
      view.actionDigest,
    )
    expect(again.status).toBe(409)
    expect(again.body).toMatchObject({ code: 'approval_decided' })
  })

  it('exposes only card fields in the room approval summaries', async () => {
    const room = await createRoom(harness)
    await pendingApprovalFor(harness, room.id, 'write summary.txt secret-ish')
    const { body } = await harness.client.raw('GET', `/v1/rooms/${room.id}/approvals`)
    const [summary] = (body as { approvals: Array<Record<string, unknown>> }).approvals
    expect(summary).toBeDefined()
    expect(summary).not.toHaveProperty('arguments')
    expect(summary).not.toHaveProperty('toolCallId')
  })

  it('is idempotent on clientRequestId for messages', async () => {
    const room = await createRoom(harness)
    const body = { clientRequestId: 'same-id', text: 'list .' }
    const first = await harness.client.raw('POST', `/v1/rooms/${room.id}/messages`, body)
    const second = await harness.client.raw('POST', `/v1/rooms/${room.id}/messages`, body)
    expect(first.status).toBe(202)
    expect(second.status).toBe(200)
    // The same turn answers both sends (its status may have moved on).
    const turnId = (response: typeof first) => (response.body as { turn: { id: string } }).turn.id
    expect(turnId(second)).toBe(turnId(first))
    const conflict = await harness.client.raw('POST', `/v1/rooms/${room.id}/messages`, {
      ...body,
      text: 'list ..',
    })
    expect(conflict.status).toBe(409)
    expect((await timeline(harness, room.id)).turns).toHaveLength(1)
  })
})

describe('approval expiry over HTTP', () => {
  it('answers 403, not 410, to a bad token for an expired approval: the token is checked first', async () => {
    const short = await startHarness({ approvalTtlMs: SHORT_APPROVAL_TTL_MS })
    try {
      const room = await createRoom(short)
      const view = await pendingApprovalFor(short, room.id, 'write expired.txt x')
      const { id } = view.approval
      await pastExpiry(view)
      const badToken = await short.client.decideApproval(
        id,
        'allow-once',
        short.mintApproval(id, 'deny', view.actionDigest),
        view.actionDigest,
      )
      expect(badToken).toEqual({ status: 403, body: CONSENT_REQUIRED })
      expect((await decideWithFreshToken(short, id, 'allow-once', view.actionDigest)).status).toBe(
        410,
      )
    } finally {
      await short.close()
    }
  })

  it('answers 410 for a decision after the TTL, and the tool never runs', async () => {
    const short = await startHarness({ approvalTtlMs: SHORT_APPROVAL_TTL_MS })
    try {
      const room = await createRoom(short)
      const view = await pendingApprovalFor(short, room.id, 'write late.txt too-late')
      const token = short.mintApproval(view.approval.id, 'allow-once', view.actionDigest)
      await pastExpiry(view)
      const response = await short.client.decideApproval(
        view.approval.id,
        'allow-once',
        token,
        view.actionDigest,
      )
      expect(response.status).toBe(410)
      expect(response.body).toMatchObject({ code: 'approval_expired' })
      const approval = (await short.client.getApproval(view.approval.id)).approval
      expect(approval).toMatchObject({ status: 'expired', decidedBy: 'timeout' })
      await turnSettled(short, room.id, view.approval.turnId)
      expect(existsSync(join(short.workspace, 'late.txt'))).toBe(false)
    } finally {
      await short.close()
    }
  })
})

/** Opens the event stream and reads it up to the `: connected` comment, i.e.
 *  everything the runtime replays before live events. */
async function eventStreamPreamble(lastEventId?: string): Promise<string> {
  const { port, bearerToken } = harness.connection()
  const controller = new AbortController()
  const response = await fetch(`http://127.0.0.1:${port}/v1/events`, {
    headers: {
      authorization: `Bearer ${bearerToken}`,
      ...(lastEventId === undefined ? {} : { 'last-event-id': lastEventId }),
    },
    signal: controller.signal,
  })
  expect(response.status).toBe(200)
  const reader = response.body!.getReader()
  let text = ''
  while (!/: connected/.test(text)) {
    const chunk = await reader.read()
    if (chunk.done) break
    text += new TextDecoder().decode(chunk.value)
  }
  controller.abort()
  return text
}

describe('server-sent events', () => {
  it('tells a client resuming from an id this instance never sent (an earlier instance’s) to reload', async () => {
    // Make sure this instance has sent events, so "nothing new" would be a
    // plausible (and wrong) answer.
    await createRoom(harness)
    const preamble = await eventStreamPreamble('999999')
    expect(preamble).toMatch(/^event: reset$/m)
    expect(preamble).not.toMatch(/^id: /m)
  })

  it('streams approval events and resumes after Last-Event-ID', async () => {
    const { port, bearerToken } = harness.connection()
    const controller = new AbortController()
    const response = await fetch(`http://127.0.0.1:${port}/v1/events`, {
      headers: { authorization: `Bearer ${bearerToken}` },
      signal: controller.signal,
    })
    expect(response.headers.get('content-type')).toMatch(/text\/event-stream/)
    const reader = response.body!.getReader()
    const room = await createRoom(harness)
    await send(harness, room.id, 'write streamed.txt hi')
    let text = ''
    while (!/event: approval\.requested/.test(text)) {
      const chunk = await reader.read()
      if (chunk.done) break
      text += new TextDecoder().decode(chunk.value)
    }
    controller.abort()
    const ids = [...text.matchAll(/^id: (\d+)$/gm)].map((match) => Number(match[1]))
    expect(ids.length).toBeGreaterThan(1)
    const firstId = ids[0]!

    const resumed = new AbortController()
    const again = await fetch(`http://127.0.0.1:${port}/v1/events`, {
      headers: { authorization: `Bearer ${bearerToken}`, 'last-event-id': String(firstId) },
      signal: resumed.signal,
    })
    const replayReader = again.body!.getReader()
    let replay = ''
    while (!/: connected/.test(replay)) {
      const chunk = await replayReader.read()
      if (chunk.done) break
      replay += new TextDecoder().decode(chunk.value)
    }
    resumed.abort()
    const replayedIds = [...replay.matchAll(/^id: (\d+)$/gm)].map((match) => Number(match[1]))
    expect(replayedIds[0]).toBe(firstId + 1)
    expect(replayedIds).toContain(ids[ids.length - 1])
  })
})
