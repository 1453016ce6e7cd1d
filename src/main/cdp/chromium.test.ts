import { describe, expect, it } from 'vitest'
import { chromiumArgs, chromiumSandboxNote } from './chromium.ts'

describe('the flags Chromium starts with', () => {
  it('turns Chromium’s own sandbox off only for root, and says so', () => {
    expect(chromiumArgs(0)).toContain('--no-sandbox')
    expect(chromiumSandboxNote(0)).toContain('--no-sandbox')
  })

  it('keeps Chromium’s sandbox for an ordinary user, and says nothing', () => {
    expect(chromiumArgs(1000)).not.toContain('--no-sandbox')
    expect(chromiumSandboxNote(1000)).toBeNull()
  })

  it('keeps Chromium’s sandbox where there are no user ids (Windows)', () => {
    expect(chromiumArgs(null)).not.toContain('--no-sandbox')
  })

  it('keeps the flags that hold Chromium off the network for everyone', () => {
    for (const uid of [0, 1000]) {
      expect(chromiumArgs(uid)).toEqual(
        expect.arrayContaining(['--disable-background-networking', '--disable-quic']),
      )
    }
  })

  it('follows this process: as root here, the sandbox is off', () => {
    const root = process.getuid?.() === 0
    expect(chromiumArgs().includes('--no-sandbox')).toBe(root)
  })
})
