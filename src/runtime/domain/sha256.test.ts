import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { sha256Hex } from './sha256.ts'

describe('sha256Hex', () => {
  it('hashes the UTF-8 bytes of the text (FIPS 180-2 vector and a non-ASCII one)', () => {
    expect(sha256Hex('abc')).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    )
    // '€' is E2 82 AC in UTF-8 (not 20 AC as UTF-16, not a Latin-1 '?').
    expect(sha256Hex('€')).toBe(
      createHash('sha256')
        .update(Buffer.from([0xe2, 0x82, 0xac]))
        .digest('hex'),
    )
  })
})
