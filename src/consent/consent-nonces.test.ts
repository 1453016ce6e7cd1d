import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { ConsentTokenVerifier, MAX_FUTURE_SKEW_MS, MAX_USED_NONCES } from './consent-token.ts'
import {
  NoncePool,
  POOL_NONCES,
  deriveConsentKeys,
  sealNonce,
  sealedByMain,
} from './consent-nonces.ts'
import {
  RUNS,
  T0,
  KEY,
  keyBytes,
  nonceBytes,
  SAMPLE_APPROVAL,
  SAMPLE_ROOM,
  anyBinding,
  mint,
  segments,
  verifierAt,
  expectGenuine,
} from './test-support/consent-token-fixtures.ts'

/** What main sealed into a token's nonce, read with the key derived from
 *  `key`: the tag, the mint second and the random part. */
function openNonce(token: string, key = KEY) {
  const decipher = createDecipheriv('aes-256-ecb', deriveConsentKeys(key).sealing, null)
  decipher.setAutoPadding(false)
  const plain = Buffer.concat([
    decipher.update(Buffer.from(segments(token).nonce, 'base64url')),
    decipher.final(),
  ])
  return {
    tag: plain.subarray(0, 2).toString('latin1'),
    second: plain.readUIntBE(2, 6),
    random: plain.subarray(8),
  }
}

/** A well-formed, unexpired token that main never minted. */
function forgedToken(expiresAtMs: number, nonce = randomBytes(16), signature = randomBytes(32)) {
  return `v1.${expiresAtMs}.${nonce.toString('base64url')}.${signature.toString('base64url')}`
}

