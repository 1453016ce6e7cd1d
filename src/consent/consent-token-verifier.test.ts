import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { type ConsentBinding, type RoomPermissionConsentSubject } from '../contracts/consent.ts'
import { CONSENT_LIFETIME_MS, MAX_FUTURE_SKEW_MS, parseConsentToken } from './consent-token.ts'
import {
  RUNS,
  T0,
  B64URL,
  NONCE_LAST_CHARS,
  SIG_LAST_CHARS,
  text,
  nonceBytes,
  APPROVAL_FIELDS,
  ROOM_FIELDS,
  ROOM_FLAGS,
  WEBHOOK_FIELDS,
  SAMPLE_APPROVAL,
  approvalBinding,
  roomBinding,
  webhookBinding,
  anyBinding,
  mint,
  verifierAt,
  expectGenuine,
  segments,
  replaceAt,
  withSubjectField,
  schemaFor,
} from './test-support/consent-token-fixtures.ts'

describe('ConsentTokenVerifier: binding, kind and encoding', () => {
  it('verifies a token exactly once for its own binding and refuses the replay', () => {
    fc.assert(
      fc.property(anyBinding, nonceBytes, (binding, bytes) => {
        const token = mint(binding, { nonce: bytes })
        const verifier = verifierAt(T0)
        expect(verifier.verify(token, binding)).toBe(true)
        expect(verifier.verify(token, binding)).toBe(false)
        expect(verifier.ledgerSize).toBe(1)
      }),
      RUNS,
    )
  })

  describe.each([
    ['approval', approvalBinding, APPROVAL_FIELDS],
    ['room-permission', roomBinding, ROOM_FIELDS],
    ['approver-webhook', webhookBinding, WEBHOOK_FIELDS],
  ] as const)('for %s bindings', (_kind, bindings, fields) => {
    it.each(Object.keys(fields))('refuses the token once subject field %s changes', (field) => {
      const values = (fields as Record<string, fc.Arbitrary<unknown>>)[field]!
      const cases = bindings.chain((binding) =>
        values
          .filter((value) => value !== (binding.subject as Record<string, unknown>)[field])
          .map((value) => ({ binding, changed: withSubjectField(binding, field, value) })),
      )
      fc.assert(
        fc.property(cases, nonceBytes, ({ binding, changed }, bytes) => {
          const token = mint(binding, { nonce: bytes })
          expect(schemaFor(changed.kind).safeParse(changed.subject).success).toBe(true)
          expect(verifierAt(T0).verify(token, changed)).toBe(false)
          expectGenuine(token, binding)
        }),
        RUNS,
      )
    })
  })

  it.each(ROOM_FLAGS)(
    'refuses a room-permission token once its %s flag is added or dropped',
    (flag) => {
      fc.assert(
        fc.property(roomBinding, nonceBytes, (binding, bytes) => {
          const { [flag]: had, ...rest } = binding.subject as RoomPermissionConsentSubject
          const changed = {
            kind: 'room-permission',
            subject: had === true ? rest : { ...rest, [flag]: true },
          } as ConsentBinding
          const token = mint(binding, { nonce: bytes })
          expect(verifierAt(T0).verify(token, changed)).toBe(false)
          expectGenuine(token, binding)
        }),
        RUNS,
      )
    },
  )

  it('refuses a token minted for one kind when presented as another kind', () => {
    const kinds = [approvalBinding, roomBinding, webhookBinding]
    const pairs = kinds.flatMap((minted, i) =>
      kinds.filter((_, j) => j !== i).map((other) => fc.tuple(minted, other)),
    )
    fc.assert(
      fc.property(fc.oneof(...pairs), nonceBytes, ([minted, other], bytes) => {
        const token = mint(minted, { nonce: bytes })
        const relabelled = { kind: other.kind, subject: minted.subject } as ConsentBinding
        expect(verifierAt(T0).verify(token, relabelled)).toBe(false)
        expect(verifierAt(T0).verify(token, other)).toBe(false)
        expectGenuine(token, minted)
      }),
      RUNS,
    )
  })

  it('never lets a token for room A act on room B', () => {
    fc.assert(
      fc.property(roomBinding, text, nonceBytes, (roomA, roomIdB, bytes) => {
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
      fc.property(approvalBinding, nonceBytes, (binding, bytes) => {
        const allowOnce = withSubjectField(binding, 'decision', 'allow-once')
        const token = mint(allowOnce, { nonce: bytes })
        expect(verifierAt(T0).verify(token, withSubjectField(binding, 'decision', 'deny'))).toBe(
          false,
        )
        expect(
          verifierAt(T0).verify(token, withSubjectField(binding, 'decision', 'allow-always')),
        ).toBe(false)
        expectGenuine(token, allowOnce)
      }),
      RUNS,
    )
  })

  it('refuses a token whose expiry digits were changed', () => {
    fc.assert(
      fc.property(
        anyBinding,
        nonceBytes,
        fc.integer({ min: 1, max: MAX_FUTURE_SKEW_MS }),
        (binding, bytes, forgedLifetime) => {
          const token = mint(binding, { nonce: bytes })
          const { nonce, sig } = segments(token)
          fc.pre(forgedLifetime !== CONSENT_LIFETIME_MS)
          const forged = `v1.${T0 + forgedLifetime}.${nonce}.${sig}`
          expect(parseConsentToken(forged)).not.toBeNull()
          expect(verifierAt(T0).verify(forged, binding)).toBe(false)
          expectGenuine(token, binding)
        },
      ),
      RUNS,
    )
  })

  it('refuses a token with any nonce character changed', () => {
    fc.assert(
      fc.property(
        anyBinding,
        nonceBytes,
        fc.nat(21),
        fc.nat(63),
        (binding, bytes, position, pick) => {
          const token = mint(binding, { nonce: bytes })
          const { expiry, nonce, sig } = segments(token)
          const alphabet = position === 21 ? NONCE_LAST_CHARS : [...B64URL]
          const options = alphabet.filter((char) => char !== nonce[position])
          const forged = `v1.${expiry}.${replaceAt(nonce, position, options[pick % options.length]!)}.${sig}`
          expect(parseConsentToken(forged)).not.toBeNull()
          expect(verifierAt(T0).verify(forged, binding)).toBe(false)
          expectGenuine(token, binding)
        },
      ),
      RUNS,
    )
  })

  it('refuses a token with any signature character changed', () => {
    fc.assert(
      fc.property(
        anyBinding,
        nonceBytes,
        fc.nat(42),
        fc.nat(63),
        (binding, bytes, position, pick) => {
          const token = mint(binding, { nonce: bytes })
          const { expiry, nonce, sig } = segments(token)
          const alphabet = position === 42 ? SIG_LAST_CHARS : [...B64URL]
          const options = alphabet.filter((char) => char !== sig[position])
          const forged = `v1.${expiry}.${nonce}.${replaceAt(sig, position, options[pick % options.length]!)}`
          expect(parseConsentToken(forged)).not.toBeNull()
          expect(verifierAt(T0).verify(forged, binding)).toBe(false)
          expectGenuine(token, binding)
        },
      ),
      RUNS,
    )
  })

  it('refuses every non-canonical spelling of a valid token without burning its nonce', () => {
    fc.assert(
      fc.property(
        anyBinding,
        nonceBytes,
        fc.integer({ min: 1, max: 15 }),
        fc.integer({ min: 1, max: 3 }),
        (binding, bytes, nonceBits, sigBits) => {
          const token = mint(binding, { nonce: bytes })
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
            expect(verifier.verify(variant, binding), variant).toBe(false)
          }
          expect(verifier.ledgerSize).toBe(0)
          expect(verifier.verify(token, binding)).toBe(true)
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
      fc.property(anyBinding, anyBinding, nonceBytes, (binding, other, bytes) => {
        fc.pre(JSON.stringify(binding) !== JSON.stringify(other))
        const token = mint(binding, { nonce: bytes })
        const verifier = verifierAt(T0)
        expect(verifier.verify(token, other)).toBe(false)
        expect(verifier.verify(token, binding)).toBe(false)
        expect(verifier.ledgerSize).toBe(1)
        expectGenuine(token, binding)
      }),
      RUNS,
    )
  })

  it('burns the nonce when the presented subject fails its schema', () => {
    fc.assert(
      fc.property(anyBinding, nonceBytes, (binding, bytes) => {
        const token = mint(binding, { nonce: bytes })
        const verifier = verifierAt(T0)
        const invalid = {
          kind: binding.kind,
          subject: { ...binding.subject, instanceId: '' },
        } as ConsentBinding
        expect(verifier.verify(token, invalid)).toBe(false)
        expect(verifier.verify(token, binding)).toBe(false)
        expectGenuine(token, binding)
      }),
      RUNS,
    )
  })
})
