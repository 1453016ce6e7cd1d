import { createHmac } from 'node:crypto'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { type ConsentBinding } from '../contracts/consent.ts'
import {
  CONSENT_LIFETIME_MS,
  ConsentTokenVerifier,
  MAX_FUTURE_SKEW_MS,
  consentSigningInput,
  mintConsentToken,
  parseConsentToken,
} from './consent-token.ts'
import { MAX_LEDGER_CAPACITY } from './nonce-ledger.ts'
import {
  RUNS,
  T0,
  KEY,
  nonceBytes,
  SAMPLE_APPROVAL,
  anyBinding,
  mint,
  verifierAt,
  expectGenuine,
  segments,
} from './test-support/consent-token-fixtures.ts'

describe('mintConsentToken', () => {
  it('mints v1.<expiry>.<nonce>.<sig> from the injected clock and random source', () => {
    fc.assert(
      fc.property(
        anyBinding,
        nonceBytes,
        fc.integer({ min: 1, max: MAX_FUTURE_SKEW_MS }),
        (binding, bytes, lifetimeMs) => {
          const token = mint(binding, { nonce: bytes, lifetimeMs })
          expect(token).toMatch(/^v1\.[1-9][0-9]*\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}$/)
          expect(parseConsentToken(token)?.expiresAtMs).toBe(T0 + lifetimeMs)
          // The nonce is a function of the random bytes: the same bytes in the
          // same second give the same nonce, whatever the lifetime.
          expect(segments(mint(SAMPLE_APPROVAL, { nonce: bytes })).nonce).toBe(
            segments(token).nonce,
          )
        },
      ),
      RUNS,
    )
  })

  it('defaults to a 30 s lifetime and a fresh random nonce per token', () => {
    const binding = SAMPLE_APPROVAL
    const first = parseConsentToken(mintConsentToken({ key: KEY, binding, now: T0 }))
    const second = parseConsentToken(mintConsentToken({ key: KEY, binding, now: T0 }))
    expect(first?.expiresAtMs).toBe(T0 + CONSENT_LIFETIME_MS)
    expect(first?.nonce).not.toBe(second?.nonce)
  })

  it('never repeats a default nonce across many pool refills', () => {
    const seen = new Set<string>()
    for (let index = 0; index < 2_000; index += 1) {
      const parsed = parseConsentToken(
        mintConsentToken({ key: KEY, binding: SAMPLE_APPROVAL, now: T0 }),
      )
      seen.add(parsed?.nonce ?? '')
    }
    expect(seen.size).toBe(2_000)
  })

  it('signs with the current bytes of a key buffer the caller changed', () => {
    const key = Buffer.from(KEY)
    const nonce = new Uint8Array(8).fill(7)
    const before = mint(SAMPLE_APPROVAL, { key, nonce })
    key.fill(1)
    const after = mint(SAMPLE_APPROVAL, { key, nonce })
    expect(after).not.toBe(before)
    expect(verifierAt(T0, { key: Buffer.alloc(32, 1) }).verify(after, SAMPLE_APPROVAL)).toBe(true)
    expectGenuine(before, SAMPLE_APPROVAL)
  })

  it('keeps verifying with the key it was given after the caller changed the buffer', () => {
    const key = Buffer.from(KEY)
    const verifier = verifierAt(T0, { key })
    key.fill(1)
    expect(verifier.verify(mint(SAMPLE_APPROVAL), SAMPLE_APPROVAL)).toBe(true)
  })

  it('signs exactly the documented domain-separated string', () => {
    const binding: ConsentBinding = {
      kind: 'approval',
      subject: {
        instanceId: 'inst-1',
        approvalId: 'appr-1',
        decision: 'allow-once',
        actionDigest: 'ab'.repeat(32),
      },
    }
    const token = mint(binding, { nonce: Buffer.alloc(8, 0xfb) })
    const { nonce } = segments(token)
    const expected = [
      'assent-consent-token/v1',
      'approval',
      `{"actionDigest":"${'ab'.repeat(32)}","approvalId":"appr-1","decision":"allow-once","instanceId":"inst-1"}`,
      String(T0 + CONSENT_LIFETIME_MS),
      nonce,
    ].join('\n')
    expect(consentSigningInput(binding, T0 + CONSENT_LIFETIME_MS, nonce)).toBe(expected)
    const sig = createHmac('sha256', KEY).update(expected, 'utf8').digest('base64url')
    expect(token).toBe(`v1.${T0 + CONSENT_LIFETIME_MS}.${nonce}.${sig}`)
  })

  it.each([
    ['a 31-byte key', { key: Buffer.alloc(31) }],
    ['a 33-byte key', { key: Buffer.alloc(33) }],
    ['a key that is not a Buffer', { key: 'k'.repeat(32) as unknown as Buffer }],
    ['a zero lifetime', { lifetimeMs: 0 }],
    ['a negative lifetime', { lifetimeMs: -1 }],
    ['a lifetime beyond the verifier skew', { lifetimeMs: MAX_FUTURE_SKEW_MS + 1 }],
    ['a fractional lifetime', { lifetimeMs: 1.5 }],
    ['a NaN lifetime', { lifetimeMs: Number.NaN }],
    ['a fractional clock', { now: T0 + 0.5 }],
    ['a negative clock', { now: -1 }],
    ['a short random source', { randomBytes: () => Buffer.alloc(7) }],
    ['a long random source', { randomBytes: () => Buffer.alloc(16) }],
  ])('refuses to mint with %s', (_name, override) => {
    expect(() => mintConsentToken({ key: KEY, binding: SAMPLE_APPROVAL, now: T0 })).not.toThrow()
    expect(() =>
      mintConsentToken({ key: KEY, binding: SAMPLE_APPROVAL, now: T0, ...override }),
    ).toThrow()
  })

  it.each([
    [
      'an uppercase action digest',
      {
        kind: 'approval',
        subject: {
          approvalId: 'a',
          decision: 'deny',
          actionDigest: 'A'.repeat(64),
          instanceId: 'i',
        },
      },
    ],
    [
      'an empty approval id',
      {
        kind: 'approval',
        subject: {
          approvalId: '',
          decision: 'deny',
          actionDigest: '0'.repeat(64),
          instanceId: 'i',
        },
      },
    ],
    [
      'an unknown decision',
      {
        kind: 'approval',
        subject: {
          approvalId: 'a',
          decision: 'allow',
          actionDigest: '0'.repeat(64),
          instanceId: 'i',
        },
      },
    ],
    [
      'an extra subject field',
      {
        kind: 'approval',
        subject: {
          approvalId: 'a',
          decision: 'deny',
          actionDigest: '0'.repeat(64),
          instanceId: 'i',
          extra: 1,
        },
      },
    ],
    [
      'a 129-character client request id',
      {
        kind: 'room-permission',
        subject: {
          roomId: 'r',
          clientRequestId: 'c'.repeat(129),
          expectedRevision: 0,
          mode: 'full-access',
          instanceId: 'i',
        },
      },
    ],
    [
      'a negative revision',
      {
        kind: 'room-permission',
        subject: {
          roomId: 'r',
          clientRequestId: 'c',
          expectedRevision: -1,
          mode: 'full-access',
          instanceId: 'i',
        },
      },
    ],
    [
      'an approval subject under the room kind',
      {
        kind: 'room-permission',
        subject: {
          approvalId: 'a',
          decision: 'deny',
          actionDigest: '0'.repeat(64),
          instanceId: 'i',
        },
      },
    ],
    [
      'a lone surrogate in an id (RFC 8785 has no form for it)',
      {
        kind: 'approval',
        subject: {
          approvalId: 'appr-\ud800',
          decision: 'deny',
          actionDigest: '0'.repeat(64),
          instanceId: 'i',
        },
      },
    ],
    [
      'an unknown kind',
      {
        kind: 'tool',
        subject: {
          approvalId: 'a',
          decision: 'deny',
          actionDigest: '0'.repeat(64),
          instanceId: 'i',
        },
      },
    ],
  ])('refuses to mint for %s, and verifies nothing against it', (_name, binding) => {
    expect(() =>
      mintConsentToken({ key: KEY, binding: binding as ConsentBinding, now: T0 }),
    ).toThrow(TypeError)
    expect(verifierAt(T0).verify(mint(SAMPLE_APPROVAL), binding as ConsentBinding)).toBe(false)
  })
})

