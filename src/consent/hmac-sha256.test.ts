import { createHmac, randomBytes } from 'node:crypto'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { HmacSha256 } from './hmac-sha256.ts'

/** What Node's own HMAC gives for the same key and message. */
function reference(key: Buffer, message: string): string {
  return createHmac('sha256', key).update(message, 'utf8').digest('base64url')
}

const hex = (digest: string) => Buffer.from(digest, 'hex').toString('base64url')

describe('HmacSha256', () => {
  // RFC 4231 §4: the cases whose data is text (3 and 4 are bytes no string
  // spells in UTF-8; 5 is a truncated output).
  it.each([
    {
      name: 'case 1: a 20-byte key',
      key: Buffer.alloc(20, 0x0b),
      data: 'Hi There',
      mac: 'b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7',
    },
    {
      name: 'case 2: a key shorter than the output',
      key: Buffer.from('Jefe'),
      data: 'what do ya want for nothing?',
      mac: '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
    },
    {
      name: 'case 6: a key longer than the block, hashed first',
      key: Buffer.alloc(131, 0xaa),
      data: 'Test Using Larger Than Block-Size Key - Hash Key First',
      mac: '60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54',
    },
    {
      name: 'case 7: a long key and data longer than the block',
      key: Buffer.alloc(131, 0xaa),
      data:
        'This is a test using a larger than block-size key and a larger than block-size data.' +
        ' The key needs to be hashed before being used by the HMAC algorithm.',
      mac: '9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2',
    },
  ])('RFC 4231 $name', ({ key, data, mac }) => {
    expect(new HmacSha256(key).base64url(data)).toBe(hex(mac))
  })

  it('equals createHmac for any key and any text, call after call on one instance', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 0, maxLength: 160 }),
        fc.array(fc.string({ unit: 'grapheme', maxLength: 500 }), { minLength: 1, maxLength: 4 }),
        (keyBytes, messages) => {
          const key = Buffer.from(keyBytes)
          const mac = new HmacSha256(key)
          for (const message of messages)
            expect(mac.base64url(message)).toBe(reference(key, message))
        },
      ),
      { numRuns: 200 },
    )
  })

  // 341 units fit the reusable buffer whatever they are; the widest UTF-8
  // (3 bytes a unit) must fill it exactly and not be cut, and one more unit
  // must take a buffer of its own. A shortened message would still give a
  // digest, of something else.
  it.each([
    ['341 three-byte units, the reusable buffer full', '€'.repeat(341)],
    ['342 three-byte units, a buffer of its own', '€'.repeat(342)],
    ['surrogate pairs across the boundary', '😀'.repeat(170) + 'a' + '😀'.repeat(2)],
    ['a lone surrogate, written as U+FFFD like createHmac writes it', 'a\ud800b'],
    ['ten thousand units', 'ä€😀'.repeat(2_500)],
    ['nothing', ''],
  ])('%s', (_, message) => {
    const key = randomBytes(32)
    expect(new HmacSha256(key).base64url(message)).toBe(reference(key, message))
  })

  it('signs a short message right after a long one and a long one after a short one', () => {
    const key = randomBytes(32)
    const mac = new HmacSha256(key)
    const messages = ['short', 'x'.repeat(5_000), 'short', '€'.repeat(341), 'é', 'y'.repeat(400)]
    for (const message of messages) expect(mac.base64url(message)).toBe(reference(key, message))
  })

  // The view of the reusable buffer is kept per message length: a message
  // of a length already signed must be read from its own bytes.
  it('signs each of several messages of one length as itself', () => {
    const key = randomBytes(32)
    const mac = new HmacSha256(key)
    const messages = ['same-a', 'same-b', 'é-same', 'same-a', '€€', 'abcdef']
    for (const message of messages) expect(mac.base64url(message)).toBe(reference(key, message))
  })

  it('keeps its own copy of the key: changing the caller’s buffer later changes nothing', () => {
    const key = randomBytes(32)
    const original = Buffer.from(key)
    const mac = new HmacSha256(key)
    key.fill(0)
    expect(mac.base64url('after')).toBe(reference(original, 'after'))
  })

  // A key of exactly one block is used as it is; one byte more is hashed
  // first (RFC 2104 §2).
  it.each([63, 64, 65])('takes a key of %i bytes as createHmac does', (length) => {
    const key = randomBytes(length)
    expect(new HmacSha256(key).base64url('block')).toBe(reference(key, 'block'))
  })

  it('refuses a key that is not a Buffer', () => {
    const message = 'an HMAC key must be a Buffer'
    expect(() => new HmacSha256('secret' as unknown as Buffer)).toThrow(new TypeError(message))
    expect(() => new HmacSha256(new Uint8Array(32) as Buffer)).toThrow(new TypeError(message))
  })
})
