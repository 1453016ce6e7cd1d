import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { ConsentTokenVerifierOptions } from './consent-token.ts'
import {
  CONSENT_LIFETIME_MS,
  ConsentTokenVerifier,
  MAX_FUTURE_SKEW_MS,
  MAX_USED_NONCES,
} from './consent-token.ts'
import {
  RUNS,
  T0,
  KEY,
  keyBytes,
  SAMPLE_APPROVAL,
  SAMPLE_ROOM,
  anyGrant,
  mint,
  verifierAt,
  expectGenuine,
} from './test-support/consent-token-fixtures.ts'

describe('ConsentTokenVerifier: expiry and the nonce ledger', () => {
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
