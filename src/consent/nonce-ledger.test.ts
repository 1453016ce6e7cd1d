import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  EVICTIONS_PER_CALL,
  MAX_LEDGER_CAPACITY,
  NonceLedger,
  readNonceKey,
} from './nonce-ledger.ts'
import { RUNS, T0, B64URL } from './test-support/consent-token-fixtures.ts'

describe('NonceLedger', () => {
  const key = (high: number) => ({ high, middle: 2 ** 47 + high, low: 2 ** 49 + high })
  /** Key `id` of a ledger of capacity 4 (eight slots), whose home slot is `home`. */
  const at = (home: number, id: number) => ({ high: 8 * id + home, middle: id, low: id })

  it('refuses a nonce it holds, and any nonce while full, changing nothing', () => {
    const ledger = new NonceLedger(2)
    expect(ledger.burn(key(1), T0 + 1)).toBe(true)
    expect(ledger.burn(key(1), T0 + 2)).toBe(false)
    expect(ledger.size).toBe(1)
    expect(ledger.burn(key(2), T0 + 2)).toBe(true)
    expect(ledger.full).toBe(true)
    expect(ledger.burn(key(3), T0 + 3)).toBe(false)
    expect([ledger.has(key(1)), ledger.has(key(2)), ledger.has(key(3))]).toEqual([
      true,
      true,
      false,
    ])
    ledger.evictExpired(T0 + 1)
    expect([ledger.has(key(1)), ledger.has(key(2)), ledger.full]).toEqual([false, true, false])
  })

  it('holds exactly the nonces a model holds, with keys that collide in the hash set', () => {
    // Three home slots for eighteen keys (the first and the last two of the
    // table, whatever its size): long probe runs, deletions in the middle of
    // them, runs that wrap around the end, and keys that differ in only one
    // of their three words.
    const HOMES = [0, 2 ** 30 - 1, 2 ** 30 - 2]
    const collidingKey = (id: number) => ({
      high: HOMES[id % 3]!,
      middle: Math.floor(id / 3) % 2,
      low: Math.floor(id / 6),
    })
    type Op = { op: 'burn'; id: number; expiry: number } | { op: 'evict'; now: number }
    const opArb: fc.Arbitrary<Op> = fc.oneof(
      fc.record({
        op: fc.constant('burn' as const),
        id: fc.nat(17),
        expiry: fc.integer({ min: 1, max: 50 }),
      }),
      fc.record({ op: fc.constant('evict' as const), now: fc.integer({ min: 0, max: 50 }) }),
    )
    let evictions = 0
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 12 }),
        fc.array(opArb, { maxLength: 80 }),
        (capacity, ops) => {
          const ledger = new NonceLedger(capacity)
          const model = new Map<number, number>()
          ops.forEach((step, index) => {
            if (step.op === 'burn') {
              // Distinct expiries, so which entry is earliest is never a tie.
              const expiry = step.expiry + index / 1_000
              const takes = !model.has(step.id) && model.size < capacity
              expect(ledger.burn(collidingKey(step.id), expiry)).toBe(takes)
              if (takes) model.set(step.id, expiry)
            } else {
              ledger.evictExpired(step.now)
              const expired = [...model].filter(([, expiry]) => expiry <= step.now)
              expired.sort(([, a], [, b]) => a - b)
              for (const [id] of expired.slice(0, EVICTIONS_PER_CALL)) model.delete(id)
              evictions += Math.min(expired.length, EVICTIONS_PER_CALL)
            }
            expect(ledger.size).toBe(model.size)
            for (let id = 0; id < 18; id += 1) {
              expect(ledger.has(collidingKey(id)), `key ${id}`).toBe(model.has(id))
            }
          })
        },
      ),
      RUNS,
    )
    expect(evictions).toBeGreaterThan(RUNS.numRuns / 2)
  })

  it('keeps every remaining nonce findable after deletions in probe runs that wrap around the slot table', () => {
    // Capacity 4: eight slots (mask 7). A key's home slot is its high word's
    // low bits, so these are chosen: homes 6, 7 and 0, probe runs that pass
    // the table's end and continue at slot 0.
    const ledger = new NonceLedger(4)
    const a = at(6, 1) // slot 6
    const b = at(6, 2) // slot 7
    const c = at(6, 3) // slot 0: wrapped, home 6
    const d = at(7, 4) // slot 1: wrapped, home 7
    // Expiries give the deletion order: a, then b, then c.
    expect([ledger.burn(a, 1), ledger.burn(b, 2), ledger.burn(c, 3), ledger.burn(d, 4)]).toEqual([
      true,
      true,
      true,
      true,
    ])
    const held = () => [a, b, c, d].map((key) => ledger.has(key))
    // Each is refused a second time, c too, which sits in slot 0.
    expect([a, b, c, d].map((key) => ledger.burn(key, 9))).toEqual([false, false, false, false])
    // Deleting a (hole 6): b moves back to 6, then c (home 6, at slot 0, past
    // the end) to 7, then d (home 7, at slot 1) to 0.
    ledger.evictExpired(1)
    expect(held()).toEqual([false, true, true, true])
    // Deleting b (hole 6): c and d move back across the end again.
    ledger.evictExpired(2)
    expect(held()).toEqual([false, false, true, true])
    ledger.evictExpired(3)
    expect(held()).toEqual([false, false, false, true])
    // A key whose home is the slot a deletion emptied is found and burns once.
    expect([ledger.burn(a, 10), ledger.burn(a, 11), ledger.has(a), ledger.size]).toEqual([
      true,
      false,
      true,
      2,
    ])
  })

  it('keeps a key that wrapped past the end in place when its home is at or after the hole', () => {
    // Slots 6, 7, 0, 1 hold homes 6, 6, 0, 0: deleting slot 7's key leaves
    // the keys at 0 and 1 in their own run (home 0 is not before the hole).
    const ledger = new NonceLedger(4)
    const keys = [at(6, 1), at(6, 2), at(0, 3), at(0, 4)]
    keys.forEach((key, index) => expect(ledger.burn(key, 10 + index)).toBe(true))
    ledger.evictExpired(10)
    expect(keys.map((key) => ledger.has(key))).toEqual([false, true, true, true])
    ledger.evictExpired(11)
    expect(keys.map((key) => ledger.has(key))).toEqual([false, false, true, true])
  })

  it('keeps a key in place when its home lies between the hole and it, across the table’s end', () => {
    // Slots 6, 7, 0, 1 hold homes 6, 7, 7, 0.
    const ledger = new NonceLedger(4)
    const keys = [at(6, 1), at(7, 2), at(7, 3), at(0, 4)]
    keys.forEach((key, index) => expect(ledger.burn(key, 10 + index)).toBe(true))
    const held = () => keys.map((key) => ledger.has(key))
    // Hole 6: every later key's home is after it, so none moves.
    ledger.evictExpired(10)
    expect(held()).toEqual([false, true, true, true])
    // Hole 7: the key at 0 (home 7) moves back to 7, the key at 1 (home 0) to 0.
    ledger.evictExpired(11)
    expect(held()).toEqual([false, false, true, true])
    // Hole 7 again: the key at 0 is at its home and stays.
    ledger.evictExpired(12)
    expect(held()).toEqual([false, false, false, true])
    expect(ledger.burn(keys[3]!, 20)).toBe(false)
  })

  it('tells apart keys that share a home slot and differ in one word only', () => {
    // All four keys have home 5 (capacity 4: eight slots).
    const ledger = new NonceLedger(4)
    const first = { high: 5, middle: 1, low: 1 }
    const others = [
      { high: 13, middle: 1, low: 1 },
      { high: 5, middle: 2, low: 1 },
      { high: 5, middle: 1, low: 2 },
    ]
    expect(ledger.burn(first, 10)).toBe(true)
    expect(others.map((key) => ledger.has(key))).toEqual([false, false, false])
    expect(others.map((key, index) => ledger.burn(key, 11 + index))).toEqual([true, true, true])
    expect([first, ...others].map((key) => ledger.burn(key, 20))).toEqual([
      false,
      false,
      false,
      false,
    ])
    ledger.evictExpired(10)
    expect([first, ...others].map((key) => ledger.has(key))).toEqual([false, true, true, true])
  })

  it('reads a nonce key as the 128 bits of its bytes, 30 + 48 + 50, wherever it starts', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 16, maxLength: 16 }), fc.nat(5), (bytes, offset) => {
        const nonce = Buffer.from(bytes)
        const text = `${'.'.repeat(offset)}${nonce.toString('base64url')}.x`
        const bits = BigInt(`0x${nonce.toString('hex')}`)
        const word = (shift: bigint, width: bigint) =>
          Number((bits >> shift) & ((1n << width) - 1n))
        expect(readNonceKey(text, offset)).toEqual({
          high: word(98n, 30n),
          middle: word(50n, 48n),
          low: word(0n, 50n),
        })
      }),
      RUNS,
    )
  })

  it('reads the key of a fixed nonce as its bits, 30 + 48 + 50', () => {
    // 00 01 02 … 0f and fe dc ba 98 76 54 32 10 f0 e1 d2 c3 b4 a5 96 87.
    expect(readNonceKey('AAECAwQFBgcICQoLDA0ODw', 0)).toEqual({
      high: 16_512,
      middle: 212_211_138_150_914,
      low: 292_517_539_810_831,
    })
    expect(readNonceKey('v1.9._ty6mHZUMhDw4dLDtKWWhw.', 5)).toEqual({
      high: 1_068_969_638,
      middle: 32_525_997_325_368,
      low: 513_212_967_917_191,
    })
  })

  it('reads no key from a nonce that is not canonical base64url of 16 bytes', () => {
    const nonce = Buffer.alloc(16, 0xa5).toString('base64url')
    expect(readNonceKey(nonce, 0)).not.toBeNull()
    const spare = [...B64URL].filter((_, value) => value % 16 !== 0)
    for (const last of spare) expect(readNonceKey(nonce.slice(0, 21) + last, 0), last).toBeNull()
    for (const char of ['.', '=', '+', '/', ' ', '\u0080', '\u00ff', 'ｗ']) {
      for (const at of [0, 4, 5, 12, 13, 20, 21]) {
        const changed = nonce.slice(0, at) + char + nonce.slice(at + 1)
        expect(readNonceKey(changed, 0), `${char} at ${at}`).toBeNull()
      }
    }
  })

  it('takes the largest capacity, and no more', () => {
    expect(new NonceLedger(MAX_LEDGER_CAPACITY).full).toBe(false)
  })

  it.each([0, -1, 1.5, Number.NaN, MAX_LEDGER_CAPACITY + 1])(
    'refuses a capacity of %s',
    (capacity) => {
      expect(() => new NonceLedger(1)).not.toThrow()
      expect(() => new NonceLedger(capacity)).toThrow(
        `capacity must be an integer in 1..${MAX_LEDGER_CAPACITY}`,
      )
    },
  )
})
