import { createHmac } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { IntegrityMac } from './integrity-mac.ts'

const KEY = Buffer.alloc(32, 1)
const ROOM = { id: 'r1', policyJson: '{"approvalPolicy":"auto"}', revision: 3 }

describe('IntegrityMac', () => {
  it('verifies what it signed', () => {
    const mac = new IntegrityMac(KEY)
    expect(mac.verify('room', ROOM, mac.sign('room', ROOM))).toBe(true)
  })

  it('is HMAC-SHA256 over a domain-separated canonical row', () => {
    const expected = createHmac('sha256', KEY)
      .update(
        'assent-integrity-v1\u0000room\u0000{"id":"r1","policyJson":"{\\"approvalPolicy\\":\\"auto\\"}","revision":3}',
      )
      .digest('base64url')
    expect(new IntegrityMac(KEY).sign('room', ROOM)).toBe(expected)
  })

  it('keeps its own copy of the key: the caller zeroing its buffer changes nothing', () => {
    const key = Buffer.alloc(32, 1)
    const mac = new IntegrityMac(key)
    const before = mac.sign('room', ROOM)
    key.fill(0)
    expect(mac.sign('room', ROOM)).toBe(before)
    expect(before).toBe(new IntegrityMac(KEY).sign('room', ROOM))
  })

  it('refuses a MAC made under another key', () => {
    const forged = new IntegrityMac(Buffer.alloc(32, 2)).sign('room', ROOM)
    expect(new IntegrityMac(KEY).verify('room', ROOM, forged)).toBe(false)
  })

  it('refuses a MAC moved to another kind of row or to changed content', () => {
    const mac = new IntegrityMac(KEY)
    const sealed = mac.sign('room', ROOM)
    expect(mac.verify('grant', ROOM, sealed)).toBe(false)
    expect(mac.verify('room', { ...ROOM, revision: 4 }, sealed)).toBe(false)
  })

  it('refuses a missing, malformed or non-canonical MAC', () => {
    const mac = new IntegrityMac(KEY)
    const sealed = mac.sign('room', ROOM)
    expect(mac.verify('room', ROOM, null)).toBe(false)
    expect(mac.verify('room', ROOM, '')).toBe(false)
    expect(mac.verify('room', ROOM, `${sealed}=`)).toBe(false)
    expect(mac.verify('room', ROOM, sealed.slice(0, -1))).toBe(false)
    // Same 32 bytes would decode from a non-canonical last character.
    const last = sealed.at(-1) ?? 'A'
    const sibling = String.fromCharCode(last.charCodeAt(0) + 1)
    expect(mac.verify('room', ROOM, `${sealed.slice(0, -1)}${sibling}`)).toBe(false)
  })

  it('accepts only a 32-byte key', () => {
    expect(() => new IntegrityMac(Buffer.alloc(16))).toThrow('32 bytes')
  })
})
