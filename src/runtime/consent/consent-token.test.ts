import { createHmac } from 'node:crypto'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  ApprovalConsentSubjectSchema,
  ApprovalDecisionSchema,
  RoomPermissionConsentSubjectSchema,
} from '../contracts/consent.ts'
import type {
  ApprovalConsentSubject,
  ConsentGrant,
  RoomPermissionConsentSubject,
} from '../contracts/consent.ts'
import { PermissionModeSchema } from '../contracts/policy-axes.ts'
import type { ConsentTokenVerifierOptions } from './consent-token.ts'
import {
  CONSENT_LIFETIME_MS,
  ConsentTokenVerifier,
  MAX_FUTURE_SKEW_MS,
  MAX_USED_NONCES,
  consentSigningInput,
  mintConsentToken,
  parseConsentToken,
} from './consent-token.ts'

const RUNS = { numRuns: 200 }
const T0 = 1_700_000_000_000
const KEY = Buffer.from('9c1f4e7a2b8d3c6f0a5e1d9b7c4f2a8e6d3b0c9f1e7a5d2b8c4f6e0a3d9b1c7e', 'hex')
const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
// Last characters whose unused low bits are zero: a 16-byte nonce leaves 4
// spare bits in its 22nd character, a 32-byte signature 2 in its 43rd.
const NONCE_LAST_CHARS = [...B64URL].filter((_, index) => index % 16 === 0)
const SIG_LAST_CHARS = [...B64URL].filter((_, index) => index % 4 === 0)

const text = fc.string({ minLength: 1, maxLength: 24, unit: 'binary' })
const digest = fc
  .uint8Array({ minLength: 32, maxLength: 32 })
  .map((bytes) => Buffer.from(bytes).toString('hex'))
const decision = fc.constantFrom(...ApprovalDecisionSchema.options)
const mode = fc.constantFrom(...PermissionModeSchema.options)
const nonceBytes = fc.uint8Array({ minLength: 16, maxLength: 16 })
const keyBytes = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((bytes) => Buffer.from(bytes))

const APPROVAL_FIELDS: { [K in keyof ApprovalConsentSubject]: fc.Arbitrary<unknown> } = {
  approvalId: text,
  decision,
  actionDigest: digest,
  instanceId: text,
}
const ROOM_FIELDS: { [K in keyof RoomPermissionConsentSubject]: fc.Arbitrary<unknown> } = {
  roomId: text,
  // 64 code points stay within the schema's 128 UTF-16 units.
  clientRequestId: fc.string({ minLength: 1, maxLength: 64, unit: 'binary' }),
  expectedRevision: fc.maxSafeNat(),
  mode,
  instanceId: text,
}

const SAMPLE_APPROVAL: ConsentGrant = {
  kind: 'approval',
  subject: {
    approvalId: 'appr-7',
    decision: 'allow-once',
    actionDigest: 'c4'.repeat(32),
    instanceId: 'inst-1',
  },
}
const SAMPLE_ROOM: ConsentGrant = {
  kind: 'room-permission',
  subject: {
    roomId: 'room-1',
    clientRequestId: 'req-1',
    expectedRevision: 3,
    mode: 'full-access',
    instanceId: 'inst-1',
  },
}

const approvalGrant: fc.Arbitrary<ConsentGrant> = fc
  .record(APPROVAL_FIELDS)
  .map((subject) => ({ kind: 'approval', subject: subject as ApprovalConsentSubject }))
const roomGrant: fc.Arbitrary<ConsentGrant> = fc
  .record(ROOM_FIELDS)
  .map((subject) => ({ kind: 'room-permission', subject: subject as RoomPermissionConsentSubject }))
const anyGrant = fc.oneof(approvalGrant, roomGrant)

