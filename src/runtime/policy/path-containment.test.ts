import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises'
import { existsSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { isInsideRoot, resolveInside, resolveTarget } from './path-containment.ts'

let base: string
let ws: string
let outside: string

beforeAll(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), 'assent-contain-')))
  ws = path.join(base, 'ws')
  outside = path.join(base, 'outside')
  await mkdir(path.join(ws, 'a', 'b'), { recursive: true })
  await mkdir(path.join(ws, 'b'), { recursive: true })
  await mkdir(outside)
  await mkdir(path.join(base, 'ws-evil'))
  await writeFile(path.join(ws, 'a', 'note.txt'), 'inside')
  await writeFile(path.join(outside, 'secret.txt'), 'outside')
  await symlink(outside, path.join(ws, 'link-out'))
  await symlink(path.join(outside, 'secret.txt'), path.join(ws, 'file-link-out'))
  await symlink(path.join(ws, 'a'), path.join(ws, 'link-in'))
  // chain: hop1 -> hop2 -> outside
  await symlink(outside, path.join(ws, 'hop2'))
  await symlink(path.join(ws, 'hop2'), path.join(ws, 'hop1'))
  // dangling links: one pointing outside, one inside
  await symlink(path.join(outside, 'not-yet.txt'), path.join(ws, 'dangling-out'))
  await symlink(path.join(ws, 'a', 'later.txt'), path.join(ws, 'dangling-in'))
  await symlink(path.join(ws, 'loop2'), path.join(ws, 'loop1'))
  await symlink(path.join(ws, 'loop1'), path.join(ws, 'loop2'))
})

afterAll(async () => {
  await rm(base, { recursive: true, force: true })
})

describe('isInsideRoot', () => {
  it('accepts the root itself and its children', () => {
    expect(isInsideRoot('/tmp/ws', '/tmp/ws')).toBe(true)
    expect(isInsideRoot('/tmp/ws', '/tmp/ws/a/b')).toBe(true)
  })

  it('refuses a sibling whose name merely starts with the root name', () => {
    expect(isInsideRoot('/tmp/ws', '/tmp/ws-evil')).toBe(false)
    expect(isInsideRoot('/tmp/ws', '/tmp/ws-evil/x')).toBe(false)
  })

  it('refuses the parent and other trees', () => {
    expect(isInsideRoot('/tmp/ws', '/tmp')).toBe(false)
    expect(isInsideRoot('/tmp/ws', '/etc/passwd')).toBe(false)
  })

  it('keeps a child named "..foo" inside', () => {
    expect(isInsideRoot('/tmp/ws', '/tmp/ws/..foo')).toBe(true)
  })

  it('refuses relative paths instead of guessing what they are relative to', () => {
    expect(isInsideRoot('/tmp/ws', 'a')).toBe(false)
    expect(isInsideRoot('ws', '/tmp/ws')).toBe(false)
  })
})

