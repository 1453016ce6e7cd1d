import { hash } from 'node:crypto'

// HMAC-SHA256 (RFC 2104) under one key, from two one-shot SHA-256 calls:
//
//   HMAC(K, m) = SHA256((K' ⊕ opad) ‖ SHA256((K' ⊕ ipad) ‖ m))
//
// where K' is the key zero-padded to the 64-byte block (a longer key is
// hashed first). Consent tokens take one to mint and one to verify, on a
// few hundred bytes; `createHmac` sets up a MAC context for each, which
// costs more than the hashing, and `crypto.hash` does not (measured in
// docs/benchmarks-history.md, "2026-12-02 night: consent tokens' HMAC").
// The same HMAC, bit for bit: hmac-sha256.test.ts holds it to RFC 4231's
// vectors and to `createHmac` over arbitrary keys and messages.

const BLOCK_BYTES = 64
const DIGEST_BYTES = 32
const IPAD = 0x36
const OPAD = 0x5c
/**
 * The longest message (in UTF-16 units) the reusable buffer takes; a longer
 * one gets a buffer of its exact size for that call. A consent token's
 * signed string is about 270. A unit takes at most 3 bytes in UTF-8 (a
 * surrogate pair 4 for its two), so any message this long fits whole
 * without being measured first: encodeInto() never stops short of its end, and
 * no shortened message is ever signed.
 */
const SCRATCH_UNITS = 341
const MAX_UTF8_BYTES_PER_UNIT = 3
const UTF8 = new TextEncoder()

export class HmacSha256 {
  /** K' ⊕ ipad, then room for the message. */
  readonly #inner: Buffer
  /** K' ⊕ opad, then the inner digest. */
  readonly #outer: Buffer
  /** `#inner` past the key block, where a message is written. */
  readonly #messageArea: Buffer
  /** `#inner` up to the end of a message, by that end. */
  readonly #views: Buffer[] = []

  /** Copies what it needs from `key`: changing the caller's buffer later
   *  does not change this key. */
  constructor(key: Buffer) {
    if (!Buffer.isBuffer(key)) throw new TypeError('an HMAC key must be a Buffer')
    const keyBlock = key.length > BLOCK_BYTES ? hash('sha256', key, 'buffer') : key
    this.#inner = Buffer.alloc(BLOCK_BYTES + SCRATCH_UNITS * MAX_UTF8_BYTES_PER_UNIT, IPAD)
    this.#outer = Buffer.alloc(BLOCK_BYTES + DIGEST_BYTES, OPAD)
    this.#messageArea = this.#inner.subarray(BLOCK_BYTES)
    // K' is the key followed by zeros, so the pads' bytes past it stay as
    // they are; bytes past the block are overwritten before every use.
    keyBlock.forEach((byte, index) => {
      this.#inner[index]! ^= byte
      this.#outer[index]! ^= byte
    })
  }

  /** The HMAC of `message`'s UTF-8 bytes, as unpadded base64url. */
  base64url(message: string): string {
    let signed: Buffer
    if (message.length <= SCRATCH_UNITS) {
      // encodeInto writes UTF-8 (a lone surrogate as U+FFFD, as write()
      // does) straight into the reusable buffer, a tenth cheaper than
      // write(), and the whole message always fits (SCRATCH_UNITS).
      const end = BLOCK_BYTES + UTF8.encodeInto(message, this.#messageArea).written
      // The view of each length is made once: its bytes are rewritten
      // before every use, so the view reads this message's.
      signed = this.#views[end] ??= this.#inner.subarray(0, end)
    } else {
      signed = this.#innerFor(message)
      signed.write(message, BLOCK_BYTES)
    }
    // The inner digest passes as a latin1 ('binary') string: one character
    // per byte, written back as the same 32 bytes, cheaper than a Buffer.
    this.#outer.write(hash('sha256', signed, 'binary'), BLOCK_BYTES, 'binary')
    return hash('sha256', this.#outer, 'base64url')
  }

  /** K' ⊕ ipad and room for exactly `message`, for one call. */
  #innerFor(message: string): Buffer {
    const inner = Buffer.alloc(BLOCK_BYTES + Buffer.byteLength(message))
    this.#inner.copy(inner, 0, 0, BLOCK_BYTES)
    return inner
  }
}
