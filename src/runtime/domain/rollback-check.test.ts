import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { checkRollback, type SealedCounter } from './rollback-check.ts'

const counterArb: fc.Arbitrary<SealedCounter> = fc.oneof(
  fc.constant<SealedCounter>({ state: 'absent' }),
  fc.constant<SealedCounter>({ state: 'tampered' }),
  fc.nat({ max: 1_000_000 }).map((counter): SealedCounter => ({ state: 'sealed', counter })),
)
const anchorArb = fc.option(fc.nat({ max: 1_000_000 }), { nil: null })

describe('checkRollback', () => {
  it('initialises only a data dir with neither a counter nor an anchor', () => {
    expect(checkRollback({ state: 'absent' }, null, true)).toEqual({ kind: 'initialise' })
  })

  it('takes a database as new as its anchor, or newer after a crash before the anchor was written', () => {
    expect(checkRollback({ state: 'sealed', counter: 7 }, 7, true)).toEqual({
      kind: 'current',
      counter: 7,
      anchor: 7,
    })
    expect(checkRollback({ state: 'sealed', counter: 8 }, 7, true)).toEqual({
      kind: 'current',
      counter: 8,
      anchor: 7,
    })
    expect(checkRollback({ state: 'absent' }, 0, true)).toEqual({
      kind: 'current',
      counter: 0,
      anchor: 0,
    })
  })

  it('calls a database one change older than its anchor rolled back, and counts past both', () => {
    expect(checkRollback({ state: 'sealed', counter: 6 }, 7, true)).toEqual({
      kind: 'rolled-back',
      reason: 'older_than_anchor',
      databaseCounter: 6,
      anchor: 7,
      next: 8,
    })
  })

  it('calls a database without a counter rolled back once the anchor has counted anything', () => {
    expect(checkRollback({ state: 'absent' }, 1, true)).toMatchObject({
      kind: 'rolled-back',
      reason: 'older_than_anchor',
      databaseCounter: 0,
    })
  })

  it('calls a counter without its anchor, and a counter whose seal fails, rolled back', () => {
    expect(checkRollback({ state: 'sealed', counter: 3 }, null, true)).toEqual({
      kind: 'rolled-back',
      reason: 'anchor_missing',
      databaseCounter: 3,
      anchor: null,
      next: 4,
    })
    expect(checkRollback({ state: 'tampered' }, 5, true)).toEqual({
      kind: 'rolled-back',
      reason: 'counter_tampered',
      databaseCounter: null,
      anchor: 5,
      next: 6,
    })
  })

  it('calls rooms and grants that are not those the current counter vouches for rolled back', () => {
    expect(checkRollback({ state: 'sealed', counter: 7 }, 7, false)).toEqual({
      kind: 'rolled-back',
      reason: 'rows_changed',
      databaseCounter: 7,
      anchor: 7,
      next: 8,
    })
  })

  it('for every counter and anchor: rolled back exactly when the database cannot be shown as new as the anchor, and the next counter passes both', () => {
    const seen = { initialise: 0, current: 0, rolledBack: 0 }
    fc.assert(
      fc.property(counterArb, anchorArb, fc.boolean(), (counter, anchor, rowsMatch) => {
        const verdict = checkRollback(counter, anchor, rowsMatch)
        const provablyCurrent =
          anchor !== null &&
          counter.state !== 'tampered' &&
          (counter.state === 'sealed' ? counter.counter : 0) >= anchor &&
          rowsMatch
        const fresh = anchor === null && counter.state === 'absent'
        if (fresh) {
          seen.initialise += 1
          expect(verdict.kind).toBe('initialise')
        } else if (provablyCurrent) {
          seen.current += 1
          expect(verdict.kind).toBe('current')
        } else {
          seen.rolledBack += 1
          if (verdict.kind !== 'rolled-back')
            throw new Error(`expected a rollback: ${verdict.kind}`)
          const known = [verdict.databaseCounter ?? 0, verdict.anchor ?? 0]
          expect(verdict.next).toBeGreaterThan(Math.max(...known))
        }
      }),
      { numRuns: 2_000 },
    )
    // Every branch was reached many times: the property cannot pass empty.
    expect(seen.initialise).toBeGreaterThan(50)
    expect(seen.current).toBeGreaterThan(100)
    expect(seen.rolledBack).toBeGreaterThan(200)
  })
})