function mint(
  grant: ConsentGrant,
  extra: { now?: number; lifetimeMs?: number; nonce?: Uint8Array; key?: Buffer } = {},
) {
  const nonce = extra.nonce
  return mintConsentToken({
    key: extra.key ?? KEY,
    grant,
    now: extra.now ?? T0,
    lifetimeMs: extra.lifetimeMs,
    randomBytes: nonce === undefined ? undefined : () => Buffer.from(nonce),
  })
}

function verifierAt(now: number, options: { key?: Buffer; maxUsedNonces?: number } = {}) {
  return new ConsentTokenVerifier({ key: options.key ?? KEY, now: () => now, ...options })
}

/** A fresh verifier accepting the token proves a refusal elsewhere comes from
 *  the change under test, not from a token that never worked. */
function expectGenuine(token: string, grant: ConsentGrant, now = T0) {
  expect(verifierAt(now).verify(token, grant)).toBe(true)
}

function segments(token: string) {
  const [, expiry = '', nonce = '', sig = ''] = token.split('.')
  return { expiry, nonce, sig }
}

function replaceAt(value: string, index: number, char: string) {
  return value.slice(0, index) + char + value.slice(index + 1)
}

function withSubjectField(grant: ConsentGrant, field: string, value: unknown): ConsentGrant {
  return { ...grant, subject: { ...grant.subject, [field]: value } } as ConsentGrant
}

function schemaFor(kind: ConsentGrant['kind']) {
  return kind === 'approval' ? ApprovalConsentSubjectSchema : RoomPermissionConsentSubjectSchema
}

describe('mintConsentToken', () => {
  it('mints v1.<expiry>.<nonce>.<sig> from the injected clock and random source', () => {
    fc.assert(
      fc.property(
        anyGrant,
        nonceBytes,
        fc.integer({ min: 1, max: MAX_FUTURE_SKEW_MS }),
        (grant, bytes, lifetimeMs) => {
          const token = mint(grant, { nonce: bytes, lifetimeMs })
          expect(token).toMatch(/^v1\.[1-9][0-9]*\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}$/)
          expect(parseConsentToken(token)).toMatchObject({
            expiresAtMs: T0 + lifetimeMs,
            nonce: Buffer.from(bytes).toString('base64url'),
          })
        },
      ),
      RUNS,
    )
  })

  it('defaults to a 30 s lifetime and a fresh random nonce per token', () => {
    const grant = SAMPLE_APPROVAL
    const first = parseConsentToken(mintConsentToken({ key: KEY, grant, now: T0 }))
    const second = parseConsentToken(mintConsentToken({ key: KEY, grant, now: T0 }))
    expect(first?.expiresAtMs).toBe(T0 + CONSENT_LIFETIME_MS)
    expect(first?.nonce).not.toBe(second?.nonce)
  })

  it('never repeats a default nonce across many pool refills', () => {
    const seen = new Set<string>()
    for (let index = 0; index < 2_000; index += 1) {
      const parsed = parseConsentToken(
        mintConsentToken({ key: KEY, grant: SAMPLE_APPROVAL, now: T0 }),
      )
      seen.add(parsed?.nonce ?? '')
    }
    expect(seen.size).toBe(2_000)
  })

  it('signs with the current bytes of a key buffer the caller changed', () => {
    const key = Buffer.from(KEY)
    const nonce = new Uint8Array(16).fill(7)
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
    const grant: ConsentGrant = {
      kind: 'approval',
      subject: {
        instanceId: 'inst-1',
        approvalId: 'appr-1',
        decision: 'allow-once',
        actionDigest: 'ab'.repeat(32),
      },
    }
    const nonce = Buffer.alloc(16, 0xfb)
    const token = mint(grant, { nonce })
    const expected = [
      'assent-consent-token/v1',
      'approval',
      `{"actionDigest":"${'ab'.repeat(32)}","approvalId":"appr-1","decision":"allow-once","instanceId":"inst-1"}`,
      String(T0 + CONSENT_LIFETIME_MS),
      '-_v7-_v7-_v7-_v7-_v7-w',
    ].join('\n')
    expect(consentSigningInput(grant, T0 + CONSENT_LIFETIME_MS, nonce.toString('base64url'))).toBe(
      expected,
    )
    const sig = createHmac('sha256', KEY).update(expected, 'utf8').digest('base64url')
    expect(token).toBe(`v1.${T0 + CONSENT_LIFETIME_MS}.-_v7-_v7-_v7-_v7-_v7-w.${sig}`)
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
    ['a short random source', { randomBytes: () => Buffer.alloc(15) }],
  ])('refuses to mint with %s', (_name, override) => {
    expect(() => mintConsentToken({ key: KEY, grant: SAMPLE_APPROVAL, now: T0 })).not.toThrow()
    expect(() =>
      mintConsentToken({ key: KEY, grant: SAMPLE_APPROVAL, now: T0, ...override }),
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
  ])('refuses to mint for %s', (_name, grant) => {
    expect(() => mintConsentToken({ key: KEY, grant: grant as ConsentGrant, now: T0 })).toThrow(
      TypeError,
    )
  })
})

