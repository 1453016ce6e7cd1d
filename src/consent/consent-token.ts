import {
  createHmac,
  createSecretKey,
  randomFillSync,
  timingSafeEqual,
  type KeyObject,
} from 'node:crypto'
import { z } from 'zod'
import { canonicalJson } from '../contracts/canonical-json.ts'
import {
  ApprovalConsentSubjectSchema,
  ApproverWebhookConsentSubjectSchema,
  RoomPermissionConsentSubjectSchema,
} from '../contracts/consent.ts'
import type { ConsentBinding, ConsentKind } from '../contracts/consent.ts'

// Consent tokens (docs/architecture.md §5): `v1.<expiresAtMs>.<nonce>.<sig>`. Main
// mints them from the protected window; the runtime verifies them against the
// binding it rebuilds from the request, so the subject never travels in the token.

export const CONSENT_LIFETIME_MS = 30_000
/** The verifier rejects tokens expiring more than this ahead of its clock. */
export const MAX_FUTURE_SKEW_MS = 60_000
/** Enough for 1 000 decisions/s over a 60 s window. */
export const MAX_USED_NONCES = 65_536
export const CONSENT_KEY_BYTES = 32

const NONCE_BYTES = 16
const SIGNATURE_BYTES = 32
const DOMAIN_TAG = 'assent-consent-token/v1'

