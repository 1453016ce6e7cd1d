import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { chromiumArgs, chromiumLaunchOptions, chromiumSandboxNote } from './chromium.ts'

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

  it('tells Playwright to keep the sandbox for everyone but root (it turns it off unless told)', () => {
    expect(chromiumLaunchOptions(1000)).toMatchObject({ chromiumSandbox: true })
    expect(chromiumLaunchOptions(null)).toMatchObject({ chromiumSandbox: true })
    expect(chromiumLaunchOptions(0)).toMatchObject({ chromiumSandbox: false })
    expect(chromiumLaunchOptions(1000).args).toEqual(chromiumArgs(1000))
  })

  it('is how every Chromium the host starts is launched', () => {
    const folder = import.meta.dirname
    const launches = readdirSync(folder)
      .filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts'))
      .flatMap((name) => {
        const text = readFileSync(join(folder, name), 'utf8')
        return [...text.matchAll(/chromium\.(launch|launchPersistentContext)\(/g)].map((match) => ({
          name,
          call: text.slice(match.index, match.index + 600),
        }))
      })
    expect(launches.length).toBeGreaterThanOrEqual(2)
    for (const { name, call } of launches) {
      expect(
        /chromiumLaunchOptions\(\)|chromiumSandbox: launch\.chromiumSandbox/.test(call),
        name,
      ).toBe(true)
    }
  })
})
