import { createHash } from 'node:crypto'

/** SHA-256 of the UTF-8 text, as lowercase hex: the form every digest the
 *  runtime stores or binds (action digests, audit hashes) is written in. */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex')
}

/** A secret hashed for comparison: `timingSafeEqual` on two digests takes
 *  the same time whatever the secrets' lengths and contents (a bearer
 *  credential, a gateway call's cancel key). */
export function secretDigest(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest()
}
