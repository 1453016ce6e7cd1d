import { ExpiryQueue, moveWords } from './expiry-queue.ts'

/** At most this many expired nonces are forgotten per call of
 *  `evictExpired`: the verifier's work per token stays bounded however many
 *  nonces expire at the same moment, and the backlog still drains faster than
 *  tokens arrive (each verify adds at most one nonce). */
export const EVICTIONS_PER_CALL = 4
/** Largest capacity: 2^20 nonces take about 120 MiB (16 times the
 *  default's). */
export const MAX_LEDGER_CAPACITY = 2 ** 20

/** A nonce as three exact integers (its 128 bits, first to last, in 30,
 *  48 and 50 bits), so the ledger keeps numbers, never a string of the token. */
export interface NonceKey {
  high: number
  middle: number
  low: number
}

export const NONCE_CHARS = 22
const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
/** ASCII code → its base64url value, or -1. */
const BASE64URL_VALUES = new Int8Array(128).fill(-1)
for (let value = 0; value < BASE64URL.length; value += 1) {
  BASE64URL_VALUES[BASE64URL.charCodeAt(value)] = value
}

/** The base64url value (0..63) of the character at `index`, or -1. */
export function base64urlValue(text: string, index: number): number {
  const code = text.charCodeAt(index)
  return code < 128 ? BASE64URL_VALUES[code]! : -1
}

/**
 * The key of the 16-byte nonce written as the NONCE_CHARS base64url
 * characters at `start`, read without decoding to bytes; null when one is
 * not base64url or the last carries bits past the 16 bytes (its low 4 bits
 * must be zero, so each nonce has one spelling).
 */
export function readNonceKey(text: string, start: number): NonceKey | null {
  let high = 0
  let middle = 0
  let low = 0
  for (let index = 0; index < NONCE_CHARS - 1; index += 1) {
    const value = base64urlValue(text, start + index)
    if (value < 0) return null
    if (index < 5) high = high * 64 + value
    else if (index < 13) middle = middle * 64 + value
    else low = low * 64 + value
  }
  // -1 (not base64url) fails this too.
  const last = base64urlValue(text, start + NONCE_CHARS - 1)
  if (last % 16 !== 0) return null
  return { high, middle, low: low * 4 + last / 16 }
}

/**
 * The burned nonces of one verifier, each remembered until its token's
 * expiry, in at most `capacity` entries.
 *
 * - It never forgets a nonce whose token is still unexpired, so no token can
 *   be replayed while it could still verify.
 * - It refuses a new nonce only while it holds `capacity` unexpired ones:
 *   entries leave earliest expiry first (ExpiryQueue), so when the ledger is
 *   full, either the earliest has expired and gives its place, or every
 *   entry is live.
 * - Expired entries leave a few at a time (`EVICTIONS_PER_CALL`), so no
 *   single call pays for a burst that expired together.
 *
 * All memory is taken at construction, in typed arrays: an open-addressing
 * hash set of keys (linear probing, at most half full, deletion by backward
 * shift so no tombstones accumulate) and the expiry queue. Burning a nonce
 * allocates nothing, so a full ledger costs the garbage collector nothing.
 */
export class NonceLedger {
  readonly #capacity: number
  // Hash set: three key words per slot, and whether the slot is taken.
  readonly #mask: number
  readonly #keys: Float64Array
  readonly #taken: Uint8Array
  readonly #queue: ExpiryQueue
  readonly #removed = new Float64Array(3)

  constructor(capacity: number) {
    if (!Number.isSafeInteger(capacity) || capacity < 1 || capacity > MAX_LEDGER_CAPACITY) {
      throw new RangeError(`capacity must be an integer in 1..${MAX_LEDGER_CAPACITY}`)
    }
    this.#capacity = capacity
    let slots = 2
    while (slots < 2 * capacity) slots *= 2
    this.#mask = slots - 1
    this.#keys = new Float64Array(3 * slots)
    this.#taken = new Uint8Array(slots)
    this.#queue = new ExpiryQueue(capacity)
  }

  /** Nonces remembered, including expired ones not yet forgotten. */
  get size(): number {
    return this.#queue.size
  }

  /** True when no nonce can be added. Call `evictExpired` first: after it,
   *  full means full of unexpired nonces. */
  get full(): boolean {
    return this.#queue.size >= this.#capacity
  }

  has(key: NonceKey): boolean {
    return this.#slotOf(key.high, key.middle, key.low) >= 0
  }

  /** Remembers the nonce until `expiresAtMs`. Refuses (and changes nothing)
   *  when the nonce is already known or the ledger is full. */
  burn(key: NonceKey, expiresAtMs: number): boolean {
    const { high, middle, low } = key
    if (this.full || this.#slotOf(high, middle, low) >= 0) return false
    this.#insertSlot(high, middle, low)
    this.#queue.push(expiresAtMs, high, middle, low)
    return true
  }

  /** Forgets up to `EVICTIONS_PER_CALL` nonces that expired at or before
   *  `now`, earliest first. Either it forgot that many, which leaves room, or
   *  the earliest remaining entry is unexpired. */
  evictExpired(now: number): void {
    const queue = this.#queue
    const removed = this.#removed
    for (let evicted = 0; evicted < EVICTIONS_PER_CALL; evicted += 1) {
      // +Infinity when empty.
      if (queue.earliest() > now) return
      queue.removeEarliest(removed)
      this.#deleteSlot(this.#slotOf(removed[0]!, removed[1]!, removed[2]!))
    }
  }

  /** The slot holding the key, or -1. The high word is uniformly random for
   *  every key that can be inserted (only main's nonces are), so it is the
   *  hash as it is. */
  #slotOf(high: number, middle: number, low: number): number {
    const keys = this.#keys
    const taken = this.#taken
    const mask = this.#mask
    for (let slot = high & mask; taken[slot] === 1; slot = (slot + 1) & mask) {
      const at = 3 * slot
      if (keys[at] === high && keys[at + 1] === middle && keys[at + 2] === low) return slot
    }
    return -1
  }

  #insertSlot(high: number, middle: number, low: number): void {
    const taken = this.#taken
    const mask = this.#mask
    let slot = high & mask
    while (taken[slot] === 1) slot = (slot + 1) & mask
    const at = 3 * slot
    this.#keys[at] = high
    this.#keys[at + 1] = middle
    this.#keys[at + 2] = low
    taken[slot] = 1
  }

  /** Empties `slot`, then moves back any later key of the same probe run
   *  that would otherwise be cut off from its home slot. */
  #deleteSlot(slot: number): void {
    const keys = this.#keys
    const taken = this.#taken
    const mask = this.#mask
    let hole = slot
    for (let next = (hole + 1) & mask; taken[next] === 1; next = (next + 1) & mask) {
      const home = keys[3 * next]! & mask
      // It stays when its home lies in the cyclic range (hole, next].
      const stays = hole <= next ? hole < home && home <= next : hole < home || home <= next
      if (stays) continue
      moveWords(keys, 3 * next, keys, 3 * hole, 3)
      hole = next
    }
    taken[hole] = 0
  }
}
