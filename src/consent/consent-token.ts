import { timingSafeEqual } from 'node:crypto'
import type { ConsentBinding } from '../contracts/consent.ts'
import { signingPrefix } from './consent-subject.ts'
import type { HmacSha256 } from './hmac-sha256.ts'
import {
  NONCE_RANDOM_BYTES,
  NoncePool,
  deriveConsentKeys,
  sealNonce,
  sealedByMain,
  type ConsentKeys,
} from './consent-nonces.ts'
import {
  MAX_LEDGER_CAPACITY,
  NONCE_CHARS,
  NonceLedger,
  base64urlValue,
  readNonceKey,
  type NonceKey,
} from './nonce-ledger.ts'

// Consent tokens (docs/architecture.md §5): `v1.<expiresAtMs>.<nonce>.<sig>`. Main
// mints them from the protected window; the runtime verifies them against the
// binding it rebuilds from the request, so the subject never travels in the token.

export const CONSENT_LIFETIME_MS = 30_000
/** The verifier rejects tokens expiring more than this ahead of its clock. */
export const MAX_FUTURE_SKEW_MS = 60_000
/** Enough for 1 000 decisions/s over a 60 s window. */
export const MAX_USED_NONCES = 65_536
export const CONSENT_KEY_BYTES = 32
export { NONCE_RANDOM_BYTES }

// The grammar, exactly:
//
//   v1.<expiry>.<nonce>.<sig>
//   expiry  [1-9][0-9]{0,15}, and a safe integer
//   nonce   [A-Za-z0-9_-]{21}[AQgw]
//   sig     [A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]
//
// ASCII only, nothing before or after. The nonce is 16 bytes (22 base64url
// characters, the last carrying 2 bits and 4 zero bits) and the signature 32
// (43 characters, the last carrying 4 bits and 2 zero bits): the last
// character may hold only zero spare bits, so each byte string has exactly
// one spelling. `tokenParts` reads it in one pass and turns the nonce into
// its ledger key on the way (`readNonceKey`), `signatureWellFormed` reads the
// signature; consent-token-grammar.test.ts holds both to the regular
// expression above.
const SIGNATURE_CHARS = 43
/** Every character but the expiry's: `v1.`, two dots, nonce, signature. */
const FIXED_CHARS = 3 + 1 + NONCE_CHARS + 1 + SIGNATURE_CHARS
const MAX_EXPIRY_DIGITS = 16
const DOT = 0x2e
const DIGIT_ZERO = 0x30

export interface MintOptions {
  key: Buffer
  binding: ConsentBinding
  now: number
  lifetimeMs?: number
  /** Source of the nonce's random part (NONCE_RANDOM_BYTES bytes). Without
   *  it, nonces come from a pool the CSPRNG fills. */
  randomBytes?: (n: number) => Buffer
}

export interface ParsedConsentToken {
  expiresAtMs: number
  nonce: string
  signature: Buffer
}

export interface ConsentTokenVerifierOptions {
  key: Buffer
  now: () => number
  maxUsedNonces?: number
}

/**
 * Mints a single-use token for `binding`. Throws rather than minting anything
 * the verifier would treat differently from what the person confirmed: a bad
 * key, a lifetime the verifier would refuse, or a subject its schema rejects.
 */
export function mintConsentToken(options: MintOptions): string {
  const { key, binding, now, lifetimeMs = CONSENT_LIFETIME_MS, randomBytes } = options
  assertConsentKey(key)
  if (!Number.isSafeInteger(now) || now < 0) {
    throw new RangeError('now must be a non-negative integer number of milliseconds')
  }
  // A lifetime beyond the verifier's skew limit would mint a token that is
  // refused on arrival; a non-integer one would have no decimal expiry.
  if (!Number.isSafeInteger(lifetimeMs) || lifetimeMs <= 0 || lifetimeMs > MAX_FUTURE_SKEW_MS) {
    throw new RangeError(`lifetimeMs must be an integer in 1..${MAX_FUTURE_SKEW_MS}`)
  }
  const expiresAtMs = now + lifetimeMs
  if (!Number.isSafeInteger(expiresAtMs)) throw new RangeError('expiry is not a safe integer')

  const prefix = signingPrefix(binding)
  if (typeof prefix !== 'string') throw new TypeError(prefix.reason)

  const minting = mintingState(key)
  let nonce: string
  if (randomBytes === undefined) {
    nonce = minting.pool.take(now)
  } else {
    // A source that returns fewer bytes would make nonces guessable or
    // colliding; refuse instead of padding.
    const random = randomBytes(NONCE_RANDOM_BYTES)
    if (!Buffer.isBuffer(random) || random.length !== NONCE_RANDOM_BYTES) {
      throw new RangeError(`randomBytes must return exactly ${NONCE_RANDOM_BYTES} bytes`)
    }
    nonce = sealNonce(minting.keys, now, random)
  }
  const signature = minting.keys.signing.base64url(`${prefix}${expiresAtMs}\n${nonce}`)
  return `v1.${expiresAtMs}.${nonce}.${signature}`
}