describe('ConsentTokenVerifier', () => {
  it('verifies a token exactly once for its own grant and refuses the replay', () => {
    fc.assert(
      fc.property(anyGrant, nonceBytes, (grant, bytes) => {
        const token = mint(grant, { nonce: bytes })
        const verifier = verifierAt(T0)
        expect(verifier.verify(token, grant)).toBe(true)
        expect(verifier.verify(token, grant)).toBe(false)
        expect(verifier.ledgerSize).toBe(1)
      }),
      RUNS,
    )
  })

  describe.each([
    ['approval', approvalGrant, APPROVAL_FIELDS],
    ['room-permission', roomGrant, ROOM_FIELDS],
  ] as const)('for %s grants', (_kind, grants, fields) => {
    it.each(Object.keys(fields))('refuses the token once subject field %s changes', (field) => {
      const values = (fields as Record<string, fc.Arbitrary<unknown>>)[field]!
      const cases = grants.chain((grant) =>
        values
          .filter((value) => value !== (grant.subject as Record<string, unknown>)[field])
          .map((value) => ({ grant, changed: withSubjectField(grant, field, value) })),
      )
      fc.assert(
        fc.property(cases, nonceBytes, ({ grant, changed }, bytes) => {
          const token = mint(grant, { nonce: bytes })
          expect(schemaFor(changed.kind).safeParse(changed.subject).success).toBe(true)
          expect(verifierAt(T0).verify(token, changed)).toBe(false)
          expectGenuine(token, grant)
        }),
        RUNS,
      )
    })
  })

  it('refuses a token minted for one kind when presented as the other kind', () => {
    fc.assert(
      fc.property(
        approvalGrant,
        roomGrant,
        fc.boolean(),
        nonceBytes,
        (approval, room, fromApproval, bytes) => {
          const [minted, other] = fromApproval ? [approval, room] : [room, approval]
          const token = mint(minted, { nonce: bytes })
          const relabelled = { kind: other.kind, subject: minted.subject } as ConsentGrant
          expect(verifierAt(T0).verify(token, relabelled)).toBe(false)
          expect(verifierAt(T0).verify(token, other)).toBe(false)
          expectGenuine(token, minted)
        },
      ),
      RUNS,
    )
  })

  it('never lets a token for room A act on room B', () => {
    fc.assert(
      fc.property(roomGrant, text, nonceBytes, (roomA, roomIdB, bytes) => {
        fc.pre(roomIdB !== (roomA.subject as RoomPermissionConsentSubject).roomId)
        const token = mint(roomA, { nonce: bytes })
        expect(verifierAt(T0).verify(token, withSubjectField(roomA, 'roomId', roomIdB))).toBe(false)
        expectGenuine(token, roomA)
      }),
      RUNS,
    )
  })

  it('never lets an allow-once token stand for deny or allow-always', () => {
    fc.assert(
      fc.property(approvalGrant, nonceBytes, (grant, bytes) => {
        const allowOnce = withSubjectField(grant, 'decision', 'allow-once')
        const token = mint(allowOnce, { nonce: bytes })
        expect(verifierAt(T0).verify(token, withSubjectField(grant, 'decision', 'deny'))).toBe(
          false,
        )
        expect(
          verifierAt(T0).verify(token, withSubjectField(grant, 'decision', 'allow-always')),
        ).toBe(false)
        expectGenuine(token, allowOnce)
      }),
      RUNS,
    )
  })

  it('refuses a token whose expiry digits were changed', () => {
    fc.assert(
      fc.property(
        anyGrant,
        nonceBytes,
        fc.integer({ min: 1, max: MAX_FUTURE_SKEW_MS }),
        (grant, bytes, forgedLifetime) => {
          const token = mint(grant, { nonce: bytes })
          const { nonce, sig } = segments(token)
          fc.pre(forgedLifetime !== CONSENT_LIFETIME_MS)
          const forged = `v1.${T0 + forgedLifetime}.${nonce}.${sig}`
          expect(parseConsentToken(forged)).not.toBeNull()
          expect(verifierAt(T0).verify(forged, grant)).toBe(false)
          expectGenuine(token, grant)
        },
      ),
      RUNS,
    )
  })

  it('refuses a token with any nonce character changed', () => {
    fc.assert(
      fc.property(anyGrant, nonceBytes, fc.nat(21), fc.nat(63), (grant, bytes, position, pick) => {
        const token = mint(grant, { nonce: bytes })
        const { expiry, nonce, sig } = segments(token)
        const alphabet = position === 21 ? NONCE_LAST_CHARS : [...B64URL]
        const options = alphabet.filter((char) => char !== nonce[position])
        const forged = `v1.${expiry}.${replaceAt(nonce, position, options[pick % options.length]!)}.${sig}`
        expect(parseConsentToken(forged)).not.toBeNull()
        expect(verifierAt(T0).verify(forged, grant)).toBe(false)
        expectGenuine(token, grant)
      }),
      RUNS,
    )
  })

  it('refuses a token with any signature character changed', () => {
    fc.assert(
      fc.property(anyGrant, nonceBytes, fc.nat(42), fc.nat(63), (grant, bytes, position, pick) => {
        const token = mint(grant, { nonce: bytes })
        const { expiry, nonce, sig } = segments(token)
        const alphabet = position === 42 ? SIG_LAST_CHARS : [...B64URL]
        const options = alphabet.filter((char) => char !== sig[position])
        const forged = `v1.${expiry}.${nonce}.${replaceAt(sig, position, options[pick % options.length]!)}`
        expect(parseConsentToken(forged)).not.toBeNull()
        expect(verifierAt(T0).verify(forged, grant)).toBe(false)
        expectGenuine(token, grant)
      }),
      RUNS,
    )
  })

  it('refuses every non-canonical spelling of a valid token without burning its nonce', () => {
    fc.assert(
      fc.property(
        anyGrant,
        nonceBytes,
        fc.integer({ min: 1, max: 15 }),
        fc.integer({ min: 1, max: 3 }),
        (grant, bytes, nonceBits, sigBits) => {
          const token = mint(grant, { nonce: bytes })
          const { expiry, nonce, sig } = segments(token)
          const nonceLast = B64URL.indexOf(nonce.at(-1)!)
          const sigLast = B64URL.indexOf(sig.at(-1)!)
          const nonceAlias = replaceAt(nonce, 21, B64URL[nonceLast + nonceBits]!)
          const sigAlias = replaceAt(sig, 42, B64URL[sigLast + sigBits]!)
          // These aliases are what a lenient decoder would accept as the same bytes.
          expect(Buffer.from(nonceAlias, 'base64url').equals(Buffer.from(nonce, 'base64url'))).toBe(
            true,
          )
          expect(Buffer.from(sigAlias, 'base64url').equals(Buffer.from(sig, 'base64url'))).toBe(
            true,
          )
          expect(Number(`${expiry}e0`)).toBe(Number(expiry))

          const standardBase64 = token.replaceAll('-', '+').replaceAll('_', '/')
          const variants = [
            `v1.${expiry}.${nonceAlias}.${sig}`,
            `v1.${expiry}.${nonce}.${sigAlias}`,
            `v1.0${expiry}.${nonce}.${sig}`,
            `v1.+${expiry}.${nonce}.${sig}`,
            `v1.${expiry}e0.${nonce}.${sig}`,
            `v1.${expiry}E0.${nonce}.${sig}`,
            `v1.0x${Number(expiry).toString(16)}.${nonce}.${sig}`,
            `v1.${expiry}.${nonce}==.${sig}`,
            `v1.${expiry}.${nonce}.${sig}=`,
            ...(standardBase64 === token ? [] : [standardBase64]),
            ` ${token}`,
            `${token} `,
            `${token}\n`,
            `${token}\r\n`,
            `\t${token}`,
            `v1. ${expiry}.${nonce}.${sig}`,
            `V1.${expiry}.${nonce}.${sig}`,
            `v2.${expiry}.${nonce}.${sig}`,
            `${token}.x`,
            `${token}.`,
            `.${token}`,
            `v1.${expiry}.${nonce}`,
            `v1..${expiry}.${nonce}.${sig}`,
            `v1.${expiry.replace(/[0-9]/g, (digit) => String.fromCharCode(0xff10 + Number(digit)))}.${nonce}.${sig}`,
          ]
          const verifier = verifierAt(T0)
          for (const variant of variants) {
            expect(parseConsentToken(variant), variant).toBeNull()
            expect(verifier.verify(variant, grant), variant).toBe(false)
          }
          expect(verifier.ledgerSize).toBe(0)
          expect(verifier.verify(token, grant)).toBe(true)
        },
      ),
      RUNS,
    )
  })

  it('refuses an expiry beyond the safe integers', () => {
    const { nonce, sig } = segments(mint(SAMPLE_APPROVAL))
    expect(parseConsentToken(`v1.9007199254740991.${nonce}.${sig}`)).not.toBeNull()
    expect(parseConsentToken(`v1.9007199254740993.${nonce}.${sig}`)).toBeNull()
    expect(parseConsentToken(`v1.10000000000000000.${nonce}.${sig}`)).toBeNull()
  })

  it.each([
    ['undefined', () => undefined],
    ['null', () => null],
    ['a number', () => 42],
    ['a String object', (token: string) => Object(token) as unknown],
    ['an array holding the token', (token: string) => [token]],
    ['a Buffer of the token', (token: string) => Buffer.from(token)],
  ])('refuses a token that is not a string: %s', (_name, wrap) => {
    const genuine = mint(SAMPLE_APPROVAL)
    expect(verifierAt(T0).verify(wrap(genuine), SAMPLE_APPROVAL)).toBe(false)
    expectGenuine(genuine, SAMPLE_APPROVAL)
  })

  it('burns the nonce when the token is presented with the wrong binding', () => {
    fc.assert(
      fc.property(anyGrant, anyGrant, nonceBytes, (grant, other, bytes) => {
        fc.pre(JSON.stringify(grant) !== JSON.stringify(other))
        const token = mint(grant, { nonce: bytes })
        const verifier = verifierAt(T0)
        expect(verifier.verify(token, other)).toBe(false)
        expect(verifier.verify(token, grant)).toBe(false)
        expect(verifier.ledgerSize).toBe(1)
        expectGenuine(token, grant)
      }),
      RUNS,
    )
  })

  it('burns the nonce when the presented subject fails its schema', () => {
    fc.assert(
      fc.property(anyGrant, nonceBytes, (grant, bytes) => {
        const token = mint(grant, { nonce: bytes })
        const verifier = verifierAt(T0)
        const invalid = {
          kind: grant.kind,
          subject: { ...grant.subject, instanceId: '' },
        } as ConsentGrant
        expect(verifier.verify(token, invalid)).toBe(false)
        expect(verifier.verify(token, grant)).toBe(false)
        expectGenuine(token, grant)
      }),
      RUNS,
    )
  })

  it('refuses a token at and after its expiry', () => {
    fc.assert(
      fc.property(
        anyGrant,
        fc.integer({ min: 1, max: MAX_FUTURE_SKEW_MS }),
        fc.nat(10 ** 9),
        (grant, lifetimeMs, lateBy) => {
          const token = mint(grant, { lifetimeMs })
          const expiresAtMs = T0 + lifetimeMs
          expect(verifierAt(expiresAtMs).verify(token, grant)).toBe(false)
          expect(verifierAt(expiresAtMs + lateBy).verify(token, grant)).toBe(false)
          expectGenuine(token, grant, expiresAtMs - 1)
        },
      ),
      RUNS,
    )
  })

  it('refuses a token expiring more than 60 s ahead of the verifier clock', () => {
    fc.assert(
      fc.property(
        anyGrant,
        fc.integer({ min: 1, max: MAX_FUTURE_SKEW_MS }),
        fc.integer({ min: 1, max: 10 ** 9 }),
        (grant, lifetimeMs, beyond) => {
          // The minter's clock runs ahead of the verifier's by more than the skew allows.
          const mintedAt = T0 + MAX_FUTURE_SKEW_MS - lifetimeMs + beyond
          const token = mint(grant, { now: mintedAt, lifetimeMs })
          expect(verifierAt(T0).verify(token, grant)).toBe(false)
          expectGenuine(token, grant, mintedAt)
        },
      ),
      RUNS,
    )
  })

  it('accepts a token expiring exactly 60 s ahead', () => {
    const grant = SAMPLE_ROOM
    const token = mint(grant, { lifetimeMs: MAX_FUTURE_SKEW_MS })
    expect(verifierAt(T0).verify(token, grant)).toBe(true)
    expect(verifierAt(T0 - 1).verify(mint(grant, { lifetimeMs: MAX_FUTURE_SKEW_MS }), grant)).toBe(
      false,
    )
  })

  it.each([Number.NaN, Number.POSITIVE_INFINITY])(
    'refuses every token while its clock reads %s',
    (reading) => {
      const grant = SAMPLE_APPROVAL
      const token = mint(grant)
      expect(verifierAt(reading).verify(token, grant)).toBe(false)
      expectGenuine(token, grant)
    },
  )

  it('refuses a token signed with another key', () => {
    fc.assert(
      fc.property(anyGrant, keyBytes, keyBytes, (grant, mintKey, verifyKey) => {
        fc.pre(!mintKey.equals(verifyKey))
        const token = mint(grant, { key: mintKey })
        expect(verifierAt(T0, { key: verifyKey }).verify(token, grant)).toBe(false)
        expect(verifierAt(T0, { key: mintKey }).verify(token, grant)).toBe(true)
      }),
      RUNS,
    )
  })

  it('refuses new tokens while the ledger is full and recovers once nonces expire', () => {
    let now = T0
    const verifier = new ConsentTokenVerifier({ key: KEY, now: () => now, maxUsedNonces: 4 })
    const grant = SAMPLE_APPROVAL
    const early = Array.from({ length: 4 }, () => mint(grant, { now: T0 }))
    for (const token of early) expect(verifier.verify(token, grant)).toBe(true)

    now = T0 + CONSENT_LIFETIME_MS - 1
    const late = mint(grant, { now })
    expect(verifier.verify(late, grant)).toBe(false)
    expect(verifier.ledgerSize).toBe(4)

    now = T0 + CONSENT_LIFETIME_MS
    expect(verifier.verify(late, grant)).toBe(true)
    expect(verifier.ledgerSize).toBe(1)
  })

  it('never evicts an unexpired nonce to make room', () => {
    let now = T0
    const verifier = new ConsentTokenVerifier({ key: KEY, now: () => now, maxUsedNonces: 4 })
    const grant = SAMPLE_ROOM
    const shortLived = [mint(grant, { lifetimeMs: 1_000 }), mint(grant, { lifetimeMs: 1_000 })]
    const longLived = [mint(grant, { lifetimeMs: 40_000 }), mint(grant, { lifetimeMs: 40_000 })]
    for (const token of [longLived[0]!, shortLived[0]!, longLived[1]!, shortLived[1]!]) {
      expect(verifier.verify(token, grant)).toBe(true)
    }

    now = T0 + 1_000
    expect(verifier.verify(mint(grant, { now }), grant)).toBe(true)
    expect(verifier.ledgerSize).toBe(3)
    for (const token of longLived) expect(verifier.verify(token, grant)).toBe(false)
    expect(verifier.verify(mint(grant, { now }), grant)).toBe(true)
    expect(verifier.verify(mint(grant, { now }), grant)).toBe(false)
    expect(verifier.ledgerSize).toBe(4)
  })

  it('evicts exactly the expired nonces when full, whatever order they arrived in', () => {
    const lifetimes = fc.array(fc.integer({ min: 1, max: MAX_FUTURE_SKEW_MS }), {
      minLength: 1,
      maxLength: 24,
    })
    fc.assert(
      fc.property(
        anyGrant,
        lifetimes,
        fc.integer({ min: 1, max: MAX_FUTURE_SKEW_MS }),
        (grant, lives, elapsed) => {
          let now = T0
          const verifier = new ConsentTokenVerifier({
            key: KEY,
            now: () => now,
            maxUsedNonces: lives.length,
          })
          const burned = lives.map((lifetimeMs) => mint(grant, { lifetimeMs }))
          for (const token of burned) expect(verifier.verify(token, grant)).toBe(true)

          now = T0 + elapsed
          const stillLive = lives.filter((lifetimeMs) => T0 + lifetimeMs > now).length
          const accepted = verifier.verify(mint(grant, { now }), grant)
          expect(accepted).toBe(stillLive < lives.length)
          expect(verifier.ledgerSize).toBe(accepted ? stillLive + 1 : lives.length)
          for (const token of burned) expect(verifier.verify(token, grant)).toBe(false)
        },
      ),
      RUNS,
    )
  })

  it('holds the documented default capacity', () => {
    let now = T0
    const verifier = new ConsentTokenVerifier({ key: KEY, now: () => now })
    const grant = SAMPLE_APPROVAL
    let accepted = 0
    for (let index = 0; index < MAX_USED_NONCES; index += 1) {
      if (verifier.verify(mint(grant), grant)) accepted += 1
    }
    expect(accepted).toBe(MAX_USED_NONCES)
    expect(verifier.verify(mint(grant), grant)).toBe(false)
    now = T0 + CONSENT_LIFETIME_MS
    expect(verifier.verify(mint(grant, { now }), grant)).toBe(true)
    expect(verifier.ledgerSize).toBe(1)
  })

  it.each<[string, ConsentTokenVerifierOptions]>([
    ['a 16-byte key', { key: Buffer.alloc(16), now: () => T0 }],
    ['a clock that is not a function', { key: KEY, now: T0 as unknown as () => number }],
    ['a zero capacity', { key: KEY, now: () => T0, maxUsedNonces: 0 }],
    ['a fractional capacity', { key: KEY, now: () => T0, maxUsedNonces: 1.5 }],
  ])('refuses to start with %s', (_name, options) => {
    expect(() => new ConsentTokenVerifier({ key: KEY, now: () => T0 })).not.toThrow()
    expect(() => new ConsentTokenVerifier(options)).toThrow()
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
        grant: SAMPLE_APPROVAL,
        now: T0,
        randomBytes: () => Buffer.alloc(8),
      }),
    ).toThrow('randomBytes must return exactly 16 bytes')
    expect(() => mint(SAMPLE_APPROVAL, { key: Buffer.alloc(16) })).toThrow(
      'consent key must be a 32-byte Buffer',
    )
    expect(
      () => new ConsentTokenVerifier({ key: KEY, now: T0 as unknown as () => number }),
    ).toThrow('now must be a clock function')
    expect(() => new ConsentTokenVerifier({ key: KEY, now: () => T0, maxUsedNonces: 0 })).toThrow(
      'maxUsedNonces must be a positive integer',
    )
  })

  it('names why a grant cannot be bound, and never verifies one', () => {
    const token = mint(SAMPLE_APPROVAL)
    const cases: Array<[unknown, string]> = [
      [null, 'grant must be an object'],
      ['approval', 'grant must be an object'],
      [
        { kind: 'bogus', subject: SAMPLE_APPROVAL.subject },
        'grant.kind must be "approval" or "room-permission"',
      ],
      [
        { kind: 'approval', subject: { approvalId: 'appr-7' } },
        'grant.subject is not a valid approval subject',
      ],
    ]
    for (const [grant, reason] of cases) {
      const bad = grant as ConsentGrant
      expect(() => mint(bad)).toThrow(reason)
      expect(() => consentSigningInput(bad, T0, 'n'.repeat(22))).toThrow(reason)
      expect(verifierAt(T0).verify(token, bad)).toBe(false)
    }
  })

  it('refuses a grant it cannot bind even when the token was signed over the empty binding', () => {
    // What signing an unbindable grant would produce if the verifier went on
    // with it: the tag, two empty fields, the expiry and the nonce.
    const nonce = Buffer.alloc(16, 3).toString('base64url')
    const expiresAtMs = T0 + CONSENT_LIFETIME_MS
    const signature = createHmac('sha256', KEY)
      .update(['assent-consent-token/v1', '', '', String(expiresAtMs), nonce].join('\n'))
      .digest('base64url')
    const token = `v1.${expiresAtMs}.${nonce}.${signature}`
    expect(parseConsentToken(token)).not.toBeNull()
    const unbindable = { kind: 'bogus', subject: {} } as unknown as ConsentGrant
    expect(verifierAt(T0).verify(token, unbindable)).toBe(false)
  })

  it('parses only a string, never an object that stringifies to a token', () => {
    const token = mint(SAMPLE_APPROVAL)
    const impostor = { toString: () => token } as unknown as string
    expect(parseConsentToken(impostor)).toBeNull()
    expect(verifierAt(T0).verify(impostor, SAMPLE_APPROVAL)).toBe(false)
    expectGenuine(token, SAMPLE_APPROVAL)
  })

  it('forgets expired nonces only when it needs the room', () => {
    let now = T0
    const verifier = new ConsentTokenVerifier({ key: KEY, now: () => now, maxUsedNonces: 3 })
    expect(verifier.verify(mint(SAMPLE_APPROVAL), SAMPLE_APPROVAL)).toBe(true)
    now = T0 + CONSENT_LIFETIME_MS + 1
    expect(verifier.verify(mint(SAMPLE_APPROVAL, { now }), SAMPLE_APPROVAL)).toBe(true)
    // Not full yet: the expired nonce is still remembered.
    expect(verifier.ledgerSize).toBe(2)
    expect(verifier.verify(mint(SAMPLE_APPROVAL, { now }), SAMPLE_APPROVAL)).toBe(true)
    expect(verifier.ledgerSize).toBe(3)
    // Full: the one expired nonce makes room, nothing unexpired is dropped.
    expect(verifier.verify(mint(SAMPLE_APPROVAL, { now }), SAMPLE_APPROVAL)).toBe(true)
    expect(verifier.ledgerSize).toBe(3)
  })
})