describe('consent nonces: sealed by main, so only main’s nonces take ledger slots', () => {
  it('seals the tag, the second it was minted in and the random bytes', () => {
    fc.assert(
      fc.property(nonceBytes, fc.nat(10 ** 7), (bytes, offsetMs) => {
        const now = T0 + offsetMs
        const opened = openNonce(mint(SAMPLE_APPROVAL, { now, nonce: bytes }))
        expect(opened).toEqual({
          tag: 'as',
          second: Math.floor(now / 1_000),
          random: Buffer.from(bytes),
        })
      }),
      RUNS,
    )
  })

  it('seals the tag, the mint second and the given random bytes of one fixed nonce', () => {
    const keys = deriveConsentKeys(KEY)
    const random = Buffer.from('0102030405060708', 'hex')
    const nonce = sealNonce(keys, T0 + 1_234, random)
    const decipher = createDecipheriv('aes-256-ecb', keys.sealing, null).setAutoPadding(false)
    const plain = Buffer.concat([
      decipher.update(Buffer.from(nonce, 'base64url')),
      decipher.final(),
    ])
    expect(plain.toString('hex')).toBe(
      `6173${(T0 / 1_000 + 1).toString(16).padStart(12, '0')}0102030405060708`,
    )
  })

  it('seals pooled nonces the same way, one pool per mint second', () => {
    const seconds = [T0 + 999, T0 + 1_000, T0 + 999, T0 + 5_500].map((now) => {
      const opened = openNonce(mint(SAMPLE_APPROVAL, { now }))
      expect(opened.tag).toBe('as')
      return opened.second
    })
    expect(seconds).toEqual([T0 / 1_000, T0 / 1_000 + 1, T0 / 1_000, T0 / 1_000 + 5])
  })

  it('never hands out a pooled nonce twice, across pool refills and keys', () => {
    const seen = new Set<string>()
    const otherKey = randomBytes(32)
    for (let index = 0; index < 1_500; index += 1) {
      // A new second every 100 mints forces refills before a pool runs out.
      const now = T0 + Math.floor(index / 100) * 1_000
      seen.add(segments(mint(SAMPLE_APPROVAL, { now })).nonce)
      seen.add(segments(mint(SAMPLE_APPROVAL, { now, key: otherKey })).nonce)
    }
    expect(seen.size).toBe(3_000)
  })

  it('seals with a key derived from the consent key, never the key itself', () => {
    fc.assert(
      fc.property(keyBytes, keyBytes, (one, other) => {
        fc.pre(!one.equals(other))
        const sealing = deriveConsentKeys(one).sealing.export()
        expect(sealing.equals(one)).toBe(false)
        expect(sealing.equals(deriveConsentKeys(other).sealing.export())).toBe(false)
        expect(sealing.equals(deriveConsentKeys(Buffer.from(one)).sealing.export())).toBe(true)
      }),
      RUNS,
    )
  })

  it('gives no ledger slot to 65 536 forged tokens, and a genuine token verifies after them', () => {
    const verifier = new ConsentTokenVerifier({ key: KEY, now: () => T0 })
    const forgeries = MAX_USED_NONCES + 1_024
    let refused = 0
    for (let index = 0; index < forgeries; index += 1) {
      const forged = forgedToken(T0 + 1 + (index % MAX_FUTURE_SKEW_MS))
      if (!verifier.verify(forged, index % 2 === 0 ? SAMPLE_APPROVAL : SAMPLE_ROOM)) refused += 1
    }
    expect(refused).toBe(forgeries)
    expect(verifier.ledgerSize).toBe(0)
    const genuine = mint(SAMPLE_APPROVAL)
    expect(verifier.verify(genuine, SAMPLE_APPROVAL)).toBe(true)
    expect(verifier.verify(genuine, SAMPLE_APPROVAL)).toBe(false)
  })

  it('gives no slot to a token whose nonce another key sealed', () => {
    fc.assert(
      fc.property(anyBinding, keyBytes, nonceBytes, (binding, otherKey, bytes) => {
        fc.pre(!otherKey.equals(KEY))
        const foreign = mint(binding, { key: otherKey, nonce: bytes })
        const verifier = verifierAt(T0)
        expect(verifier.verify(foreign, binding)).toBe(false)
        expect(verifier.ledgerSize).toBe(0)
      }),
      RUNS,
    )
  })

  it('burns a sealed nonce only for an expiry main could have given it', () => {
    // Minted at T0 (a whole second): main can give expiries T0 + 1 ms up to
    // T0 + 999 ms + 60 s. A forger who copies the nonce can pick any expiry;
    // outside that window the nonce takes no slot.
    const { nonce, sig } = segments(mint(SAMPLE_APPROVAL))
    const presentAt = (now: number, expiresAtMs: number) => {
      const verifier = verifierAt(now)
      expect(verifier.verify(`v1.${expiresAtMs}.${nonce}.${sig}`, SAMPLE_APPROVAL)).toBe(false)
      return verifier.ledgerSize
    }
    const lastExpiry = T0 + 999 + MAX_FUTURE_SKEW_MS
    expect(presentAt(T0 + 20_000, lastExpiry)).toBe(1)
    expect(presentAt(T0 + 20_000, lastExpiry + 1)).toBe(0)
    expect(presentAt(T0 - 5_000, T0 + 1)).toBe(1)
    expect(presentAt(T0 - 5_000, T0)).toBe(0)
  })

  it('gives no slot to a nonce sealed with main’s key but not main’s tag', () => {
    // What a forger who could encrypt but did not know the tag would send: a
    // valid mint second, any other tag.
    const sealing = deriveConsentKeys(KEY).sealing
    const presentWithTag = (tag: number) => {
      const plain = Buffer.alloc(16, 0x11)
      plain.writeUInt16BE(tag, 0)
      plain.writeUIntBE(T0 / 1_000, 2, 6)
      const cipher = createCipheriv('aes-256-ecb', sealing, null).setAutoPadding(false)
      const nonce = Buffer.concat([cipher.update(plain), cipher.final()])
      const verifier = verifierAt(T0)
      expect(verifier.verify(forgedToken(T0 + 30_000, nonce), SAMPLE_APPROVAL)).toBe(false)
      return verifier.ledgerSize
    }
    expect(presentWithTag(0x6173)).toBe(1)
    for (const tag of [0x0000, 0x6174, 0x7361, 0xe173, 0xffff]) expect(presentWithTag(tag)).toBe(0)
  })

  it('derives the sealing key as HMAC-SHA256(consent key, the tag and " nonce key")', () => {
    const expected = createHmac('sha256', KEY).update('assent-consent-token/v1 nonce key').digest()
    expect(deriveConsentKeys(KEY).sealing.export().equals(expected)).toBe(true)
    // Signatures are HMACs under the consent key itself.
    const signed = createHmac('sha256', KEY).update('signed').digest('base64url')
    expect(deriveConsentKeys(KEY).signing.base64url('signed')).toBe(signed)
  })

  it('opens a nonce sealed for another expiry window as not main’s', () => {
    const keys = deriveConsentKeys(KEY)
    const token = mint(SAMPLE_ROOM, { now: T0 + 400 })
    const nonce = Buffer.from(segments(token).nonce, 'base64url')
    expect(sealedByMain(keys, nonce, T0 + 400 + 30_000, MAX_FUTURE_SKEW_MS)).toBe(true)
    expect(sealedByMain(keys, nonce, T0 + 400 + 30_000, 29_000)).toBe(false)
    expect(sealedByMain(deriveConsentKeys(randomBytes(32)), nonce, T0 + 30_000, 60_000)).toBe(false)
    expectGenuine(token, SAMPLE_ROOM)
  })
})

