import { describe, expect, it } from 'vitest'
import type { ApprovalDecision } from '../../../contracts/consent.ts'
import type { ApprovalRecord } from '../../../contracts/approval.ts'
import { ACTION_DIGEST_HEADER, CONSENT_HEADER } from '../../../contracts/http-headers.ts'
import { ConsentTokenVerifier, mintConsentToken } from '../../../consent/consent-token.ts'
import { actionDigest, canonicalAction } from '../../domain/approval.ts'
import {
  fixture,
  makeGate,
  openApproval,
  useGateDatabase,
} from '../../gate/test-support/approval-gate-fixture.ts'
import { startRouteServer } from '../test-support/route-server.ts'
import { approvalRoutes } from './approval-routes.ts'

// The route that spends a person's consent token on a decision, over a real
// loopback server, a real gate and a real SQLite file: every way the token,
// the digest or the decision can disagree is the same 403 and changes
// nothing; an "always" the runtime cannot honour is refused, not downgraded.

useGateDatabase()

const KEY = Buffer.alloc(32, 9)
const INSTANCE = 'instance-1'

interface Blockers {
  always?: string | null
  server?: string | null
}

async function serve(blockers: Blockers = {}) {
  const { gate, approvals } = makeGate()
  openApproval(gate)
  const verifier = new ConsentTokenVerifier({ key: KEY, now: () => fixture.clock })
  const server = await startRouteServer(
    approvalRoutes({
      approvals,
      gate,
      verifier,
      instanceId: INSTANCE,
      alwaysAllowBlocker: () => blockers.always ?? null,
      serverAlwaysAllowBlocker: () => blockers.server ?? null,
    }),
  )
  const digest = actionDigest(canonicalAction(approvals.get('approval-1') as ApprovalRecord))
  return { server, approvals, digest }
}

function tokenFor(subject: {
  approvalId?: string
  decision: ApprovalDecision
  actionDigest: string
  instanceId?: string
}): string {
  return mintConsentToken({
    key: KEY,
    now: fixture.clock,
    binding: {
      kind: 'approval',
      subject: {
        approvalId: subject.approvalId ?? 'approval-1',
        decision: subject.decision,
        actionDigest: subject.actionDigest,
        instanceId: subject.instanceId ?? INSTANCE,
      },
    },
  })
}

function consentHeaders(token: string, digest: string): Record<string, string> {
  return { [CONSENT_HEADER]: token, [ACTION_DIGEST_HEADER]: digest }
}

const OTHER_DIGEST = 'a'.repeat(64)

describe('GET /v1/approvals/:approvalId', () => {
  it('answers the canonical action and the digest a token must name', async () => {
    const { server, approvals, digest } = await serve()
    const answer = await server.send('GET', '/v1/approvals/approval-1')
    expect(answer.status).toBe(200)
    const approval = approvals.get('approval-1') as ApprovalRecord
    expect(answer.body).toEqual({
      approval: JSON.parse(JSON.stringify(approval)),
      action: JSON.parse(JSON.stringify(canonicalAction(approval))),
      actionDigest: digest,
      alwaysAllowAvailable: true,
      serverAlwaysAllowAvailable: true,
    })
  })

  it.each([
    [{ always: 'no scope' }, false, true],
    [{ server: 'no server' }, true, false],
  ])('says which "always" is offered (%o)', async (blockers, always, wholeServer) => {
    const { server } = await serve(blockers)
    const answer = await server.send('GET', '/v1/approvals/approval-1')
    expect(answer.body.alwaysAllowAvailable).toBe(always)
    expect(answer.body.serverAlwaysAllowAvailable).toBe(wholeServer)
  })

  it('refuses an approval it does not hold with 404', async () => {
    const { server } = await serve()
    const answer = await server.send('GET', '/v1/approvals/approval-9')
    expect(answer).toEqual({
      status: 404,
      body: { code: 'unknown_approval', error: 'unknown approval' },
    })
  })
})

