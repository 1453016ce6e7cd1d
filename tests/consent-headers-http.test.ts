import { randomUUID } from 'node:crypto'
import type { Agent } from 'node:http'
import type { Socket } from 'node:net'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ACTION_DIGEST_HEADER, CONSENT_HEADER } from '../src/contracts/http-headers.ts'
import type { PermissionMode } from '../src/contracts/policy-axes.ts'
import { rawExchange } from './support/raw-http-exchange.ts'
import { createRoom, pendingApprovalFor } from './support/room-helpers.ts'
import { startHarness, type RuntimeHarness } from './support/runtime-harness.ts'

// Both consent routes of a real runtime, over raw loopback sockets: every
// header that carries consent is taken exactly as it was sent. Any other
// spelling of a valid value (padded, repeated, joined, changed) is the same
// 403 before verification, so it burns nothing: the exact request with the
// same token, sent next, is accepted.

let harness: RuntimeHarness

beforeAll(async () => {
  harness = await startHarness({ approvalTtlMs: 86_400_000 })
})
afterAll(async () => {
  await harness?.close()
})

type Variant =
  | { kind: 'padded'; before: string; after: string }
  | { kind: 'twice' }
  | { kind: 'twice-with-garbage' }
  | { kind: 'comma-joined'; separator: string }
  | { kind: 'inserted'; char: string; at: number }
  | { kind: 'upper-case' }
  | { kind: 'empty'; spelling: string }
  | { kind: 'missing' }

const whitespace = fc.stringMatching(/^[ \t]{0,3}$/)

/** Every way of sending a consent-carrying header other than exactly once,
 *  as `name: value`, with the value as minted. */
const variantArb: fc.Arbitrary<Variant> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .record({ kind: fc.constant('padded' as const), before: whitespace, after: whitespace })
      .filter(({ before, after }) => !((before === '' || before === ' ') && after === '')),
  },
  fc.constant({ kind: 'twice' as const }),
  fc.constant({ kind: 'twice-with-garbage' as const }),
  fc.record({
    kind: fc.constant('comma-joined' as const),
    separator: fc.constantFrom(',', ', ', ' ,'),
  }),
  fc.record({
    kind: fc.constant('inserted' as const),
    char: fc.constantFrom(' ', '\t', '\u00a0', ',', '"', ';', '=', 'é', '\u0080', '\u00ff'),
    at: fc.nat(),
  }),
  fc.constant({ kind: 'upper-case' as const }),
  fc.record({
    kind: fc.constant('empty' as const),
    spelling: fc.constantFrom('', ' ', '  ', '\t'),
  }),
  fc.constant({ kind: 'missing' as const }),
)

/** The header lines for `name` sent as `variant` instead of `value`. */
function headerLines(name: string, value: string, variant: Variant): string[] {
  switch (variant.kind) {
    case 'padded':
      return [`${name}:${variant.before}${value}${variant.after}`]
    case 'twice':
      return [`${name}: ${value}`, `${name}: ${value}`]
    case 'twice-with-garbage':
      return [`${name}: ${value}`, `${name}: x`]
    case 'comma-joined':
      return [`${name}: ${value}${variant.separator}${value}`]
    case 'inserted': {
      const at = 1 + (variant.at % (value.length - 1))
      return [`${name}: ${value.slice(0, at)}${variant.char}${value.slice(at)}`]
    }
    case 'upper-case':
      return [`${name}: ${value.toUpperCase()}`]
    case 'empty':
      return [`${name}:${variant.spelling}`]
    case 'missing':
      return []
  }
}

/** One request's bytes: `lines` as written, a body (an object as JSON, a
 *  string as written), and the connection kept open after it unless `close`. */
function requestBytes(
  method: string,
  path: string,
  lines: string[],
  body: object | string,
  close = true,
) {
  const { port, bearerToken } = harness.connection()
  const json = typeof body === 'string' ? body : JSON.stringify(body)
  const head =
    `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n` +
    `Authorization: Bearer ${bearerToken}\r\nContent-Type: application/json\r\n` +
    lines.map((line) => `${line}\r\n`).join('') +
    `Content-Length: ${Buffer.byteLength(json)}\r\n${close ? 'Connection: close\r\n' : ''}\r\n`
  return Buffer.concat([Buffer.from(head, 'latin1'), Buffer.from(json)])
}

async function send(method: string, path: string, lines: string[], body: object) {
  const result = await rawExchange({
    port: harness.connection().port,
    bytes: requestBytes(method, path, lines, body),
    methods: [method],
    timeoutMs: 15_000,
  })
  const [response] = result.responses
  if (!response) throw new Error(`no answer to ${method} ${path}`)
  return { status: response.status, body: JSON.parse(response.body) as { code?: string } }
}

