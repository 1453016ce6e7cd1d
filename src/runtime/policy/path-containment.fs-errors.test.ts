import type * as Fs from 'node:fs'
import { lstatSync, readlinkSync, realpathSync } from 'node:fs'
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { isInsideRoot, resolveInside } from './path-containment.ts'

// How containment fails when the file system itself says no. The tests run
// as root (as CI does), where permissions never refuse; a refusal is stood
// in for by making realpath or lstat throw for one path, exactly as the
// kernel would (an Error with `code`). Everything else is the real file
// system.
vi.mock('node:fs', async (importOriginal) => {
  const actual = await importOriginal<typeof Fs>()
  return {
    ...actual,
    realpathSync: Object.assign(vi.fn(actual.realpathSync), {
      native: vi.fn(actual.realpathSync.native),
    }),
    lstatSync: vi.fn(actual.lstatSync),
    readlinkSync: vi.fn(actual.readlinkSync),
  }
})

const actual = await vi.importActual<typeof Fs>('node:fs')
const realpathNative = realpathSync.native

let base: string
let ws: string

beforeAll(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), 'assent-contain-errors-')))
  ws = path.join(base, 'ws')
  await mkdir(path.join(ws, 'a'), { recursive: true })
  await writeFile(path.join(ws, 'a', 'note.txt'), 'inside')
  await symlink(path.join(ws, 'loop2'), path.join(ws, 'loop1'))
  await symlink(path.join(ws, 'loop1'), path.join(ws, 'loop2'))
  // Dangling, and lexically inside, but through "..": refused on principle.
  await symlink('a/../later.txt', path.join(ws, 'dangling-dotdot'))
  // A chain of exactly 40 dangling links, the kernel's own limit.
  for (let hop = 1; hop <= 40; hop += 1) {
    const target = hop === 40 ? path.join(ws, 'chain-end.txt') : path.join(ws, `chain-${hop + 1}`)
    await symlink(target, path.join(ws, `chain-${hop}`))
  }
})

afterEach(() => {
  vi.mocked(realpathNative).mockImplementation(actual.realpathSync.native)
  vi.mocked(lstatSync).mockImplementation(actual.lstatSync)
  vi.mocked(readlinkSync).mockImplementation(actual.readlinkSync)
})

afterAll(async () => {
  await rm(base, { recursive: true, force: true })
})