/**
 * Strict parse: returns null for anything that is not exactly the canonical
 * form. Alternative spellings of the same token (padding bits, leading zeros,
 * `+`, exponents, padding) are refused so that one token has one string.
 */
export function parseConsentToken(token: string): ParsedConsentToken | null {
  const parts = tokenParts(token)
  if (parts === null || !signatureWellFormed(parts)) return null
  return {
    expiresAtMs: parts.expiresAtMs,
    nonce: nonceText(parts),
    signature: Buffer.from(token.slice(parts.nonceStart + NONCE_CHARS + 1), 'base64url'),
  }
}

/**
 * The exact string a token's HMAC covers. Exported so tests can pin the format
 * and the benchmark can size its raw-HMAC input; it holds no secret.
 */
export function consentSigningInput(
  binding: ConsentBinding,
  expiresAtMs: number,
  nonce: string,
): string {
  const prefix = signingPrefix(binding)
  if (typeof prefix !== 'string') throw new TypeError(prefix.reason)
  return `${prefix}${expiresAtMs}\n${nonce}`
}

export class ConsentTokenVerifier {
  readonly #keys: ConsentKeys
  readonly #now: () => number
  readonly #ledger: NonceLedger

  constructor(options: ConsentTokenVerifierOptions) {
    const { key, now, maxUsedNonces = MAX_USED_NONCES } = options
    assertConsentKey(key)
    if (typeof now !== 'function') throw new TypeError('now must be a clock function')
    if (
      !Number.isSafeInteger(maxUsedNonces) ||
      maxUsedNonces < 1 ||
      maxUsedNonces > MAX_LEDGER_CAPACITY
    ) {
      throw new RangeError(`maxUsedNonces must be an integer in 1..${MAX_LEDGER_CAPACITY}`)
    }
    // The keys hold their own copy of the bytes, so a caller reusing its
    // buffer cannot change the key under us.
    this.#keys = deriveConsentKeys(key)
    this.#now = now
    this.#ledger = new NonceLedger(maxUsedNonces)
  }

