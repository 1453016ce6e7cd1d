import {
  createCipheriv,
  createDecipheriv,
  createHmac,
  createSecretKey,
  randomFillSync,
  timingSafeEqual,
  type KeyObject,
} from 'node:crypto'
import { DOMAIN_TAG } from './consent-subject.ts'
import { HmacSha256 } from './hmac-sha256.ts'

// Nonces main can vouch for without the binding (docs/architecture.md §5).
//
// A token's signature covers its binding, so a token presented with the
// wrong binding cannot be told from a forgery by its signature. Yet such a
// token must still be burned (so a stolen token is spent by a wrong try),
// while a forgery must never take a ledger slot (or a flood of them would
// fill the ledger and refuse every genuine token). So each nonce is sealed:
// one AES-256 block, under a key derived from the consent key, over a tag,
// the second it was minted in and 8 random bytes. Only main can seal; the
// verifier opens the nonce only after a signature failed, and burns it only
// when the tag is right and the token's expiry is one main could have given
// a nonce minted in that second. A sealed nonce can therefore hold a ledger
// slot only within about a minute of its minting, however often it is
// presented. AES is used as a pseudorandom permutation of one block (the
// nonce stays 16 uniformly random-looking bytes); it hides nothing, it
// authenticates.

export const NONCE_BYTES = 16
/** Random bytes in each nonce (the rest is the tag and the mint second). */
export const NONCE_RANDOM_BYTES = 8
const NONCE_TAG = 0x6173 // "as"
const SECOND_MS = 1_000
const NONCE_KEY_LABEL = `${DOMAIN_TAG} nonce key`
/** Nonces sealed per AES call when minting from the pool. */
export const POOL_NONCES = 256

/** The two keys one 32-byte consent key gives. */
export interface ConsentKeys {
  /** HMAC-SHA256 under the consent key itself: token signatures. */
  signing: HmacSha256
  /** AES-256 key that seals nonces, derived so it never signs anything. */
  sealing: KeyObject
}

export function deriveConsentKeys(key: Buffer): ConsentKeys {
  // Signed strings all start with DOMAIN_TAG and a newline; the label has a
  // space there, so no signed string is ever the derivation input.
  const sealing = createSecretKey(createHmac('sha256', key).update(NONCE_KEY_LABEL).digest())
  return { signing: new HmacSha256(key), sealing }
}

/** Writes the plaintext of a nonce minted at `nowMs` into `block` (16
 *  bytes at `offset`); bytes 8..15 must already hold the random part. */
function writeSealedFields(block: Buffer, offset: number, nowMs: number): void {
  block.writeUInt16BE(NONCE_TAG, offset)
  block.writeUIntBE(Math.floor(nowMs / SECOND_MS), offset + 2, 6)
}

function seal(sealing: KeyObject, plaintext: Buffer): Buffer {
  const cipher = createCipheriv('aes-256-ecb', sealing, null).setAutoPadding(false)
  return Buffer.concat([cipher.update(plaintext), cipher.final()])
}

/** One nonce (base64url) from `random` (NONCE_RANDOM_BYTES bytes). */
export function sealNonce(keys: ConsentKeys, nowMs: number, random: Buffer): string {
  const block = Buffer.alloc(NONCE_BYTES)
  random.copy(block, NONCE_BYTES - NONCE_RANDOM_BYTES)
  writeSealedFields(block, 0, nowMs)
  return seal(keys.sealing, block).toString('base64url')
}

/** Each pooled nonce is encoded with two zero bytes after it: 18 bytes are
 *  24 base64url characters on their own, the nonce's canonical 22 first. */
const STRIDE_BYTES = 18
const STRIDE_CHARS = 24
const NONCE_CHARS = 22

/**
 * Nonces sealed and encoded in batches of POOL_NONCES (one AES call, one
 * base64url encoding), each batch for one mint second. Every nonce is handed
 * out once; a nonce is public in its token anyway, so holding the next ones
 * in memory reveals nothing a token would not.
 */
export class NoncePool {
  readonly #keys: ConsentKeys
  readonly #fillRandom: (buffer: Buffer) => Buffer
  #encoded = ''
  #next = 0
  #second = Number.NaN

  /** `fillRandom` fills a buffer with the random parts of a batch (and
   *  bytes the seal overwrites); only tests pass another than the CSPRNG. */
  constructor(keys: ConsentKeys, fillRandom: (buffer: Buffer) => Buffer = randomFillSync) {
    this.#keys = keys
    this.#fillRandom = fillRandom
  }

  take(nowMs: number): string {
    const second = Math.floor(nowMs / SECOND_MS)
    if (this.#next >= this.#encoded.length || second !== this.#second) this.#refill(nowMs)
    const start = this.#next
    this.#next = start + STRIDE_CHARS
    return this.#encoded.slice(start, start + NONCE_CHARS)
  }

  #refill(nowMs: number): void {
    const plaintext = this.#fillRandom(Buffer.alloc(NONCE_BYTES * POOL_NONCES))
    for (let offset = 0; offset < plaintext.length; offset += NONCE_BYTES) {
      writeSealedFields(plaintext, offset, nowMs)
    }
    const sealed = seal(this.#keys.sealing, plaintext)
    const spaced = Buffer.alloc(STRIDE_BYTES * POOL_NONCES)
    for (let index = 0; index < POOL_NONCES; index += 1) {
      sealed.copy(spaced, index * STRIDE_BYTES, index * NONCE_BYTES, (index + 1) * NONCE_BYTES)
    }
    this.#encoded = spaced.toString('base64url')
    this.#next = 0
    this.#second = Math.floor(nowMs / SECOND_MS)
  }
}

const EXPECTED_TAG = Buffer.from([NONCE_TAG >> 8, NONCE_TAG & 0xff])

/**
 * Whether `nonce` (exactly 16 bytes: one block) was sealed by main for a token expiring at
 * `expiresAtMs`: the tag matches and the expiry lies within the lifetime
 * main may give a token minted in the sealed second (1 ms to `maxLifetimeMs`
 * after some millisecond of it).
 */
export function sealedByMain(
  keys: ConsentKeys,
  nonce: Buffer,
  expiresAtMs: number,
  maxLifetimeMs: number,
): boolean {
  const decipher = createDecipheriv('aes-256-ecb', keys.sealing, null).setAutoPadding(false)
  const plaintext = Buffer.concat([decipher.update(nonce), decipher.final()])
  if (!timingSafeEqual(plaintext.subarray(0, 2), EXPECTED_TAG)) return false
  const sinceSecondStart = expiresAtMs - plaintext.readUIntBE(2, 6) * SECOND_MS
  return sinceSecondStart >= 1 && sinceSecondStart < SECOND_MS + maxLifetimeMs
}