function fsError(code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: refused by the file system`), { code })
}

/** Makes `fn` throw `code` for exactly `target`. */
function refuse(fn: typeof realpathNative | typeof lstatSync, target: string, code: string): void {
  const real = fn === realpathNative ? actual.realpathSync.native : actual.lstatSync
  vi.mocked(fn).mockImplementation(((p: string, ...rest: unknown[]) => {
    if (p === target) throw fsError(code)
    return (real as (...args: unknown[]) => unknown)(p, ...rest)
  }) as never)
}

/** Makes every look at `target` throw `code`, as the kernel refuses
 *  anything below a directory that may not be searched. */
function refuseEveryLook(target: string, code: string): void {
  refuse(realpathNative, target, code)
  const real = actual.lstatSync
  vi.mocked(lstatSync).mockImplementation(((p: string, ...rest: unknown[]) => {
    if (p === target) throw fsError(code)
    return (real as (...args: unknown[]) => unknown)(p, ...rest)
  }) as never)
}

describe('a file system that refuses to resolve a path', () => {
  it.each(['EACCES', 'EPERM'])(
    'fails closed on %s from the file system, saying so',
    async (code) => {
      const target = path.join(ws, 'a', 'locked', 'x.txt')
      refuseEveryLook(target, code)
      expect(await resolveInside(ws, 'a/locked/x.txt')).toEqual({
        ok: false,
        code: 'invalid_path',
        reason: 'permission denied while resolving it',
      })
    },
  )

  it.each(['EACCES', 'EPERM'])(
    'fails closed on %s from realpath of a name that exists',
    async (code) => {
      refuse(realpathNative, path.join(ws, 'a', 'note.txt'), code)
      expect(await resolveInside(ws, 'a/note.txt')).toEqual({
        ok: false,
        code: 'invalid_path',
        reason: 'permission denied while resolving it',
      })
    },
  )

  it('fails closed when lstat refuses to look at the name', async () => {
    const target = path.join(ws, 'a', 'hidden.txt')
    refuse(lstatSync, target, 'EACCES')
    expect(await resolveInside(ws, 'a/hidden.txt')).toEqual({
      ok: false,
      code: 'invalid_path',
      reason: 'permission denied while resolving it',
    })
  })

  it('fails closed when a dangling link cannot be read, and takes one gone since as missing', async () => {
    const link = path.join(ws, 'chain-40')
    vi.mocked(readlinkSync).mockImplementation(((p: string, ...rest: unknown[]) => {
      if (p === link) throw fsError('EACCES')
      return (actual.readlinkSync as (...args: unknown[]) => unknown)(p, ...rest)
    }) as never)
    expect(await resolveInside(ws, 'chain-40')).toEqual({
      ok: false,
      code: 'invalid_path',
      reason: 'permission denied while resolving it',
    })
    vi.mocked(readlinkSync).mockImplementation(((p: string, ...rest: unknown[]) => {
      if (p === link) throw fsError('ENOENT')
      return (actual.readlinkSync as (...args: unknown[]) => unknown)(p, ...rest)
    }) as never)
    expect(await resolveInside(ws, 'chain-40')).toEqual({ ok: true, path: link })
  })

  it('passes any other error on as it is', async () => {
    refuseEveryLook(path.join(ws, 'a', 'odd'), 'EIO')
    expect(await resolveInside(ws, 'a/odd')).toEqual({
      ok: false,
      code: 'invalid_path',
      reason: 'EIO: refused by the file system',
    })
    refuse(realpathNative, path.join(ws, 'a', 'note.txt'), 'EIO')
    expect(await resolveInside(ws, 'a/note.txt')).toEqual({
      ok: false,
      code: 'invalid_path',
      reason: 'EIO: refused by the file system',
    })
  })
})

describe('a name that does not exist yet', () => {
  it('costs status calls only: no failed realpath and no thrown error', async () => {
    vi.mocked(realpathNative).mockClear()
    vi.mocked(lstatSync).mockClear()
    vi.mocked(readlinkSync).mockClear()
    const missing = path.join(ws, 'a', 'new', 'file.txt')
    expect(await resolveInside(ws, 'a/new/file.txt')).toEqual({ ok: true, path: missing })
    const realpathed = vi.mocked(realpathNative).mock.calls.map(([p]) => String(p))
    expect(realpathed).not.toContain(missing)
    expect(realpathed).not.toContain(path.dirname(missing))
    expect(vi.mocked(lstatSync).mock.results.every((result) => result.type === 'return')).toBe(true)
    expect(readlinkSync).not.toHaveBeenCalled()
    expect(vi.mocked(lstatSync).mock.calls.map(([p]) => String(p))).toEqual([
      missing,
      path.dirname(missing),
      path.join(ws, 'a'),
    ])
  })
})

describe('the real file system', () => {
  it('names a symlink loop', async () => {
    expect(await resolveInside(ws, 'loop1')).toEqual({
      ok: false,
      code: 'invalid_path',
      reason: 'too many levels of symbolic links',
    })
  })

  it('treats a path below a file as not existing yet (ENOTDIR)', async () => {
    expect(await resolveInside(ws, 'a/note.txt/child')).toEqual({
      ok: true,
      path: path.join(ws, 'a', 'note.txt', 'child'),
    })
  })

  it('refuses a dangling symlink whose target goes through "..", even back inside', async () => {
    expect(await resolveInside(ws, 'dangling-dotdot')).toEqual({
      ok: false,
      code: 'invalid_path',
      reason: `the dangling symlink ${path.join(ws, 'dangling-dotdot')} points through ".."`,
    })
  })

  it('follows a chain of 40 dangling symlinks, the most the kernel follows', async () => {
    expect(await resolveInside(ws, 'chain-1')).toEqual({
      ok: true,
      path: path.join(ws, 'chain-end.txt'),
    })
  })

  it('names the segment, the root and the escape in its refusals', async () => {
    expect(await resolveInside(ws, 'a/../a')).toEqual({
      ok: false,
      code: 'invalid_path',
      reason: 'the path contains a ".." segment',
    })
    const gone = path.join(base, 'gone')
    const missingRoot = await resolveInside(gone, 'a')
    expect(missingRoot).toMatchObject({ ok: false, code: 'root_unavailable' })
    expect(missingRoot.ok ? '' : missingRoot.reason).toMatch(
      new RegExp(`^the root ${gone} cannot be resolved: ENOENT`),
    )
    expect(await resolveInside(ws, base)).toEqual({
      ok: false,
      code: 'outside_root',
      reason: `${base} resolves to ${base}, outside ${ws}`,
    })
  })
})

describe('isInsideRoot with relative input', () => {
  it('refuses a relative path even where the current directory would put it inside', () => {
    expect(isInsideRoot(process.cwd(), 'x')).toBe(false)
    expect(isInsideRoot('.', path.join(process.cwd(), 'x'))).toBe(false)
  })
})