// Anchored, ASCII-only, exactly four segments: 16 bytes are 22 base64url
// characters and 32 bytes are 43. `[0-9]` rather than `\d` so no other digit
// script can slip in, and JavaScript's `$` (no `m` flag) does not match before
// a trailing newline. Sixteen digits cover every safe integer; the value is
// range-checked after matching.
const TOKEN_PATTERN = /^v1\.([1-9][0-9]{0,15})\.([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{43})$/

const SUBJECT_SCHEMAS = {
  approval: ApprovalConsentSubjectSchema,
  'room-permission': RoomPermissionConsentSubjectSchema,
  'approver-webhook': ApproverWebhookConsentSubjectSchema,
} as const satisfies Record<ConsentKind, z.ZodType>

const CONSENT_KINDS = Object.keys(SUBJECT_SCHEMAS).map((kind) => `"${kind}"`)

export interface MintOptions {
  key: Buffer
  binding: ConsentBinding
  now: number
  lifetimeMs?: number
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

type CanonicalBinding =
  { ok: true; kind: ConsentKind; canonicalSubject: string } | { ok: false; reason: string }

/**
 * Mints a single-use token for `binding`. Throws rather than minting anything
 * the verifier would treat differently from what the person confirmed: a bad
 * key, a lifetime the verifier would refuse, or a subject its schema rejects.
 */
export function mintConsentToken(options: MintOptions): string {
  const { key, binding, now, lifetimeMs = CONSENT_LIFETIME_MS } = options
  const randomBytes = options.randomBytes ?? pooledRandomBytes
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

  const canonical = canonicalBinding(binding)
  if (!canonical.ok) throw new TypeError(canonical.reason)

  // A source that returns fewer bytes would make nonces guessable or
  // colliding; refuse instead of padding.
  const nonceBytes = randomBytes(NONCE_BYTES)
  if (!Buffer.isBuffer(nonceBytes) || nonceBytes.length !== NONCE_BYTES) {
    throw new RangeError(`randomBytes must return exactly ${NONCE_BYTES} bytes`)
  }
  const nonce = nonceBytes.toString('base64url')
  const signature = hmac(mintingKey(key), signingInput(canonical, expiresAtMs, nonce))
  return `v1.${expiresAtMs}.${nonce}.${signature.toString('base64url')}`
}

/**
 * Strict parse: returns null for anything that is not exactly the canonical
 * form. Alternative spellings of the same token (padding bits, leading zeros,
 * `+`, exponents, padding) are refused so that one token has one string.
 */
export function parseConsentToken(token: string): ParsedConsentToken | null {
  if (typeof token !== 'string') return null
  const match = TOKEN_PATTERN.exec(token)
  if (match === null) return null
  const [, expiryText, nonce, signatureText] = match
  if (expiryText === undefined || nonce === undefined || signatureText === undefined) return null

  const expiresAtMs = Number(expiryText)
  if (!Number.isSafeInteger(expiresAtMs)) return null
  if (decodeCanonicalBase64url(nonce, NONCE_BYTES) === null) return null
  const signature = decodeCanonicalBase64url(signatureText, SIGNATURE_BYTES)
  if (signature === null) return null
  return { expiresAtMs, nonce, signature }
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
  const canonical = canonicalBinding(binding)
  if (!canonical.ok) throw new TypeError(canonical.reason)
  return signingInput(canonical, expiresAtMs, nonce)
}

export class ConsentTokenVerifier {
  readonly #key: KeyObject
  readonly #now: () => number
  readonly #maxUsedNonces: number
  /** Burned nonce → the expiry of the token that burned it. */
  readonly #used = new Map<string, number>()
  readonly #expiries = new ExpiryHeap()

  constructor(options: ConsentTokenVerifierOptions) {
    const { key, now, maxUsedNonces = MAX_USED_NONCES } = options
    assertConsentKey(key)
    if (typeof now !== 'function') throw new TypeError('now must be a clock function')
    if (!Number.isSafeInteger(maxUsedNonces) || maxUsedNonces < 1) {
      throw new RangeError('maxUsedNonces must be a positive integer')
    }
    // A KeyObject holds its own copy of the bytes, so a caller reusing its
    // buffer cannot change the key under us.
    this.#key = createSecretKey(key)
    this.#now = now
    this.#maxUsedNonces = maxUsedNonces
  }

  /** Burns the nonce on presentation, even when the binding is wrong, so a
   *  token can be tried once at most. */
  verify(token: unknown, binding: ConsentBinding): boolean {
    if (typeof token !== 'string') return false
    const parsed = parseConsentToken(token)
    if (parsed === null) return false

    const now = this.#now()
    // NaN would make both comparisons below false and wave every token through.
    if (!Number.isFinite(now)) return false
    if (parsed.expiresAtMs <= now) return false
    if (parsed.expiresAtMs - now > MAX_FUTURE_SKEW_MS) return false

    if (this.#used.has(parsed.nonce)) return false
    if (this.#used.size >= this.#maxUsedNonces) {
      this.#evictExpired(now)
      // Never evict an unexpired nonce to make room: that would make an old
      // token replayable during a burst. Refuse until one expires.
      if (this.#used.size >= this.#maxUsedNonces) return false
    }
    // Burn before checking the binding, so a stolen token presented for the
    // wrong action is spent rather than left to be retried.
    this.#used.set(parsed.nonce, parsed.expiresAtMs)
    this.#expiries.push({ expiresAtMs: parsed.expiresAtMs, nonce: parsed.nonce })

    const canonical = canonicalBinding(binding)
    if (!canonical.ok) return false
    const expected = hmac(this.#key, signingInput(canonical, parsed.expiresAtMs, parsed.nonce))
    return (
      expected.length === parsed.signature.length && timingSafeEqual(expected, parsed.signature)
    )
  }

  /** Nonces currently remembered; each is forgotten only after it expires. */
  get ledgerSize(): number {
    return this.#used.size
  }

  // Runs only when the ledger is full, and pops expired entries off a heap, so
  // each burned nonce costs O(log n) once instead of a scan of the ledger.
  #evictExpired(now: number): void {
    for (let next = this.#expiries.peek(); next !== undefined; next = this.#expiries.peek()) {
      if (next.expiresAtMs > now) return
      this.#expiries.pop()
      this.#used.delete(next.nonce)
    }
  }
}

function assertConsentKey(key: unknown): asserts key is Buffer {
  // A shorter key weakens every signature; a longer one means the caller
  // passed the wrong secret (the bearer token, say). Either way, refuse.
  if (!Buffer.isBuffer(key) || key.length !== CONSENT_KEY_BYTES) {
    throw new TypeError(`consent key must be a ${CONSENT_KEY_BYTES}-byte Buffer`)
  }
}

/** Validates the subject against its kind's schema and returns its RFC 8785
 *  form, or why it cannot be bound. Reads `kind` and `subject` once each. */
function canonicalBinding(binding: unknown): CanonicalBinding {
  if (typeof binding !== 'object' || binding === null) {
    return { ok: false, reason: 'binding must be an object' }
  }
  const { kind, subject } = binding as { kind?: unknown; subject?: unknown }
  // Own keys only: `toString` or `__proto__` is no kind.
  if (typeof kind !== 'string' || !Object.hasOwn(SUBJECT_SCHEMAS, kind)) {
    return { ok: false, reason: `binding.kind must be one of ${CONSENT_KINDS.join(', ')}` }
  }
  const known = kind as ConsentKind
  const result = SUBJECT_SCHEMAS[known].safeParse(subject)
  if (!result.success) {
    const details = z.prettifyError(result.error)
    return { ok: false, reason: `binding.subject is not a valid ${kind} subject:\n${details}` }
  }
  return { ok: true, kind: known, canonicalSubject: canonicalJson(result.data) }
}

// Newline-separated: the tag, kind, digits and base64url cannot contain one,
// and canonical JSON escapes it inside strings, so no two different bindings
// can produce the same signed string.
function signingInput(
  binding: { kind: ConsentKind; canonicalSubject: string },
  expiresAtMs: number,
  nonce: string,
): string {
  return [DOMAIN_TAG, binding.kind, binding.canonicalSubject, String(expiresAtMs), nonce].join('\n')
}

// createHmac with a Buffer key re-imports the key on every call, which costs
// several times the HMAC itself (Node 24); a KeyObject is imported once.
function hmac(key: KeyObject, input: string): Buffer {
  return createHmac('sha256', key).update(input, 'utf8').digest()
}

/** The caller's key buffer → a copy of its bytes and their KeyObject. Weak,
 *  so a key is forgotten with the connection that held it. */
const mintingKeys = new WeakMap<Buffer, { bytes: Buffer; secret: KeyObject }>()

/** The KeyObject for `key`'s current bytes: a buffer whose bytes changed
 *  since it was imported is imported again, never signed with the old key. */
function mintingKey(key: Buffer): KeyObject {
  const cached = mintingKeys.get(key)
  if (cached && timingSafeEqual(cached.bytes, key)) return cached.secret
  const entry = { bytes: Buffer.from(key), secret: createSecretKey(key) }
  mintingKeys.set(key, entry)
  return entry.secret
}

// One randomBytes(16) call per nonce costs more than the HMAC itself; filling
// a pool from the same CSPRNG costs one native call per 256 nonces (Node's
// randomUUID does the same). Every byte is handed out once, and a nonce is
// public in its token anyway, so holding the next ones in memory reveals
// nothing a token would not.
const NONCE_POOL = Buffer.alloc(NONCE_BYTES * 256)
let noncePoolOffset = NONCE_POOL.length

function pooledRandomBytes(size: number): Buffer {
  if (size > NONCE_POOL.length) return randomFillSync(Buffer.alloc(size))
  if (noncePoolOffset + size > NONCE_POOL.length) {
    randomFillSync(NONCE_POOL)
    noncePoolOffset = 0
  }
  const bytes = Buffer.from(NONCE_POOL.subarray(noncePoolOffset, noncePoolOffset + size))
  noncePoolOffset += size
  return bytes
}

/** Node's decoder ignores non-zero padding bits, so several strings decode to
 *  the same bytes; only the one that re-encodes to itself is accepted. */
function decodeCanonicalBase64url(text: string, byteLength: number): Buffer | null {
  const bytes = Buffer.from(text, 'base64url')
  if (bytes.length !== byteLength || bytes.toString('base64url') !== text) return null
  return bytes
}

interface LedgerEntry {
  readonly expiresAtMs: number
  readonly nonce: string
}

/** Binary min-heap of ledger entries by expiry, so eviction touches only
 *  what has expired, whatever order tokens were presented in. */
class ExpiryHeap {
  readonly #items: LedgerEntry[] = []

  peek(): LedgerEntry | undefined {
    return this.#items[0]
  }

  push(entry: LedgerEntry): void {
    const items = this.#items
    let index = items.length
    items.push(entry)
    while (index > 0) {
      const parentIndex = (index - 1) >> 1
      const parent = items[parentIndex]!
      if (parent.expiresAtMs <= entry.expiresAtMs) break
      items[index] = parent
      index = parentIndex
    }
    items[index] = entry
  }

  pop(): LedgerEntry | undefined {
    const items = this.#items
    const top = items[0]
    const last = items.pop()
    if (last === undefined || items.length === 0) return top
    let index = 0
    for (;;) {
      const left = 2 * index + 1
      if (left >= items.length) break
      const right = left + 1
      const childIndex =
        right < items.length && items[right]!.expiresAtMs < items[left]!.expiresAtMs ? right : left
      const child = items[childIndex]!
      if (child.expiresAtMs >= last.expiresAtMs) break
      items[index] = child
      index = childIndex
    }
    items[index] = last
    return top
  }
}