describe('NoncePool: one sealed batch per mint second, each nonce handed out once', () => {
  const keys = deriveConsentKeys(KEY)
  const SECOND = T0 / 1_000

  /** A pool whose random parts are numbered: nonce `slot` of fill `fill`
   *  carries the number fill * 1 000 + slot, so every nonce says which batch
   *  and which place in it it came from. */
  function numberedPool() {
    const filled = { count: 0 }
    const pool = new NoncePool(keys, (buffer) => {
      filled.count += 1
      for (let slot = 0; slot * 16 < buffer.length; slot += 1) {
        buffer.writeUIntBE(filled.count * 1_000 + slot, slot * 16 + 10, 6)
      }
      return buffer
    })
    return { pool, filled }
  }

  /** The mint second and the number sealed into a pooled nonce. */
  function opened(nonce: string) {
    const decipher = createDecipheriv('aes-256-ecb', keys.sealing, null).setAutoPadding(false)
    const plain = Buffer.concat([
      decipher.update(Buffer.from(nonce, 'base64url')),
      decipher.final(),
    ])
    return { second: plain.readUIntBE(2, 6), number: plain.readUIntBE(10, 6) }
  }

  /** Whether main sealed `nonce` in exactly the second starting at `secondMs`:
   *  with no lifetime, only expiries inside that second are accepted. */
  const sealedIn = (nonce: string, secondMs: number) =>
    sealedByMain(keys, Buffer.from(nonce, 'base64url'), secondMs + 1, 0)

  it('hands out a whole batch within one second from one fill, in order', () => {
    const { pool, filled } = numberedPool()
    const nonces: string[] = []
    for (let index = 0; index < POOL_NONCES; index += 1) {
      // Any millisecond of the same second.
      nonces.push(pool.take(T0 + (index % 1_000)))
      expect(filled.count, `take ${index}`).toBe(1)
    }
    expect(nonces.map((nonce) => opened(nonce).number)).toEqual(
      nonces.map((_, slot) => 1_000 + slot),
    )
    for (const nonce of nonces) {
      expect(nonce).toMatch(/^[A-Za-z0-9_-]{21}[AQgw]$/)
      expect(sealedIn(nonce, T0)).toBe(true)
    }
    expect(new Set(nonces).size).toBe(POOL_NONCES)
  })

  it('refills when the batch is used up, and never hands out a nonce twice', () => {
    const { pool, filled } = numberedPool()
    const nonces = Array.from({ length: 2 * POOL_NONCES + 1 }, () => pool.take(T0 + 500))
    expect(filled.count).toBe(3)
    expect(opened(nonces[POOL_NONCES - 1]!).number).toBe(1_000 + POOL_NONCES - 1)
    expect(opened(nonces[POOL_NONCES]!).number).toBe(2_000)
    expect(opened(nonces[2 * POOL_NONCES]!).number).toBe(3_000)
    expect(new Set(nonces).size).toBe(nonces.length)
    for (const nonce of nonces) expect(sealedIn(nonce, T0)).toBe(true)
  })

  it('refills when the mint second changes, so no nonce is sealed for another second', () => {
    const { pool, filled } = numberedPool()
    // Forward one second, then back (a clock step back), each time with most
    // of the batch unused.
    const takes = [T0 + 999, T0 + 999, T0 + 1_000, T0 + 1_999, T0 + 999, T0 + 5_500]
    const nonces = takes.map((now) => pool.take(now))
    expect(filled.count).toBe(4)
    expect(nonces.map((nonce) => opened(nonce))).toEqual([
      { second: SECOND, number: 1_000 },
      { second: SECOND, number: 1_001 },
      { second: SECOND + 1, number: 2_000 },
      { second: SECOND + 1, number: 2_001 },
      { second: SECOND, number: 3_000 },
      { second: SECOND + 5, number: 4_000 },
    ])
    takes.forEach((now, index) => {
      const secondMs = Math.floor(now / 1_000) * 1_000
      const nonce = nonces[index]!
      expect(sealedIn(nonce, secondMs), `take ${index}`).toBe(true)
      expect(sealedIn(nonce, secondMs - 1_000)).toBe(false)
      expect(sealedIn(nonce, secondMs + 1_000)).toBe(false)
    })
    expect(new Set(nonces).size).toBe(nonces.length)
  })
})