  /**
   * True once per token, for the binding it was minted for. The nonce is
   * burned when the signature checks out, or when main sealed it (a genuine
   * token presented with the wrong binding), so a token can be tried once at
   * most; a forgery never takes a ledger slot.
   */
  verify(token: unknown, binding: ConsentBinding): boolean {
    const parts = tokenParts(token)
    if (parts === null) return false
    const { expiresAtMs } = parts

    const now = this.#now()
    // NaN would make both comparisons below false and wave every token through.
    if (!Number.isFinite(now)) return false
    if (expiresAtMs <= now) return false
    if (expiresAtMs - now > MAX_FUTURE_SKEW_MS) return false

    const ledger = this.#ledger
    ledger.evictExpired(now)
    if (ledger.has(parts.key)) return false
    // Full of unexpired nonces: no token can take a slot, so none can be
    // accepted. Refusing is what keeps every burned nonce remembered.
    if (ledger.full) return false

    const signed = signatureMatches(this.#keys.signing, binding, parts)
    if (!signed) {
      // A signature the grammar refuses is refused as any such string is,
      // burning nothing: only a canonical one is a token's.
      if (!signatureWellFormed(parts)) return false
      if (!sealedByMain(this.#keys, nonceBytes(parts), expiresAtMs, MAX_FUTURE_SKEW_MS)) {
        return false
      }
    }
    // Spent even when the binding was wrong; accepted only once it is spent.
    return ledger.burn(parts.key, expiresAtMs) && signed
  }

  /** Nonces currently remembered, including expired ones not yet forgotten
   *  (a few leave on every call). */
  get ledgerSize(): number {
    return this.#ledger.size
  }
}

/** A token that matched the grammar: its expiry, where its nonce starts,
 *  and its nonce as a ledger key. */
interface TokenParts {
  token: string
  expiresAtMs: number
  nonceStart: number
  key: NonceKey
}

/** One pass over `token`: null unless it matches the grammar exactly, but
 *  for the signature's characters (`signatureWellFormed`). */
function tokenParts(token: unknown): TokenParts | null {
  if (typeof token !== 'string') return null
  const digits = token.length - FIXED_CHARS
  if (digits < 1 || digits > MAX_EXPIRY_DIGITS) return null
  if (token.charCodeAt(0) !== 0x76 || token.charCodeAt(1) !== 0x31 || token.charCodeAt(2) !== DOT) {
    return null
  }
  // Decimal digits, no leading zero.
  let expiresAtMs = 0
  for (let index = 3; index < 3 + digits; index += 1) {
    const digit = token.charCodeAt(index) - DIGIT_ZERO
    if (digit < 0 || digit > 9 || (digit === 0 && index === 3)) return null
    expiresAtMs = expiresAtMs * 10 + digit
  }
  // Rounding is monotonic, so a value past the safe integers lands on 2^53
  // or above and is refused here.
  if (!Number.isSafeInteger(expiresAtMs)) return null
  const nonceStart = 4 + digits
  const signatureStart = nonceStart + NONCE_CHARS + 1
  if (token.charCodeAt(nonceStart - 1) !== DOT || token.charCodeAt(signatureStart - 1) !== DOT) {
    return null
  }
  const key = readNonceKey(token, nonceStart)
  if (key === null) return null
  return { token, expiresAtMs, nonceStart, key }
}

/**
 * The rest of the grammar: the signature is canonical base64url of 32
 * bytes. Apart from `tokenParts` because a signature equal to the one
 * recomputed is canonical already (that one is), so `verify` reads the
 * characters again only for a signature that did not match.
 */
function signatureWellFormed(parts: TokenParts): boolean {
  const signatureStart = parts.nonceStart + NONCE_CHARS + 1
  let value = 0
  for (let index = 0; index < SIGNATURE_CHARS; index += 1) {
    value = base64urlValue(parts.token, signatureStart + index)
    if (value < 0) return false
  }
  // The last character carries 4 bits and 2 that must be zero.
  return value % 4 === 0
}

function nonceText(parts: TokenParts): string {
  return parts.token.slice(parts.nonceStart, parts.nonceStart + NONCE_CHARS)
}

function nonceBytes(parts: TokenParts): Buffer {
  return Buffer.from(nonceText(parts), 'base64url')
}

/**
 * Recomputes the signature over `binding` and compares it with the token's,
 * every character and no early exit, so the time taken says nothing about
 * how much of a forgery was right. The recomputed one is canonical
 * base64url of 32 bytes, so a token's equal to it is canonical too, and
 * equal strings mean equal bytes.
 */
function signatureMatches(signing: HmacSha256, binding: unknown, parts: TokenParts): boolean {
  const prefix = signingPrefix(binding)
  if (typeof prefix !== 'string') return false
  const expected = signing.base64url(`${prefix}${parts.expiresAtMs}\n${nonceText(parts)}`)
  const { token } = parts
  const signatureStart = parts.nonceStart + NONCE_CHARS + 1
  let difference = expected.length ^ SIGNATURE_CHARS
  for (let index = 0; index < SIGNATURE_CHARS; index += 1) {
    difference |= expected.charCodeAt(index) ^ token.charCodeAt(signatureStart + index)
  }
  return difference === 0
}

function assertConsentKey(key: unknown): asserts key is Buffer {
  // A shorter key weakens every signature; a longer one means the caller
  // passed the wrong secret (the bearer token, say). Either way, refuse.
  if (!Buffer.isBuffer(key) || key.length !== CONSENT_KEY_BYTES) {
    throw new TypeError(`consent key must be a ${CONSENT_KEY_BYTES}-byte Buffer`)
  }
}

interface MintingState {
  bytes: Buffer
  keys: ConsentKeys
  pool: NoncePool
}

/** The caller's key buffer → a copy of its bytes, its keys and its nonce
 *  pool. Weak, so a key is forgotten with the connection that held it. */
const mintingStates = new WeakMap<Buffer, MintingState>()

/** The state for `key`'s current bytes: a buffer whose bytes changed since
 *  it was imported is imported again, never signed with the old key. */
function mintingState(key: Buffer): MintingState {
  const cached = mintingStates.get(key)
  if (cached && timingSafeEqual(cached.bytes, key)) return cached
  const keys = deriveConsentKeys(key)
  const state = { bytes: Buffer.from(key), keys, pool: new NoncePool(keys) }
  mintingStates.set(key, state)
  return state
}
