import {
  createCipheriv,
  createDecipheriv,
  createSecretKey,
  hkdfSync,
  randomBytes as nodeRandomBytes,
  type KeyObject,
} from 'node:crypto'

const IV_BYTES = 12
/** `v1.<12-byte iv>.<ciphertext>.<16-byte tag>`, base64url. */
const SEALED_PATTERN = /^v1\.([A-Za-z0-9_-]{16})\.([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]{22})$/

/**
 * Seals secrets the runtime must keep but nobody reading the SQLite file may
 * learn (an approver webhook's signing secret): AES-256-GCM under a key
 * derived from the integrity key (HKDF-SHA256, its own label, so the MAC key
 * and this key are never the same bytes). `context` is authenticated with
 * the secret, so a sealed value copied to another row does not open there.
 */
export class SecretSealer {
  readonly #key: KeyObject
  private readonly randomBytes: (size: number) => Buffer

  constructor(integrityKey: Buffer, randomBytes: (size: number) => Buffer = nodeRandomBytes) {
    const derived = hkdfSync('sha256', integrityKey, Buffer.alloc(0), 'assent-sealed-secret/v1', 32)
    this.#key = createSecretKey(Buffer.from(derived))
    this.randomBytes = randomBytes
  }

  seal(secret: string, context: string): string {
    const iv = this.randomBytes(IV_BYTES)
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv)
    cipher.setAAD(Buffer.from(context, 'utf8'))
    const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()])
    return ['v1', iv, sealed, cipher.getAuthTag()].map(encode).join('.')
  }

  /** The secret, or undefined for anything that does not open under this
   *  key and context (edited, moved, or sealed under another key). */
  open(sealed: string, context: string): string | undefined {
    const match = SEALED_PATTERN.exec(sealed)
    if (!match) return undefined
    const [, iv = '', body = '', tag = ''] = match
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.#key, Buffer.from(iv, 'base64url'))
      decipher.setAAD(Buffer.from(context, 'utf8'))
      decipher.setAuthTag(Buffer.from(tag, 'base64url'))
      const plain = Buffer.concat([
        decipher.update(Buffer.from(body, 'base64url')),
        decipher.final(),
      ])
      return plain.toString('utf8')
    } catch {
      return undefined
    }
  }
}

function encode(part: string | Buffer): string {
  return typeof part === 'string' ? part : part.toString('base64url')
}
