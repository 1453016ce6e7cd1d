import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { ConsentBinding } from '../contracts/consent.ts'
import type { ConsentTokenVerifierOptions } from './consent-token.ts'
import { EVICTIONS_PER_CALL, MAX_LEDGER_CAPACITY } from './nonce-ledger.ts'
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
  anyBinding,
  mint,
  verifierAt,
  expectGenuine,
} from './test-support/consent-token-fixtures.ts'

/** `binding` behind a getter that counts how often the verifier reads its
 *  kind: each signature it computes over the binding reads it once. */
function countingReads(binding: ConsentBinding) {
  let reads = 0
  const counted = { subject: binding.subject } as ConsentBinding
  Object.defineProperty(counted, 'kind', {
    enumerable: true,
    get: () => {
      reads += 1
      return binding.kind
    },
  })
  return { binding: counted, reads: () => reads }
}

describe('ConsentTokenVerifier: expiry and the nonce ledger', () => {
  it('refuses a token at and after its expiry', () => {
    fc.assert(
      fc.property(
        anyBinding,
        fc.integer({ min: 1, max: MAX_FUTURE_SKEW_MS }),
        fc.nat(10 ** 9),
        (binding, lifetimeMs, lateBy) => {
          const token = mint(binding, { lifetimeMs })
          const expiresAtMs = T0 + lifetimeMs
          expect(verifierAt(expiresAtMs).verify(token, binding)).toBe(false)
          expect(verifierAt(expiresAtMs + lateBy).verify(token, binding)).toBe(false)
          expectGenuine(token, binding, expiresAtMs - 1)
        },
      ),
      RUNS,
    )
  })

  it('refuses a token expiring more than 60 s ahead of the verifier clock', () => {
    fc.assert(
      fc.property(
        anyBinding,
        fc.integer({ min: 1, max: MAX_FUTURE_SKEW_MS }),
        fc.integer({ min: 1, max: 10 ** 9 }),
        (binding, lifetimeMs, beyond) => {
          // The minter's clock runs ahead of the verifier's by more than the skew allows.
          const mintedAt = T0 + MAX_FUTURE_SKEW_MS - lifetimeMs + beyond
          const token = mint(binding, { now: mintedAt, lifetimeMs })
          expect(verifierAt(T0).verify(token, binding)).toBe(false)
          expectGenuine(token, binding, mintedAt)
        },
      ),
      RUNS,
    )
  })

  it('accepts a token expiring exactly 60 s ahead', () => {
    const binding = SAMPLE_ROOM
    const token = mint(binding, { lifetimeMs: MAX_FUTURE_SKEW_MS })
    expect(verifierAt(T0).verify(token, binding)).toBe(true)
    expect(
      verifierAt(T0 - 1).verify(mint(binding, { lifetimeMs: MAX_FUTURE_SKEW_MS }), binding),
    ).toBe(false)
  })

  it.each([Number.NaN, Number.POSITIVE_INFINITY])(
    'refuses every token while its clock reads %s',
    (reading) => {
      const binding = SAMPLE_APPROVAL
      const token = mint(binding)
      expect(verifierAt(reading).verify(token, binding)).toBe(false)
      expectGenuine(token, binding)
    },
  )

  it('refuses a token signed with another key', () => {
    fc.assert(
      fc.property(anyBinding, keyBytes, keyBytes, (binding, mintKey, verifyKey) => {
        fc.pre(!mintKey.equals(verifyKey))
        const token = mint(binding, { key: mintKey })
        expect(verifierAt(T0, { key: verifyKey }).verify(token, binding)).toBe(false)
        expect(verifierAt(T0, { key: mintKey }).verify(token, binding)).toBe(true)
      }),
      RUNS,
    )
  })

  it('refuses new tokens while the ledger is full and recovers once nonces expire', () => {
    let now = T0
    const verifier = new ConsentTokenVerifier({ key: KEY, now: () => now, maxUsedNonces: 4 })
    const binding = SAMPLE_APPROVAL
    const early = Array.from({ length: 4 }, () => mint(binding, { now: T0 }))
    for (const token of early) expect(verifier.verify(token, binding)).toBe(true)

    now = T0 + CONSENT_LIFETIME_MS - 1
    const late = mint(binding, { now })
    expect(verifier.verify(late, binding)).toBe(false)
    expect(verifier.ledgerSize).toBe(4)

    now = T0 + CONSENT_LIFETIME_MS
    expect(verifier.verify(late, binding)).toBe(true)
    expect(verifier.ledgerSize).toBe(1)
  })

  it('never evicts an unexpired nonce to make room', () => {
    let now = T0
    const verifier = new ConsentTokenVerifier({ key: KEY, now: () => now, maxUsedNonces: 4 })
    const binding = SAMPLE_ROOM
    const shortLived = [mint(binding, { lifetimeMs: 1_000 }), mint(binding, { lifetimeMs: 1_000 })]
    const longLived = [mint(binding, { lifetimeMs: 40_000 }), mint(binding, { lifetimeMs: 40_000 })]
    for (const token of [longLived[0]!, shortLived[0]!, longLived[1]!, shortLived[1]!]) {
      expect(verifier.verify(token, binding)).toBe(true)
    }

    now = T0 + 1_000
    expect(verifier.verify(mint(binding, { now }), binding)).toBe(true)
    expect(verifier.ledgerSize).toBe(3)
    for (const token of longLived) expect(verifier.verify(token, binding)).toBe(false)
    expect(verifier.verify(mint(binding, { now }), binding)).toBe(true)
    expect(verifier.verify(mint(binding, { now }), binding)).toBe(false)
    expect(verifier.ledgerSize).toBe(4)
  })

  it('makes room from the expired nonces when full, whatever order they arrived in', () => {
    const lifetimes = fc.array(fc.integer({ min: 1, max: MAX_FUTURE_SKEW_MS }), {
      minLength: 1,
      maxLength: 24,
    })
    fc.assert(
      fc.property(
        anyBinding,
        lifetimes,
        fc.integer({ min: 1, max: MAX_FUTURE_SKEW_MS }),
        (binding, lives, elapsed) => {
          let now = T0
          const verifier = new ConsentTokenVerifier({
            key: KEY,
            now: () => now,
            maxUsedNonces: lives.length,
          })
          const burned = lives.map((lifetimeMs) => mint(binding, { lifetimeMs }))
          for (const token of burned) expect(verifier.verify(token, binding)).toBe(true)

          now = T0 + elapsed
          const stillLive = lives.filter((lifetimeMs) => T0 + lifetimeMs > now).length
          const expired = lives.length - stillLive
          const accepted = verifier.verify(mint(binding, { now }), binding)
          expect(accepted).toBe(stillLive < lives.length)
          const forgotten = Math.min(expired, EVICTIONS_PER_CALL)
          expect(verifier.ledgerSize).toBe(lives.length - forgotten + (accepted ? 1 : 0))
          for (const token of burned) expect(verifier.verify(token, binding)).toBe(false)
        },
      ),
      RUNS,
    )
  })

  it('forgets expired nonces a few per call, earliest first, on every call', () => {
    let now = T0
    const verifier = new ConsentTokenVerifier({ key: KEY, now: () => now, maxUsedNonces: 100 })
    const binding = SAMPLE_APPROVAL
    const expiring = 2 * EVICTIONS_PER_CALL + 2
    for (let index = 0; index < expiring; index += 1) {
      expect(verifier.verify(mint(binding, { lifetimeMs: 1_000 + index }), binding)).toBe(true)
    }
    const late = mint(binding, { lifetimeMs: MAX_FUTURE_SKEW_MS })
    expect(verifier.verify(late, binding)).toBe(true)
    now = T0 + 1_000 + expiring
    // A refused token (a replay) still pays for a few evictions, never more.
    expect(verifier.verify(late, binding)).toBe(false)
    expect(verifier.ledgerSize).toBe(expiring + 1 - EVICTIONS_PER_CALL)
    expect(verifier.verify(mint(binding, { now }), binding)).toBe(true)
    expect(verifier.ledgerSize).toBe(expiring + 2 - 2 * EVICTIONS_PER_CALL)
    // Two were left to expire; `late` and the two accepted since stay.
    expect(verifier.verify(mint(binding, { now }), binding)).toBe(true)
    expect(verifier.ledgerSize).toBe(3)
    expect(verifier.verify(late, binding)).toBe(false)
    expect(verifier.ledgerSize).toBe(3)
  })

  it('refuses exactly while full of unexpired nonces, and never forgets one (model)', () => {
    type Op =
      | { op: 'advance'; ms: number }
      | { op: 'fresh'; lifetimeMs: number }
      | { op: 'again'; pick: number; wrongBinding: boolean }
    const opArb: fc.Arbitrary<Op> = fc.oneof(
      fc.record({ op: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 20_000 }) }),
      fc.record({
        op: fc.constant('fresh' as const),
        lifetimeMs: fc.integer({ min: 1, max: MAX_FUTURE_SKEW_MS }),
      }),
      fc.record({ op: fc.constant('again' as const), pick: fc.nat(), wrongBinding: fc.boolean() }),
    )
    let presentations = 0
    let accepted = 0
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 6 }),
        fc.array(opArb, { minLength: 1, maxLength: 60 }),
        (capacity, ops) => {
          let now = T0
          const verifier = new ConsentTokenVerifier({
            key: KEY,
            now: () => now,
            maxUsedNonces: capacity,
          })
          const tokens: Array<{ token: string; expiresAtMs: number; burned: boolean }> = []
          const liveBurned = () =>
            tokens.filter((entry) => entry.burned && entry.expiresAtMs > now).length
          for (const step of ops) {
            if (step.op === 'advance') {
              now += step.ms
              continue
            }
            let entry =
              step.op === 'again' ? tokens[step.pick % Math.max(tokens.length, 1)] : undefined
            if (entry === undefined) {
              const lifetimeMs = step.op === 'fresh' ? step.lifetimeMs : 1_000
              entry = {
                token: mint(SAMPLE_APPROVAL, { now, lifetimeMs }),
                expiresAtMs: now + lifetimeMs,
                burned: false,
              }
              tokens.push(entry)
            }
            const wrong = step.op === 'again' && step.wrongBinding
            // The model: a token takes a slot when it is unexpired, not yet
            // burned, and fewer than `capacity` burned nonces are unexpired;
            // it is accepted when it takes one with its own binding.
            const takesSlot = !entry.burned && entry.expiresAtMs > now && liveBurned() < capacity
            const ok = verifier.verify(entry.token, wrong ? SAMPLE_ROOM : SAMPLE_APPROVAL)
            expect(ok).toBe(takesSlot && !wrong)
            if (takesSlot) entry.burned = true
            expect(verifier.ledgerSize).toBeLessThanOrEqual(capacity)
            expect(verifier.ledgerSize).toBeGreaterThanOrEqual(liveBurned())
            presentations += 1
            if (ok) accepted += 1
          }
        },
      ),
      RUNS,
    )
    // Neither side of the model went untested.
    expect(accepted).toBeGreaterThan(RUNS.numRuns)
    expect(presentations - accepted).toBeGreaterThan(RUNS.numRuns)
  })

  it('accepts the twelfth token of a sequence where stopping eviction early would refuse it', () => {
    // Capacity 4; expiries and presentation times in seconds. The 12th finds
    // room only if the heap still yields its earliest expiry after the pops
    // and pushes before it.
    const expiries = [4, 3, 12, 5, 11, 9, 6, 14, 9, 12, 13, 16]
    const presented = [0, 2, 3, 4, 4, 4, 4, 5, 7, 8, 9, 11]
    const accepted = [true, true, true, true, true, true, false, true, false, false, true, true]
    let now = T0
    const verifier = new ConsentTokenVerifier({ key: KEY, now: () => now, maxUsedNonces: 4 })
    const outcomes = expiries.map((expiry, index) => {
      const at = presented[index]!
      now = T0 + at * 1_000
      const token = mint(SAMPLE_APPROVAL, { now, lifetimeMs: (expiry - at) * 1_000 })
      return verifier.verify(token, SAMPLE_APPROVAL)
    })
    expect(outcomes).toEqual(accepted)
  })

  it('holds the documented default capacity', () => {
    let now = T0
    const verifier = new ConsentTokenVerifier({ key: KEY, now: () => now })
    const binding = SAMPLE_APPROVAL
    let accepted = 0
    for (let index = 0; index < MAX_USED_NONCES; index += 1) {
      if (verifier.verify(mint(binding), binding)) accepted += 1
    }
    expect(accepted).toBe(MAX_USED_NONCES)
    expect(verifier.verify(mint(binding), binding)).toBe(false)
    now = T0 + CONSENT_LIFETIME_MS
    expect(verifier.verify(mint(binding, { now }), binding)).toBe(true)
    expect(verifier.ledgerSize).toBe(MAX_USED_NONCES - EVICTIONS_PER_CALL + 1)
  })

  it('refuses a replayed token without reading its binding or computing a signature', () => {
    const verifier = verifierAt(T0)
    const token = mint(SAMPLE_APPROVAL)
    const fresh = countingReads(SAMPLE_APPROVAL)
    expect(verifier.verify(token, fresh.binding)).toBe(true)
    expect(fresh.reads()).toBe(1)
    const replayed = countingReads(SAMPLE_APPROVAL)
    expect(verifier.verify(token, replayed.binding)).toBe(false)
    expect(replayed.reads()).toBe(0)
  })

  it('refuses every token while the ledger is full without reading its binding', () => {
    const verifier = verifierAt(T0, { maxUsedNonces: 1 })
    expect(verifier.verify(mint(SAMPLE_APPROVAL), SAMPLE_APPROVAL)).toBe(true)
    const next = countingReads(SAMPLE_APPROVAL)
    expect(verifier.verify(mint(SAMPLE_APPROVAL), next.binding)).toBe(false)
    expect(next.reads()).toBe(0)
    expect(verifier.ledgerSize).toBe(1)
  })

  it('starts with a ledger of exactly the largest capacity, and refuses one slot more', () => {
    const largest = new ConsentTokenVerifier({
      key: KEY,
      now: () => T0,
      maxUsedNonces: MAX_LEDGER_CAPACITY,
    })
    expect(largest.verify(mint(SAMPLE_ROOM), SAMPLE_ROOM)).toBe(true)
    expect(
      () =>
        new ConsentTokenVerifier({
          key: KEY,
          now: () => T0,
          maxUsedNonces: MAX_LEDGER_CAPACITY + 1,
        }),
    ).toThrow(RangeError)
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
