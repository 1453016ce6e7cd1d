import type * as fs from 'node:fs'
import { closeSync, constants, existsSync, mkdirSync, readdirSync, rmdirSync } from 'node:fs'
import { mkdir, mkdtemp, realpath, rename, rm, symlink, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { DirectoryHandle, errorCode } from './anchored-directory.ts'

let ws: string

beforeEach(async () => {
  ws = await realpath(await mkdtemp(path.join(os.tmpdir(), 'assent-anchored-')))
})

afterEach(async () => {
  vi.restoreAllMocks()
  vi.unstubAllGlobals()
  await rm(ws, { recursive: true, force: true })
})

/** The error `act` rejects with, as code and message. */
async function failure(act: () => Promise<unknown>): Promise<string> {
  try {
    await act()
    return 'done'
  } catch (error) {
    return `${String(errorCode(error))}: ${(error as Error).message}`
  }
}

describe('a directory handle', () => {
  it('is opened only from an absolute path', async () => {
    expect(await failure(() => DirectoryHandle.open('relative/dir', { create: false }))).toBe(
      'undefined: not an absolute path: relative/dir',
    )
  })

  it('makes no directory unless asked, and makes the missing ones when asked', async () => {
    const deep = path.join(ws, 'a', 'b')
    expect(await failure(() => DirectoryHandle.open(deep, { create: false }))).toMatch(/^ENOENT/)
    await expect(realpath(path.join(ws, 'a'))).rejects.toMatchObject({ code: 'ENOENT' })
    const made = await DirectoryHandle.open(deep, { create: true })
    expect(made.shownPath).toBe(deep)
    expect((await made.stat()).isDirectory()).toBe(true)
    await made.close()
  })

  it('opens a directory that someone else made between its look and its own mkdir', async () => {
    const parent = await DirectoryHandle.open(ws, { create: false })
    const realEntry = DirectoryHandle.prototype.entry
    let calls = 0
    vi.spyOn(DirectoryHandle.prototype, 'entry').mockImplementation(function (
      this: DirectoryHandle,
      name: string,
    ) {
      calls += 1
      // The second look at the name is the mkdir: someone makes it first.
      if (name === 'raced' && calls === 2) mkdirSync(path.join(ws, 'raced'))
      return realEntry.call(this, name)
    })
    const child = await parent.openChild('raced', { create: true })
    expect(child.shownPath).toBe(path.join(ws, 'raced'))
    await child.close()
    await parent.close()
  })

  it('makes a directory once: one removed between its mkdir and its open is not made again', async () => {
    const parent = await DirectoryHandle.open(ws, { create: true })
    const realEntry = DirectoryHandle.prototype.entry
    const looks: string[] = []
    vi.spyOn(DirectoryHandle.prototype, 'entry').mockImplementation(function (
      this: DirectoryHandle,
      name: string,
    ) {
      looks.push(name)
      // The second look is the mkdir: someone makes the directory first, so
      // it finds it made. The third is the open after it: by then someone
      // has removed it. Making it again would open a directory nobody chose.
      if (looks.length === 2) mkdirSync(path.join(ws, 'flicker'))
      if (looks.length === 3) rmdirSync(path.join(ws, 'flicker'))
      return realEntry.call(this, name)
    })
    expect(() => parent.openChildSync('flicker', { create: true })).toThrow(
      expect.objectContaining({ code: 'ENOENT' }),
    )
    expect(looks).toEqual(['flicker', 'flicker', 'flicker'])
    expect(existsSync(path.join(ws, 'flicker'))).toBe(false)
    vi.restoreAllMocks()
    await parent.close()
  })

  it('names a symbolic link in the path by its full path, and a file in the path as not a directory', async () => {
    await mkdir(path.join(ws, 'real'))
    await symlink(path.join(ws, 'real'), path.join(ws, 'link'))
    await writeFile(path.join(ws, 'file'), 'x')
    expect(
      await failure(() => DirectoryHandle.open(path.join(ws, 'link', 'x'), { create: true })),
    ).toBe(
      `symlink_refused: ${path.join(ws, 'link')} is a symbolic link; Assent does not follow it`,
    )
    expect(
      await failure(() => DirectoryHandle.open(path.join(ws, 'file'), { create: false })),
    ).toMatch(/^ENOTDIR/)
  })

  it('opens no file through a symbolic link in its place', async () => {
    await writeFile(path.join(ws, 'target'), 'x')
    await symlink(path.join(ws, 'target'), path.join(ws, 'link'))
    const dir = await DirectoryHandle.open(ws, { create: false })
    try {
      expect(await failure(() => dir.openFile('link', constants.O_RDONLY))).toMatch(/^ELOOP/)
    } finally {
      await dir.close()
    }
  })

  it('reports an absent entry as null and any other failure as the failure', async () => {
    const dir = await DirectoryHandle.open(ws, { create: false })
    try {
      expect(await dir.lstat('absent')).toBeNull()
      expect(await failure(() => dir.lstat('n'.repeat(300)))).toMatch(/^ENAMETOOLONG/)
    } finally {
      await dir.close()
    }
  })

  it('accepts only a single entry name', async () => {
    const dir = await DirectoryHandle.open(ws, { create: false })
    try {
      for (const name of ['', '.', '..', 'a/b', 'a\0b']) {
        expect(() => dir.entry(name), JSON.stringify(name)).toThrow(
          `not a single directory entry: ${JSON.stringify(name)}`,
        )
      }
    } finally {
      await dir.close()
    }
  })
})

describe('a directory handle used synchronously', () => {
  it('opens, looks and closes without waiting, and refuses a link in the path the same way', async () => {
    await mkdir(path.join(ws, 'real'))
    await writeFile(path.join(ws, 'real', 'f'), 'x')
    await symlink(path.join(ws, 'real'), path.join(ws, 'link'))
    const dir = DirectoryHandle.openSync(path.join(ws, 'real'), { create: false })
    try {
      expect(dir.shownPath).toBe(path.join(ws, 'real'))
      expect(dir.lstatSync('f')?.isFile()).toBe(true)
      expect(dir.lstatSync('absent')).toBeNull()
      expect(() => dir.lstatSync('n'.repeat(300))).toThrow(/ENAMETOOLONG/)
    } finally {
      dir.closeSync()
    }
    expect(() => DirectoryHandle.openSync(path.join(ws, 'link'), { create: false })).toThrow(
      `${path.join(ws, 'link')} is a symbolic link; Assent does not follow it`,
    )
    expect(() => DirectoryHandle.openSync('relative', { create: false })).toThrow(
      'not an absolute path: relative',
    )
  })

  it('opens no file through a symbolic link in its place, and opens the file itself', async () => {
    await writeFile(path.join(ws, 'target'), 'x')
    await symlink(path.join(ws, 'target'), path.join(ws, 'link'))
    const dir = DirectoryHandle.openSync(ws, { create: false })
    try {
      expect(() => dir.openFileSync('link', constants.O_RDONLY)).toThrow(/ELOOP/)
      const fd = dir.openFileSync('target', constants.O_RDONLY)
      closeSync(fd)
    } finally {
      dir.closeSync()
    }
  })

  it('renames and lists in the directory it holds, even once its path names a link elsewhere', async () => {
    await mkdir(path.join(ws, 'held', 'inner'), { recursive: true })
    await writeFile(path.join(ws, 'held', 'HEAD'), 'x')
    await symlink('/', path.join(ws, 'held', 'root-link'))
    await mkdir(path.join(ws, 'elsewhere'))
    await writeFile(path.join(ws, 'elsewhere', 'HEAD'), 'y')
    const dir = DirectoryHandle.openSync(path.join(ws, 'held'), { create: false })
    try {
      // The held folder is moved, and a link to another takes its name.
      await rename(path.join(ws, 'held'), path.join(ws, 'moved'))
      await symlink(path.join(ws, 'elsewhere'), path.join(ws, 'held'))
      const kinds = dir
        .entriesSync()
        .map(
          (entry) =>
            `${entry.name}:${entry.isDirectory() ? 'd' : entry.isSymbolicLink() ? 'l' : 'f'}`,
        )
        .sort()
      expect(kinds).toEqual(['HEAD:f', 'inner:d', 'root-link:l'])
      dir.renameSync('HEAD', 'HEAD.renamed')
    } finally {
      dir.closeSync()
    }
    expect(readdirSync(path.join(ws, 'moved')).sort()).toEqual([
      'HEAD.renamed',
      'inner',
      'root-link',
    ])
    expect(readdirSync(path.join(ws, 'elsewhere'))).toEqual(['HEAD'])
  })

  it('closes once: a second close does nothing, and a closed handle names nothing', async () => {
    const before = readdirSync('/proc/self/fd').length
    const dir = DirectoryHandle.openSync(ws, { create: false })
    expect(readdirSync('/proc/self/fd').length).toBe(before + 1)
    await dir.close()
    expect(readdirSync('/proc/self/fd').length).toBe(before)
    // Another open may now hold the same number: a second close must not
    // close it.
    const other = DirectoryHandle.openSync(ws, { create: false })
    dir.closeSync()
    await dir.close()
    expect(readdirSync('/proc/self/fd').length).toBe(before + 1)
    expect(() => dir.entry('f')).toThrow(`${ws} is no longer open`)
    expect(() => dir.selfPath()).toThrow(`${ws} is no longer open`)
    other.closeSync()
    expect(readdirSync('/proc/self/fd').length).toBe(before)
  })

  it('closes every directory it opened on the way when a component is missing', () => {
    const before = readdirSync('/proc/self/fd').length
    expect(() => DirectoryHandle.openSync(path.join(ws, 'no', 'such'), { create: false })).toThrow(
      /ENOENT/,
    )
    expect(readdirSync('/proc/self/fd').length).toBe(before)
  })
})

describe('where directory handles cannot be had', () => {
  it('are reported unavailable, and every open is refused', async () => {
    const platform = Object.getOwnPropertyDescriptor(process, 'platform')
    Object.defineProperty(process, 'platform', { value: 'darwin', configurable: true })
    try {
      vi.resetModules()
      const fresh = await import('./anchored-directory.ts')
      expect(await fresh.directoryHandlesAvailable()).toBe(false)
      expect(await failure(() => fresh.DirectoryHandle.open(ws, { create: false }))).toBe(
        'unsupported_platform: this system offers no directory handles (Linux /proc/self/fd), so Assent does not touch the file',
      )
    } finally {
      if (platform) Object.defineProperty(process, 'platform', platform)
      vi.resetModules()
    }
  })
})

describe('the probe for directory handles', () => {
  it('finds them on this Linux system and leaves no descriptor open', async () => {
    vi.resetModules()
    const fresh = await import('./anchored-directory.ts')
    const before = readdirSync('/proc/self/fd').length
    expect(await fresh.directoryHandlesAvailable()).toBe(true)
    expect(readdirSync('/proc/self/fd').length).toBe(before)
    vi.resetModules()
  })
})

describe('the probe where the descriptor shows another directory', () => {
  it('finds no handles when the same inode number sits on another device', async () => {
    // /proc cannot be made to report another directory here, so node:fs is
    // replaced for this import only: the look through the descriptor shows
    // the root's inode number on another device.
    vi.resetModules()
    vi.doMock('node:fs', async (importOriginal) => {
      const real = await importOriginal<typeof fs>()
      const lstatSync: typeof real.lstatSync = ((target: string, options?: object) => {
        const stats = real.lstatSync(target, options as never)
        if (typeof target !== 'string' || !target.startsWith('/proc/self/fd/')) return stats
        return Object.assign(
          Object.create(Object.getPrototypeOf(stats) as object) as object,
          stats,
          {
            dev: (stats as unknown as { dev: bigint }).dev + 1n,
          },
        )
      }) as typeof real.lstatSync
      return { ...real, default: { ...real, lstatSync }, lstatSync }
    })
    try {
      const fresh = await import('./anchored-directory.ts')
      expect(await fresh.directoryHandlesAvailable()).toBe(false)
    } finally {
      vi.doUnmock('node:fs')
      vi.resetModules()
    }
  })
})

describe('an error code', () => {
  it('is read from an error, and is absent from anything else', () => {
    expect(errorCode(Object.assign(new Error('x'), { code: 'EEXIST' }))).toBe('EEXIST')
    expect(errorCode(null)).toBeUndefined()
    expect(errorCode(new Error('x'))).toBeUndefined()
  })
})
