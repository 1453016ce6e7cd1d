import { describe, expect, it } from 'vitest'
import { seatbeltProfile } from './seatbelt-profile.ts'
import type { CommandSandboxPolicy } from './sandbox-policy.ts'

const policy: CommandSandboxPolicy = {
  writableRoots: ['/Users/ada/project'],
  hiddenAncestors: [],
  readOnlyInside: ['/Users/ada/project/.git'],
  hidden: [
    { path: '/Users/ada/.ssh', kind: 'folder' },
    { path: '/Users/ada/Library/Application Support/Assent', kind: 'folder' },
  ],
  hiddenFileFolders: [],
  privateScratch: ['/tmp'],
  network: false,
}

describe('seatbeltProfile', () => {
  const profile = seatbeltProfile(policy)
  const lines = profile.trim().split('\n')
  const lineOf = (text: string) => lines.findIndex((line) => line.includes(text))

  it('denies everything by default and allows reading the disk', () => {
    expect(lines[0]).toBe('(version 1)')
    expect(lines[1]).toBe('(deny default)')
    expect(lines).toContain('(allow file-read*)')
  })

  it('lets the command write in the workspace only', () => {
    expect(lines).toContain('(allow file-write* (subpath "/Users/ada/project"))')
    expect(lines.filter((line) => line.startsWith('(allow file-write*'))).toHaveLength(2)
  })

  it('denies writes to .git after allowing the workspace, so the denial wins', () => {
    const git = lineOf('(deny file-write* (subpath "/Users/ada/project/.git"))')
    expect(git).toBeGreaterThan(lineOf('(allow file-write* (subpath "/Users/ada/project"))'))
  })

  it('denies reading and writing the hidden folders after allowing reads', () => {
    const hidden = lineOf('(deny file-read* file-write* (subpath "/Users/ada/.ssh")')
    expect(hidden).toBeGreaterThan(lineOf('(allow file-read*)'))
    expect(lines[hidden]).toContain('(subpath "/Users/ada/Library/Application Support/Assent")')
  })

  it('denies the network and never opens the keychain’s service', () => {
    expect(lines).toContain('(deny network*)')
    expect(profile).not.toContain('(allow network')
    expect(profile).not.toContain('SecurityServer')
    expect(profile).not.toMatch(/\(allow mach-lookup\)/)
  })

  it('denies making a file setuid or setgid, after every allow, so the denial wins', () => {
    const denial = lines.indexOf('(deny file-write-setugid)')
    expect(denial).toBe(lines.length - 1)
    expect(
      seatbeltProfile({ ...policy, writableRoots: [] })
        .trim()
        .split('\n')
        .at(-1),
    ).toBe('(deny file-write-setugid)')
  })

  it('cannot be broken out of by a path with quotes or backslashes', () => {
    const hostile = seatbeltProfile({
      ...policy,
      writableRoots: ['/Users/ada/a") (allow file-write* (subpath "/'],
    })
    expect(hostile).toContain('(subpath "/Users/ada/a\\") (allow file-write* (subpath \\"/")')
    expect(hostile).not.toContain('(allow file-write* (subpath "/"))')
  })

  it('allows no write at all in a read-only room but the scratch folders', () => {
    const readOnly = seatbeltProfile({ ...policy, writableRoots: [], readOnlyInside: [] })
    expect(readOnly).not.toContain('/Users/ada/project"')
  })
})
