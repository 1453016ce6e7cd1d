import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { ExpiryQueue } from './expiry-queue.ts'

/** Pushes `[expiry, id]` entries, the id as the key's three words. */
function pushAll(queue: ExpiryQueue, entries: Array<[number, number]>) {
  for (const [expiry, id] of entries) queue.push(expiry, id, id * 2, id * 3)
}

/** Removes `count` entries: each as [the expiry earliest() gave, its id]. */
function removeSome(queue: ExpiryQueue, count: number): Array<[number, number]> {
  const key = new Float64Array(3)
  return Array.from({ length: count }, () => {
    const expiry = queue.earliest()
    queue.removeEarliest(key)
    expect([...key], 'key words').toEqual([key[0], key[0]! * 2, key[0]! * 3])
    return [expiry, key[0]!]
  })
}

describe('ExpiryQueue', () => {
  it('keeps entries that arrive in expiry order (equal ones too) in the ring, first in first out, across its wrap-around', () => {
    const queue = new ExpiryQueue(4)
    const inRing = () => [queue.ringSize, queue.size]
    pushAll(queue, [[10, 1]])
    expect(inRing()).toEqual([1, 1])
    pushAll(queue, [[20, 2]])
    expect(inRing()).toEqual([2, 2])
    pushAll(queue, [[20, 3]])
    expect(inRing()).toEqual([3, 3])
    pushAll(queue, [[30, 4]])
    expect(inRing()).toEqual([4, 4])
    expect(() => queue.push(40, 9, 18, 27)).toThrow('the expiry queue is full')
    expect(removeSome(queue, 2)).toEqual([
      [10, 1],
      [20, 2],
    ])
    // The ring's next places are its first two again.
    pushAll(queue, [[30, 5]])
    expect(inRing()).toEqual([3, 3])
    pushAll(queue, [[40, 6]])
    expect(inRing()).toEqual([4, 4])
    expect(removeSome(queue, 3)).toEqual([
      [20, 3],
      [30, 4],
      [30, 5],
    ])
    // Wrapped again: the oldest sits in the ring's last place, the newest
    // in its first.
    pushAll(queue, [[40, 7]])
    pushAll(queue, [[41, 8]])
    pushAll(queue, [[50, 9]])
    expect(inRing()).toEqual([4, 4])
    expect(removeSome(queue, 4)).toEqual([
      [40, 6],
      [40, 7],
      [41, 8],
      [50, 9],
    ])
    expect([queue.size, queue.ringSize, queue.earliest()]).toEqual([0, 0, Infinity])
    // Empty after a wrap: the next entry starts the ring wherever it stopped.
    pushAll(queue, [[5, 10]])
    expect(inRing()).toEqual([1, 1])
    expect(removeSome(queue, 1)).toEqual([[5, 10]])
  })

  it('sends an entry expiring before the ring’s newest to the heap, and removes all in exact expiry order', () => {
    const queue = new ExpiryQueue(10)
    // Ring: 50, 60, 70, 90. Heap: the rest, each earlier than the ring's
    // newest when it came (a shorter lifetime, a clock step back).
    pushAll(queue, [
      [50, 1],
      [40, 2],
      [60, 3],
      [45, 4],
      [70, 5],
      [30, 6],
      [65, 7],
      [90, 8],
      [35, 9],
      [80, 10],
    ])
    expect([queue.ringSize, queue.size]).toEqual([4, 10])
    expect(queue.earliest()).toBe(30)
    expect(removeSome(queue, 10)).toEqual([
      [30, 6],
      [35, 9],
      [40, 2],
      [45, 4],
      [50, 1],
      [60, 3],
      [65, 7],
      [70, 5],
      [80, 10],
      [90, 8],
    ])
    expect(() => queue.removeEarliest(new Float64Array(3))).toThrow('the expiry queue is empty')
  })

  it('moves the last heap entry down through the smaller child at every level', () => {
    const queue = new ExpiryQueue(9)
    // 1 000 holds the ring; the rest, each earlier, fill the heap in rising
    // order, so its array reads as pushed: 10 | 20 30 | 50 40 60 70 | 99.
    // Removing 10 moves 99 down from the root: past 20 (the smaller of 20
    // and 30), then past 40 (the smaller of 50 and 40, the right child).
    pushAll(queue, [
      [1_000, 1],
      [10, 2],
      [20, 3],
      [30, 4],
      [50, 5],
      [40, 6],
      [60, 7],
      [70, 8],
      [99, 9],
    ])
    expect([queue.ringSize, queue.size]).toEqual([1, 9])
    expect(removeSome(queue, 9)).toEqual([
      [10, 2],
      [20, 3],
      [30, 4],
      [40, 6],
      [50, 5],
      [60, 7],
      [70, 8],
      [99, 9],
      [1_000, 1],
    ])
  })

  it('stops moving the last heap entry down where its children expire later', () => {
    const queue = new ExpiryQueue(6)
    // Heap after these pushes: 27 | 29 81 | 90 71. Removing 27 moves 71 down
    // past 29, then stops above 90.
    pushAll(queue, [
      [1_000, 1],
      [90, 2],
      [81, 3],
      [27, 4],
      [29, 5],
      [71, 6],
    ])
    expect([queue.ringSize, queue.size]).toEqual([1, 6])
    expect(removeSome(queue, 6)).toEqual([
      [27, 4],
      [29, 5],
      [71, 6],
      [81, 3],
      [90, 2],
      [1_000, 1],
    ])
  })

  it('removes entries of equal expiry, split between ring and heap, before any later one', () => {
    const queue = new ExpiryQueue(8)
    pushAll(queue, [
      [20, 1],
      [30, 2],
      [20, 3],
      [20, 4],
      [10, 5],
      [20, 6],
      [30, 7],
      [10, 8],
    ])
    expect([queue.ringSize, queue.size]).toEqual([3, 8])
    const removed = removeSome(queue, 8)
    expect(removed.map(([expiry]) => expiry)).toEqual([10, 10, 20, 20, 20, 20, 30, 30])
    // Which of two equal expiries leaves first is not promised; each leaves
    // once, with its own key.
    const ids = (expiry: number) =>
      removed
        .filter(([at]) => at === expiry)
        .map(([, id]) => id)
        .sort((a, b) => a - b)
    expect([ids(10), ids(20), ids(30)]).toEqual([
      [5, 8],
      [1, 3, 4, 6],
      [2, 7],
    ])
  })

  it('holds heap entries only while the ring holds a later one, so the ring empties last', () => {
    const queue = new ExpiryQueue(6)
    pushAll(queue, [
      [100, 1],
      [200, 2],
      [150, 3],
      [120, 4],
      [300, 5],
      [110, 6],
    ])
    expect([queue.ringSize, queue.size]).toEqual([3, 6])
    const seen: Array<[number, number]> = []
    while (queue.size > 0) {
      seen.push([queue.ringSize, queue.size])
      removeSome(queue, 1)
      if (queue.size > queue.ringSize) expect(queue.ringSize).toBeGreaterThan(0)
    }
    expect(seen).toEqual([
      [3, 6],
      [2, 5],
      [2, 4],
      [2, 3],
      [2, 2],
      [1, 1],
    ])
  })

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
            // The heap holds entries only while the ring holds a later one.
            if (queue.size > queue.ringSize) expect(queue.ringSize).toBeGreaterThan(0)
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