describe('consent tokens: what each refusal says, and the edges it draws', () => {
  it('mints at the epoch: now = 0 is a valid clock reading', () => {
    expectGenuine(mint(SAMPLE_APPROVAL, { now: 0 }), SAMPLE_APPROVAL, 0)
  })

  it('refuses to mint an expiry past the largest safe integer', () => {
    expect(() => mint(SAMPLE_APPROVAL, { now: Number.MAX_SAFE_INTEGER - 1 })).toThrow(
      new RangeError('expiry is not a safe integer'),
    )
  })

  it('names what was wrong with a mint request', () => {
    expect(() => mint(SAMPLE_APPROVAL, { now: -1 })).toThrow(
      'now must be a non-negative integer number of milliseconds',
    )
    expect(() => mint(SAMPLE_APPROVAL, { lifetimeMs: MAX_FUTURE_SKEW_MS + 1 })).toThrow(
      `lifetimeMs must be an integer in 1..${MAX_FUTURE_SKEW_MS}`,
    )
    expect(() =>
      mintConsentToken({
        key: KEY,
        binding: SAMPLE_APPROVAL,
        now: T0,
        randomBytes: () => Buffer.alloc(16),
      }),
    ).toThrow('randomBytes must return exactly 8 bytes')
    expect(() => mint(SAMPLE_APPROVAL, { key: Buffer.alloc(16) })).toThrow(
      'consent key must be a 32-byte Buffer',
    )
    expect(
      () => new ConsentTokenVerifier({ key: KEY, now: T0 as unknown as () => number }),
    ).toThrow('now must be a clock function')
    for (const maxUsedNonces of [0, MAX_LEDGER_CAPACITY + 1]) {
      expect(() => new ConsentTokenVerifier({ key: KEY, now: () => T0, maxUsedNonces })).toThrow(
        `maxUsedNonces must be an integer in 1..${MAX_LEDGER_CAPACITY}`,
      )
    }
  })

  it('names why a binding cannot be bound, and never verifies one', () => {
    const token = mint(SAMPLE_APPROVAL)
    const cases: Array<[unknown, string]> = [
      [null, 'binding must be an object'],
      ['approval', 'binding must be an object'],
      [
        { kind: 'bogus', subject: SAMPLE_APPROVAL.subject },
        'binding.kind must be "approval", "room-permission" or "approver-webhook"',
      ],
      [{ kind: 'toString', subject: SAMPLE_APPROVAL.subject }, 'binding.kind must be'],
      [
        { kind: 'approver-webhook', subject: { roomId: 'room-1', url: 'https://a.example/' } },
        'binding.subject is not a valid approver-webhook subject',
      ],
      [
        { kind: 'approval', subject: { approvalId: 'appr-7' } },
        'binding.subject is not a valid approval subject',
      ],
    ]
    for (const [binding, reason] of cases) {
      const bad = binding as ConsentBinding
      expect(() => mint(bad)).toThrow(reason)
      expect(() => consentSigningInput(bad, T0, 'n'.repeat(22))).toThrow(reason)
      expect(verifierAt(T0).verify(token, bad)).toBe(false)
    }
  })

  it('refuses a binding it cannot bind even when the token was signed over the empty binding', () => {
    // What signing an unbindable binding would produce if the verifier went on
    // with it: the tag, two empty fields, the expiry and the nonce.
    const nonce = Buffer.alloc(16, 3).toString('base64url')
    const expiresAtMs = T0 + CONSENT_LIFETIME_MS
    const signature = createHmac('sha256', KEY)
      .update(['assent-consent-token/v1', '', '', String(expiresAtMs), nonce].join('\n'))
      .digest('base64url')
    const token = `v1.${expiresAtMs}.${nonce}.${signature}`
    expect(parseConsentToken(token)).not.toBeNull()
    const unbindable = { kind: 'bogus', subject: {} } as unknown as ConsentBinding
    expect(verifierAt(T0).verify(token, unbindable)).toBe(false)
  })

  it('refuses a binding it cannot bind whatever string it would stand for', () => {
    // A refusal turned into text would read "[object Object]"; a token signed
    // over that must not verify against any unbindable binding either.
    const nonce = segments(mint(SAMPLE_APPROVAL)).nonce
    const expiresAtMs = T0 + CONSENT_LIFETIME_MS
    for (const stand of ['[object Object]', 'undefined', '']) {
      const signature = createHmac('sha256', KEY)
        .update(`${stand}${expiresAtMs}\n${nonce}`)
        .digest('base64url')
      const token = `v1.${expiresAtMs}.${nonce}.${signature}`
      expect(parseConsentToken(token)).not.toBeNull()
      for (const unbindable of [
        { kind: 'approval', subject: { approvalId: 'appr-7' } },
        { kind: 'bogus', subject: SAMPLE_APPROVAL.subject },
        null,
      ]) {
        expect(verifierAt(T0).verify(token, unbindable as ConsentBinding), stand).toBe(false)
      }
    }
  })

  it('parses only a string, never an object that stringifies to a token', () => {
    const token = mint(SAMPLE_APPROVAL)
    const impostor = { toString: () => token } as unknown as string
    expect(parseConsentToken(impostor)).toBeNull()
    expect(verifierAt(T0).verify(impostor, SAMPLE_APPROVAL)).toBe(false)
    expectGenuine(token, SAMPLE_APPROVAL)
  })
})
