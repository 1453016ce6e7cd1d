/**
 * Ledger entries (an expiry and a three-word nonce key) ordered by expiry,
 * so the earliest is found and removed first.
 *
 * Entries almost always arrive in expiry order: main gives every token the
 * same lifetime from a clock that only moves forward. Those go to a ring
 * (first in, first out, O(1) at both ends, read in address order). Any entry
 * expiring before the newest in the ring (another lifetime, a clock step
 * back) goes to a binary min-heap instead. The earliest entry is the earlier
 * of the ring's oldest and the heap's root.
 *
 * Both live in Float64Arrays of four words per entry, sized for `capacity`
 * at construction: pushing and removing allocate nothing.
 */
export class ExpiryQueue {
  readonly #capacity: number
  readonly #ring: Float64Array
  #ringStart = 0
  #ringSize = 0
  readonly #heap: Float64Array
  #heapSize = 0

  constructor(capacity: number) {
    this.#capacity = capacity
    this.#ring = new Float64Array(4 * capacity)
    this.#heap = new Float64Array(4 * capacity)
  }

  get size(): number {
    return this.#ringSize + this.#heapSize
  }

  /** Entries held in the ring; the other `size - ringSize` are in the heap.
   *  Read by no caller on the hot path: it makes the split observable, so
   *  tests can hold the queue to its O(1) path for entries in order. */
  get ringSize(): number {
    return this.#ringSize
  }

  /** The earliest expiry held, or +Infinity when empty. */
  earliest(): number {
    const fromRing = this.#ringSize > 0 ? this.#ring[4 * this.#ringStart]! : Infinity
    const fromHeap = this.#heapSize > 0 ? this.#heap[0]! : Infinity
    return fromRing <= fromHeap ? fromRing : fromHeap
  }

  /** Adds an entry. The caller keeps the size within capacity. */
  push(expiresAtMs: number, high: number, middle: number, low: number): void {
    if (this.size >= this.#capacity) throw new RangeError('the expiry queue is full')
    const ring = this.#ring
    const newest = (this.#ringStart + this.#ringSize - 1) % this.#capacity
    if (this.#ringSize === 0 || ring[4 * newest]! <= expiresAtMs) {
      const at = 4 * ((this.#ringStart + this.#ringSize) % this.#capacity)
      ring[at] = expiresAtMs
      ring[at + 1] = high
      ring[at + 2] = middle
      ring[at + 3] = low
      this.#ringSize += 1
      return
    }
    this.#pushHeap(expiresAtMs, high, middle, low)
  }

  /** Removes the earliest entry and writes its key words into `key`. */
  removeEarliest(key: Float64Array): void {
    if (this.size === 0) throw new RangeError('the expiry queue is empty')
    const fromRing =
      this.#ringSize > 0 &&
      (this.#heapSize === 0 || this.#ring[4 * this.#ringStart]! <= this.#heap[0]!)
    if (fromRing) {
      const at = 4 * this.#ringStart
      moveWords(this.#ring, at + 1, key, 0, 3)
      this.#ringStart = (this.#ringStart + 1) % this.#capacity
      this.#ringSize -= 1
      return
    }
    moveWords(this.#heap, 1, key, 0, 3)
    this.#popHeap()
  }

  #pushHeap(expiresAtMs: number, high: number, middle: number, low: number): void {
    const heap = this.#heap
    let index = this.#heapSize
    while (index > 0) {
      const parent = (index - 1) >> 1
      if (heap[4 * parent]! <= expiresAtMs) break
      moveWords(heap, 4 * parent, heap, 4 * index, 4)
      index = parent
    }
    const at = 4 * index
    heap[at] = expiresAtMs
    heap[at + 1] = high
    heap[at + 2] = middle
    heap[at + 3] = low
    this.#heapSize += 1
  }

  /** Removes the root: the last entry sifts down from the top. */
  #popHeap(): void {
    const heap = this.#heap
    const size = this.#heapSize - 1
    const last = 4 * size
    const lastExpiry = heap[last]!
    let index = 0
    for (;;) {
      const left = 2 * index + 1
      if (left >= size) break
      const right = left + 1
      const child = right < size && heap[4 * right]! < heap[4 * left]! ? right : left
      if (heap[4 * child]! >= lastExpiry) break
      moveWords(heap, 4 * child, heap, 4 * index, 4)
      index = child
    }
    moveWords(heap, last, heap, 4 * index, 4)
    this.#heapSize = size
  }
}

/** Copies `count` words (cheaper than copyWithin or set for so few). */
export function moveWords(
  from: Float64Array,
  fromIndex: number,
  to: Float64Array,
  toIndex: number,
  count: number,
): void {
  for (let offset = 0; offset < count; offset += 1) to[toIndex + offset] = from[fromIndex + offset]!
}