describe('consent-carrying headers on the runtime’s consent routes', () => {
  it('refuses any other spelling of a valid token or digest on a decision, and burns nothing', async () => {
    const room = await createRoom(harness)
    let runs = 0
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(CONSENT_HEADER, ACTION_DIGEST_HEADER),
        variantArb,
        async (spoiled, variant) => {
          const view = await pendingApprovalFor(harness, room.id, `write exact-${runs}.txt x`)
          const path = `/v1/approvals/${view.approval.id}`
          const token = harness.mintApproval(view.approval.id, 'deny', view.actionDigest)
          const exact = { [CONSENT_HEADER]: token, [ACTION_DIGEST_HEADER]: view.actionDigest }
          const lines = Object.entries(exact).flatMap(([name, value]) =>
            name === spoiled ? headerLines(name, value, variant) : [`${name}: ${value}`],
          )
          const refused = await send('POST', path, lines, { decision: 'deny' })
          expect(refused, JSON.stringify(lines)).toEqual({
            status: 403,
            body: expect.objectContaining({ code: 'consent_required' }),
          })
          const accepted = await send(
            'POST',
            path,
            Object.entries(exact).map(([name, value]) => `${name}: ${value}`),
            { decision: 'deny' },
          )
          expect(accepted.status).toBe(200)
          runs += 1
        },
      ),
      { numRuns: 24 },
    )
    expect(runs).toBe(24)
  })

  it('refuses any other spelling of a valid token on a permission change, and burns nothing', async () => {
    const room = await createRoom(harness)
    const modes: PermissionMode[] = ['approve-for-me', 'ask-for-approval']
    let revision = (await harness.client.getPermissions(room.id)).revision
    await fc.assert(
      fc.asyncProperty(variantArb, async (variant) => {
        const body = {
          clientRequestId: randomUUID(),
          expectedRevision: revision,
          mode: modes[revision % 2]!,
        }
        const path = `/v1/rooms/${room.id}/direct/permissions`
        const token = harness.mintPermission({ roomId: room.id, ...body })
        const lines = headerLines(CONSENT_HEADER, token, variant)
        const refused = await send('PUT', path, lines, body)
        expect(refused, JSON.stringify(lines)).toEqual({
          status: 403,
          body: expect.objectContaining({ code: 'consent_required' }),
        })
        const accepted = await send('PUT', path, [`${CONSENT_HEADER}: ${token}`], body)
        expect(accepted.status).toBe(200)
        revision += 1
      }),
      { numRuns: 40 },
    )
    expect((await harness.client.getPermissions(room.id)).revision).toBe(revision)
  })

  it('accepts the header name in any letter case, as HTTP defines it', async () => {
    const room = await createRoom(harness)
    const view = await pendingApprovalFor(harness, room.id, 'write cased.txt x')
    const token = harness.mintApproval(view.approval.id, 'deny', view.actionDigest)
    const response = await send(
      'POST',
      `/v1/approvals/${view.approval.id}`,
      [`X-Assent-Consent:${token}`, `X-ASSENT-ACTION-DIGEST: ${view.actionDigest}`],
      { decision: 'deny' },
    )
    expect(response.status).toBe(200)
  })
})

describe('a refused consent header leaves nothing behind on its kept-alive connection', () => {
  it('counts a genuine token main’s runtime client sends on the connection a padded one was refused on', async () => {
    const room = await createRoom(harness)
    // The client's own keep-alive agent: every socket it hands back for reuse.
    const agent = (harness.client as unknown as { loopback: { agent: Agent } }).loopback.agent
    const reused = new Set<Socket>()
    const onFree = (socket: Socket) => reused.add(socket)
    agent.on('free', onFree)
    try {
      for (const [index, spoil] of [
        (token: string) => ` ${token}`,
        (token: string) => `${token}\t`,
      ].entries()) {
        const view = await pendingApprovalFor(harness, room.id, `write kept-alive-${index}.txt x`)
        const token = harness.mintApproval(view.approval.id, 'deny', view.actionDigest)
        reused.clear()
        const decide = (consent: string) =>
          harness.client.decideApproval(view.approval.id, 'deny', consent, view.actionDigest)
        const refused = await decide(spoil(token))
        expect(refused).toEqual({
          status: 403,
          body: expect.objectContaining({ code: 'consent_required' }),
        })
        const accepted = await decide(token)
        expect(accepted.status).toBe(200)
        // Both went over one connection: the refusal did not close it.
        expect(reused.size).toBe(1)
      }
    } finally {
      agent.off('free', onFree)
    }
  })

  it('judges pipelined decisions each by its own headers', async () => {
    const room = await createRoom(harness)
    const view = await pendingApprovalFor(harness, room.id, 'write pipelined.txt x')
    const path = `/v1/approvals/${view.approval.id}`
    const token = harness.mintApproval(view.approval.id, 'deny', view.actionDigest)
    const digest = `${ACTION_DIGEST_HEADER}: ${view.actionDigest}`
    const body = { decision: 'deny' }
    const result = await rawExchange({
      port: harness.connection().port,
      bytes: Buffer.concat([
        requestBytes('POST', path, [`${CONSENT_HEADER}:\t${token}`, digest], body, false),
        requestBytes('POST', path, [`${CONSENT_HEADER}: ${token}`, digest], body),
      ]),
      methods: ['POST', 'POST'],
      timeoutMs: 15_000,
    })
    expect(result.responses.map((response) => response.status)).toEqual([403, 200])
  })

  it('never takes a body line that looks like a padded consent header for the next request’s', async () => {
    const room = await createRoom(harness)
    const view = await pendingApprovalFor(harness, room.id, 'write body-line.txt x')
    const path = `/v1/approvals/${view.approval.id}`
    const token = harness.mintApproval(view.approval.id, 'deny', view.actionDigest)
    const digest = `${ACTION_DIGEST_HEADER}: ${view.actionDigest}`
    // The body carries a line that reads as a padded consent header (and a
    // blank line after it), and is refused for not being JSON alone.
    const bodyLine = `{"decision":"deny"}\r\n${CONSENT_HEADER}:  ${token} \r\n\r\n`
    const firstBytes = requestBytes('POST', path, [digest], bodyLine, false)
    expect(firstBytes.toString('latin1')).toContain(`\r\n${CONSENT_HEADER}:  ${token} \r\n`)
    const result = await rawExchange({
      port: harness.connection().port,
      bytes: Buffer.concat([
        firstBytes,
        requestBytes('POST', path, [`${CONSENT_HEADER}: ${token}`, digest], { decision: 'deny' }),
      ]),
      methods: ['POST', 'POST'],
      timeoutMs: 15_000,
    })
    expect(result.responses.map((response) => response.status)).toEqual([400, 200])
  })
})