describe('resolveInside', () => {
  it('resolves a relative path to the real file inside the root', async () => {
    expect(await resolveInside(ws, 'a/note.txt')).toEqual({
      ok: true,
      path: path.join(ws, 'a', 'note.txt'),
    })
  })

  it('accepts an absolute path inside the root', async () => {
    const r = await resolveInside(ws, path.join(ws, 'a'))
    expect(r).toEqual({ ok: true, path: path.join(ws, 'a') })
  })

  it('treats the empty path as the root itself', async () => {
    expect(await resolveInside(ws, '')).toEqual({ ok: true, path: ws })
  })

  it('drops trailing separators', async () => {
    expect(await resolveInside(ws, 'a/b/')).toEqual({ ok: true, path: path.join(ws, 'a', 'b') })
  })

  it('refuses an absolute path outside the root', async () => {
    const r = await resolveInside(ws, path.join(outside, 'secret.txt'))
    expect(r).toMatchObject({ ok: false, code: 'outside_root' })
  })

  it('refuses a ".." segment even when it would land back inside', async () => {
    expect(await resolveInside(ws, 'a/../a/note.txt')).toMatchObject({
      ok: false,
      code: 'invalid_path',
    })
    expect(await resolveInside(ws, '../outside/secret.txt')).toMatchObject({
      ok: false,
      code: 'invalid_path',
    })
    expect(await resolveInside(ws, 'a\\..\\..\\outside')).toMatchObject({
      ok: false,
      code: 'invalid_path',
    })
  })

  it('refuses a path with a NUL byte', async () => {
    const r = await resolveInside(ws, 'a/note.txt\0.png')
    expect(r).toMatchObject({ ok: false, code: 'invalid_path' })
    if (!r.ok) expect(r.reason).toMatch(/NUL/)
  })

  it('refuses a directory symlink that points outside', async () => {
    expect(await resolveInside(ws, 'link-out')).toMatchObject({ ok: false, code: 'outside_root' })
    expect(await resolveInside(ws, 'link-out/secret.txt')).toMatchObject({
      ok: false,
      code: 'outside_root',
    })
  })

  it('refuses a file symlink that points outside', async () => {
    expect(await resolveInside(ws, 'file-link-out')).toMatchObject({
      ok: false,
      code: 'outside_root',
    })
  })

  it('follows a symlink chain to where it ends', async () => {
    expect(await resolveInside(ws, 'hop1/secret.txt')).toMatchObject({
      ok: false,
      code: 'outside_root',
    })
  })

  it('returns the real target of a symlink that stays inside', async () => {
    expect(await resolveInside(ws, 'link-in/note.txt')).toEqual({
      ok: true,
      path: path.join(ws, 'a', 'note.txt'),
    })
  })

  it('accepts a nested path that does not exist yet inside the root', async () => {
    expect(await resolveInside(ws, 'new/deeper/file.txt')).toEqual({
      ok: true,
      path: path.join(ws, 'new', 'deeper', 'file.txt'),
    })
    expect(existsSync(path.join(ws, 'new'))).toBe(false)
  })

  it('refuses a not-yet-existing path under a symlinked directory pointing outside', async () => {
    const r = await resolveInside(ws, 'link-out/new/dir/file.txt')
    expect(r).toMatchObject({ ok: false, code: 'outside_root' })
  })

  it('follows a dangling symlink to where a write would create the file', async () => {
    expect(await resolveInside(ws, 'dangling-out')).toMatchObject({
      ok: false,
      code: 'outside_root',
    })
    expect(await resolveInside(ws, 'dangling-in')).toEqual({
      ok: true,
      path: path.join(ws, 'a', 'later.txt'),
    })
  })

  it('refuses a symlink loop', async () => {
    expect(await resolveInside(ws, 'loop1')).toMatchObject({ ok: false, code: 'invalid_path' })
  })

  it('refuses a prefix look-alike sibling of the root', async () => {
    const r = await resolveInside(ws, path.join(base, 'ws-evil'))
    expect(r).toMatchObject({ ok: false, code: 'outside_root' })
  })

  it('compares against the real root when the root is reached through a symlink', async () => {
    const alias = path.join(base, 'ws-alias')
    await symlink(ws, alias)
    expect(await resolveInside(alias, 'a/note.txt')).toEqual({
      ok: true,
      path: path.join(ws, 'a', 'note.txt'),
    })
    expect(await resolveInside(alias, path.join(alias, 'a'))).toEqual({
      ok: true,
      path: path.join(ws, 'a'),
    })
  })

  it('refuses everything when the root does not exist', async () => {
    expect(await resolveInside(path.join(base, 'missing'), 'a')).toMatchObject({
      ok: false,
      code: 'root_unavailable',
    })
  })
})

describe('resolveTarget', () => {
  it('resolves outside paths without judging them', async () => {
    expect(await resolveTarget('link-out/secret.txt', ws)).toEqual({
      ok: true,
      path: path.join(outside, 'secret.txt'),
    })
  })

  it('still refuses ".." and NUL', async () => {
    expect(await resolveTarget('../x', ws)).toMatchObject({ ok: false, code: 'invalid_path' })
    expect(await resolveTarget('x\0', ws)).toMatchObject({ ok: false, code: 'invalid_path' })
  })
})

describe('containment property', () => {
  const segment = fc.constantFrom(
    '..',
    '.',
    'a',
    'b',
    'A',
    'B',
    'link-out',
    'LINK-OUT',
    'link-in',
    'hop1',
    'dangling-out',
    'file-link-out',
    '\u2024\u2024',
    '\uff0e\uff0e',
    '..\u2215',
    'a/',
    '',
    'new',
  )
  const requested = fc
    .tuple(fc.boolean(), fc.array(segment, { maxLength: 7 }), fc.boolean())
    .map(([absolute, parts, trailing]) => {
      const joined = parts.join('/') + (trailing ? '/' : '')
      return absolute ? path.join(ws, joined) : joined
    })

  it('never resolves to a path outside the real root', async () => {
    // Counted, so the property cannot pass by refusing every path: enough
    // must resolve (and be checked) for it to mean anything.
    const tally = { resolved: 0, refused: 0 }
    await fc.assert(
      fc.asyncProperty(requested, async (req) => {
        const r = await resolveInside(ws, req)
        if (req.split('/').includes('..')) expect(r.ok).toBe(false)
        if (!r.ok) {
          tally.refused += 1
          return
        }
        tally.resolved += 1
        expect(isInsideRoot(ws, r.path)).toBe(true)
        // The existing part of the answer must itself be real and inside:
        // no symlink is left in it for a later act to follow out.
        let existing = r.path
        while (!existsSync(existing)) existing = path.dirname(existing)
        expect(isInsideRoot(ws, await realpath(existing))).toBe(true)
        expect(await realpath(existing)).toBe(existing)
      }),
      { numRuns: 400 },
    )
    expect(tally.resolved).toBeGreaterThan(400 / 10)
    expect(tally.refused).toBeGreaterThan(400 / 10)
  })
})
