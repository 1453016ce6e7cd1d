import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { ExpiryQueue } from './expiry-queue.ts'

describe('ExpiryQueue', () => {
  it('always removes the earliest entry, whether it sits in the ring or the heap', () => {
    // Mostly rising expiries (the ring) with some that fall back (the heap),
    // removals interleaved, and wrap-arounds of the ring.
    type Op = { op: 'push'; step: number } | { op: 'remove' }
    const opArb: fc.Arbitrary<Op> = fc.oneof(
      {
        weight: 3,
        arbitrary: fc.record({
          op: fc.constant('push' as const),
          step: fc.integer({ min: -20, max: 40 }),
        }),
      },
      { weight: 2, arbitrary: fc.constant({ op: 'remove' as const }) },
    )
    let fromHeap = 0
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 9 }),
        fc.array(opArb, { maxLength: 120 }),
        (capacity, ops) => {
          const queue = new ExpiryQueue(capacity)
          const model: Array<{ expiry: number; id: number }> = []
          const removed = new Float64Array(3)
          let newest = 1_000
          let id = 0
          for (const step of ops) {
            if (step.op === 'push') {
              if (model.length === capacity) {
                expect(() => queue.push(newest, 0, 0, 0)).toThrow('the expiry queue is full')
                continue
              }
              newest += step.step
              if (step.step < 0) fromHeap += 1
              id += 1
              queue.push(newest, id, id * 2, id * 3)
              model.push({ expiry: newest, id })
            } else {
              if (model.length === 0) {
                expect(() => queue.removeEarliest(removed)).toThrow('the expiry queue is empty')
                continue
              }
              const earliest = Math.min(...model.map((entry) => entry.expiry))
              expect(queue.earliest()).toBe(earliest)
              queue.removeEarliest(removed)
              // Ties may leave in either order; the key must be one of them.
              const index = model.findIndex(
                (entry) => entry.expiry === earliest && entry.id === removed[0],
              )
              expect(index, `removed ${removed[0]} at ${earliest}`).toBeGreaterThanOrEqual(0)
              expect([...removed]).toEqual([removed[0], removed[0]! * 2, removed[0]! * 3])
              model.splice(index, 1)
            }
            expect(queue.size).toBe(model.length)
            expect(queue.earliest()).toBe(
              model.length === 0 ? Infinity : Math.min(...model.map((entry) => entry.expiry)),
            )
          }
        },
      ),
    )
    expect(fromHeap).toBeGreaterThan(50)
  })
})