describe('POST /v1/approvals/:approvalId', () => {
  it.each(['allow-once', 'deny'] as const)(
    'decides %s for the person with a token bound to it',
    async (decision) => {
      const { server, approvals, digest } = await serve()
      const answer = await server.send('POST', '/v1/approvals/approval-1', {
        headers: consentHeaders(tokenFor({ decision, actionDigest: digest }), digest),
        body: { decision },
      })
      expect(answer.status).toBe(200)
      const stored = approvals.get('approval-1')
      expect(stored).toMatchObject({
        status: decision === 'deny' ? 'denied' : 'allowed',
        decision,
        decidedBy: 'user',
      })
      expect(answer.body).toEqual({ approval: JSON.parse(JSON.stringify(stored)) })
    },
  )

  const refusedConsent: Array<[string, (digest: string) => Record<string, string>]> = [
    ['no consent header', (digest) => ({ [ACTION_DIGEST_HEADER]: digest })],
    [
      'no digest header',
      (digest) => ({
        [CONSENT_HEADER]: tokenFor({ decision: 'allow-once', actionDigest: digest }),
      }),
    ],
    ['a token out of grammar', (digest) => consentHeaders('v1.1.x.y', digest)],
    [
      'a digest out of grammar',
      (digest) =>
        consentHeaders(
          tokenFor({ decision: 'allow-once', actionDigest: digest }),
          digest.toUpperCase(),
        ),
    ],
    [
      'a token for another decision',
      (digest) => consentHeaders(tokenFor({ decision: 'deny', actionDigest: digest }), digest),
    ],
    [
      'a token for another approval',
      (digest) =>
        consentHeaders(
          tokenFor({ approvalId: 'approval-2', decision: 'allow-once', actionDigest: digest }),
          digest,
        ),
    ],
    [
      'a token for another runtime instance',
      (digest) =>
        consentHeaders(
          tokenFor({ instanceId: 'instance-2', decision: 'allow-once', actionDigest: digest }),
          digest,
        ),
    ],
    [
      'a digest the token does not name',
      (digest) =>
        consentHeaders(tokenFor({ decision: 'allow-once', actionDigest: digest }), OTHER_DIGEST),
    ],
    [
      'a genuine token for an action the approval no longer shows',
      () =>
        consentHeaders(
          tokenFor({ decision: 'allow-once', actionDigest: OTHER_DIGEST }),
          OTHER_DIGEST,
        ),
    ],
  ]

  it.each(refusedConsent)('refuses %s with 403 and decides nothing', async (_case, headers) => {
    const { server, approvals, digest } = await serve()
    const answer = await server.send('POST', '/v1/approvals/approval-1', {
      headers: headers(digest),
      body: { decision: 'allow-once' },
    })
    expect(answer.status).toBe(403)
    expect(answer.body.code).toBe('consent_required')
    expect(approvals.get('approval-1')?.status).toBe('pending')
  })

  it('verifies the token before looking the approval up: an unknown one is the same 403', async () => {
    const { server, digest } = await serve()
    const answer = await server.send('POST', '/v1/approvals/approval-9', {
      headers: { [ACTION_DIGEST_HEADER]: digest },
      body: { decision: 'allow-once' },
    })
    expect(answer).toEqual({
      status: 403,
      body: { code: 'consent_required', error: 'protected approval consent required' },
    })
  })

  it('spends a token once: the replay is refused', async () => {
    const { server, digest } = await serve()
    const headers = consentHeaders(
      tokenFor({ decision: 'allow-once', actionDigest: digest }),
      digest,
    )
    const first = await server.send('POST', '/v1/approvals/approval-1', {
      headers,
      body: { decision: 'allow-once' },
    })
    expect(first.status).toBe(200)
    const replay = await server.send('POST', '/v1/approvals/approval-1', {
      headers,
      body: { decision: 'allow-once' },
    })
    expect(replay.status).toBe(403)
  })

  it.each<[ApprovalDecision, Blockers, number]>([
    ['allow-always', { always: 'no scope' }, 409],
    ['allow-always', { server: 'no server' }, 200],
    ['allow-always-server', { server: 'no server' }, 409],
    ['allow-always-server', { always: 'no scope' }, 200],
    ['allow-once', { always: 'no scope', server: 'no server' }, 200],
  ])(
    'honours %s only when its own scope can be kept (%o → %i)',
    async (decision, blockers, status) => {
      const { server, approvals, digest } = await serve(blockers)
      const answer = await server.send('POST', '/v1/approvals/approval-1', {
        headers: consentHeaders(tokenFor({ decision, actionDigest: digest }), digest),
        body: { decision },
      })
      expect(answer.status).toBe(status)
      if (status === 409) {
        expect(answer.body.code).toBe('always_allow_unavailable')
        expect(String(answer.body.error)).toContain(blockers.always ?? blockers.server ?? '')
        expect(approvals.get('approval-1')?.status).toBe('pending')
      } else {
        expect(approvals.get('approval-1')).toMatchObject({ status: 'allowed', decision })
      }
    },
  )

  it.each([
    ['missing', () => undefined],
    ['with a trailing space', (digest: string) => `${digest} `],
    ['in upper case', (digest: string) => digest.toUpperCase()],
  ])('spends no token on a digest header %s: the same token then decides', async (_case, spell) => {
    const { server, digest } = await serve()
    const token = tokenFor({ decision: 'allow-once', actionDigest: digest })
    const spelled = spell(digest)
    const malformed = await server.send('POST', '/v1/approvals/approval-1', {
      headers: spelled === undefined ? { [CONSENT_HEADER]: token } : consentHeaders(token, spelled),
      body: { decision: 'allow-once' },
    })
    expect(malformed.status).toBe(403)
    const good = await server.send('POST', '/v1/approvals/approval-1', {
      headers: consentHeaders(token, digest),
      body: { decision: 'allow-once' },
    })
    expect(good.status).toBe(200)
  })

  it('refuses a body that is not a decision before spending the token', async () => {
    const { server, digest } = await serve()
    const headers = consentHeaders(
      tokenFor({ decision: 'allow-once', actionDigest: digest }),
      digest,
    )
    const bad = await server.send('POST', '/v1/approvals/approval-1', {
      headers,
      body: { decision: 'allow-once', extra: true },
    })
    expect(bad.status).toBe(400)
    const good = await server.send('POST', '/v1/approvals/approval-1', {
      headers,
      body: { decision: 'allow-once' },
    })
    expect(good.status).toBe(200)
  })
})
