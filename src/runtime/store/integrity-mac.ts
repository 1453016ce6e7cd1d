import { createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto'
import { canonicalJson } from '../../contracts/canonical-json.ts'
import type { IntegrityProblem } from '../ports/audit-trail.ts'

export const INTEGRITY_KEY_BYTES = 32

/** What a MAC vouches for. Each kind signs under its own domain, so a MAC
 *  copied from one kind of row can never pass for another. */
export type SealedKind = 'audit-event' | 'audit-head' | 'room' | 'grant' | 'approver-webhook'

const MAC_PATTERN = /^[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]$/

/**
 * HMAC-SHA256 under the integrity key (kept in the OS keychain by main, handed
 * to the runtime over IPC) over a domain-separated, RFC 8785-canonical row.
 * Whoever can write the SQLite file but does not hold the key can change a
 * row; they cannot make its MAC verify.
 */
export class IntegrityMac {
  /** Imported once: a `Buffer` key is re-imported by every `createHmac`,
   *  which cost more than the HMAC itself. `createSecretKey` copies the
   *  bytes, so a later change to the caller's buffer changes nothing. */
  readonly #key: KeyObject

  constructor(key: Buffer) {
    if (key.length !== INTEGRITY_KEY_BYTES) {
      throw new Error(`the integrity key must be ${INTEGRITY_KEY_BYTES} bytes`)
    }
    this.#key = createSecretKey(Buffer.from(key))
  }

  sign(kind: SealedKind, content: unknown): string {
    return this.#digest(kind, content).toString('base64url')
  }

  /** Constant-time; a missing or malformed MAC never verifies. */
  verify(kind: SealedKind, content: unknown, mac: string | null): boolean {
    if (mac === null || !MAC_PATTERN.test(mac)) return false
    return timingSafeEqual(Buffer.from(mac, 'base64url'), this.#digest(kind, content))
  }

  #digest(kind: SealedKind, content: unknown): Buffer {
    return createHmac('sha256', this.#key)
      .update(`assent-integrity-v1\u0000${kind}\u0000${canonicalJson(content)}`, 'utf8')
      .digest()
  }
}

export type { RowIntegrity } from '../../contracts/room.ts'
export type { IntegrityProblem } from '../ports/audit-trail.ts'

export type OnTampered = (problem: IntegrityProblem) => void
