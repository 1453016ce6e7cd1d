import { existsSync } from 'node:fs'
import {
  chmod,
  link,
  mkdir,
  mkdtemp,
  readFile,
  readdir,
  realpath,
  rm,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { FileTarget } from '../../contracts/file-target.ts'
import { DirectoryHandle, directoryHandlesAvailable } from './anchored-directory.ts'
import { observeTarget } from './file-target.ts'
import { MAX_DELETE_DEPTH, removeEntry, replaceFile } from './safe-file-ops.ts'

let root: string
let ws: string
let outside: string
let victim: string

beforeEach(async () => {
  root = await realpath(await mkdtemp(path.join(os.tmpdir(), 'assent-safe-ops-')))
  ws = path.join(root, 'ws')
  outside = path.join(root, 'outside')
  await mkdir(ws)
  await mkdir(outside)
  victim = path.join(outside, 'victim.txt')
  await writeFile(victim, 'the person’s own file\n')
})

afterEach(async () => {
  await rm(root, { recursive: true, force: true })
})

/** Runs `act` and returns the code it was refused with, or 'done'. */
async function outcome(act: () => Promise<unknown>): Promise<string> {
  try {
    await act()
    return 'done'
  } catch (error) {
    return String((error as { code?: unknown }).code ?? (error as Error).message)
  }
}

async function outsideUntouched(): Promise<void> {
  expect(await readFile(victim, 'utf8')).toBe('the person’s own file\n')
  expect(await readdir(outside)).toEqual(['victim.txt'])
}

describe('directory handles', () => {
  it('are available on this Linux system, so the file tools can run here', async () => {
    expect(await directoryHandlesAvailable()).toBe(true)
  })

  it('open nothing through a symbolic link anywhere in the path', async () => {
    await symlink(outside, path.join(ws, 'link'))
    expect(
      await outcome(() => DirectoryHandle.open(path.join(ws, 'link'), { create: false })),
    ).toBe('symlink_refused')
    await mkdir(path.join(outside, 'deeper'))
    expect(
      await outcome(() => DirectoryHandle.open(path.join(ws, 'link', 'deeper'), { create: true })),
    ).toBe('symlink_refused')
  })

  it('name only single entries of the directory they hold', async () => {
    const dir = await DirectoryHandle.open(ws, { create: false })
    try {
      for (const name of ['', '.', '..', 'a/b', '../outside']) {
        expect(() => dir.entry(name), name).toThrow('not a single directory entry')
      }
      expect(dir.entry('note.txt')).toMatch(/^\/proc\/self\/fd\/\d+\/note\.txt$/)
    } finally {
      await dir.close()
    }
  })

  it('keep acting in the directory they opened after it is renamed', async () => {
    await mkdir(path.join(ws, 'a'))
    const dir = await DirectoryHandle.open(path.join(ws, 'a'), { create: false })
    try {
      await symlink(outside, path.join(ws, 'b'))
      const { rename } = await import('node:fs/promises')
      await rename(path.join(ws, 'a'), path.join(ws, 'moved'))
      await rename(path.join(ws, 'b'), path.join(ws, 'a'))
      await writeFile(dir.entry('x.txt'), 'x')
    } finally {
      await dir.close()
    }
    expect(existsSync(path.join(ws, 'moved', 'x.txt'))).toBe(true)
    await outsideUntouched()
  })
})

describe('writing a file', () => {
  it('creates the file and its missing directories', async () => {
    const target = path.join(ws, 'a', 'b', 'new.txt')
    expect(await replaceFile(target, 'hello\n')).toEqual({ replaced: false })
    expect(await readFile(target, 'utf8')).toBe('hello\n')
  })

  it('replaces the directory entry, never writing into the file it named', async () => {
    const target = path.join(ws, 'note.txt')
    await writeFile(target, 'old')
    const before = await stat(target)
    expect(await replaceFile(target, 'new')).toEqual({ replaced: true })
    expect(await readFile(target, 'utf8')).toBe('new')
    expect((await stat(target)).ino).not.toBe(before.ino)
  })

  it('refuses a file with another name (a hard link) and leaves both names as they were', async () => {
    const hardLink = path.join(ws, 'hl.txt')
    await link(victim, hardLink)
    expect(await outcome(() => replaceFile(hardLink, 'agent bytes'))).toBe('hard_linked_target')
    await outsideUntouched()
    expect((await stat(hardLink)).ino).toBe((await stat(victim)).ino)
  })

  it('refuses a symbolic link in the target’s place instead of following it', async () => {
    const target = path.join(ws, 'note.txt')
    await symlink(victim, target)
    expect(await outcome(() => replaceFile(target, 'agent bytes'))).toBe('symlink_refused')
    await outsideUntouched()
  })

  it('refuses when a directory of the path is a symbolic link', async () => {
    await symlink(outside, path.join(ws, 'sub'))
    expect(await outcome(() => replaceFile(path.join(ws, 'sub', 'victim.txt'), 'x'))).toBe(
      'symlink_refused',
    )
    expect(await outcome(() => replaceFile(path.join(ws, 'sub', 'new.txt'), 'x'))).toBe(
      'symlink_refused',
    )
    await outsideUntouched()
  })

  it('refuses a directory in the target’s place', async () => {
    await mkdir(path.join(ws, 'dir'))
    expect(await outcome(() => replaceFile(path.join(ws, 'dir'), 'x'))).toBe('EISDIR')
  })

  it('keeps the replaced file’s permission bits but never set-user-ID', async () => {
    const target = path.join(ws, 'tool.sh')
    await writeFile(target, 'old')
    await chmod(target, 0o4750)
    await replaceFile(target, 'new')
    expect((await stat(target)).mode & 0o7777).toBe(0o750)
  })

  it('leaves no temporary file behind, written or refused', async () => {
    const target = path.join(ws, 'note.txt')
    await replaceFile(target, 'a')
    await link(victim, path.join(ws, 'hl.txt'))
    await outcome(() => replaceFile(path.join(ws, 'hl.txt'), 'b'))
    expect((await readdir(ws)).sort()).toEqual(['hl.txt', 'note.txt'])
  })

  it('creates its temporary file exclusively, hidden beside the target, and never removes one it did not create', async () => {
    // An occupied temporary name makes the exclusive create fail, which
    // shows the name used; the occupant must survive the cleanup.
    const cases = [
      { target: 'short.txt', temporary: '.short.txt.assent-r4nd0m.tmp' },
      { target: 'n'.repeat(200), temporary: `.${'n'.repeat(200)}.assent-r4nd0m.tmp` },
      { target: 'n'.repeat(201), temporary: '.assent-r4nd0m.tmp' },
    ]
    for (const { target, temporary } of cases) {
      await writeFile(path.join(ws, temporary), 'theirs')
      await expect(
        replaceFile(path.join(ws, target), 'x', { randomName: () => 'r4nd0m' }),
      ).rejects.toMatchObject({ code: 'EEXIST' })
      expect(await readFile(path.join(ws, temporary), 'utf8')).toBe('theirs')
      expect(existsSync(path.join(ws, target))).toBe(false)
      await rm(path.join(ws, temporary))
    }
    await replaceFile(path.join(ws, 'n'.repeat(250)), 'x', { randomName: () => 'r4nd0m' })
    expect(await readdir(ws)).toEqual(['n'.repeat(250)])
  })
})

describe('writing against the target bound at approval', () => {
  const absent = (p: string): FileTarget => ({ path: p, exists: false })

  it('writes when the target is still the file the person was shown', async () => {
    const target = path.join(ws, 'note.txt')
    await writeFile(target, 'old')
    const { target: bound } = await observeTarget(target, { readContent: true })
    await replaceFile(target, 'new', { bound })
    expect(await readFile(target, 'utf8')).toBe('new')
  })

  it('refuses a hard link made after the approval where it saw no file', async () => {
    const target = path.join(ws, 'hl.txt')
    await link(victim, target)
    expect(await outcome(() => replaceFile(target, 'x', { bound: absent(target) }))).toBe(
      'target_changed',
    )
    await outsideUntouched()
  })

  it('refuses a file that appeared where the approval saw none', async () => {
    const target = path.join(ws, 'note.txt')
    await writeFile(target, 'someone else’s')
    expect(await outcome(() => replaceFile(target, 'x', { bound: absent(target) }))).toBe(
      'target_changed',
    )
    expect(await readFile(target, 'utf8')).toBe('someone else’s')
  })

  it('refuses when the file was replaced by another since the approval', async () => {
    const target = path.join(ws, 'note.txt')
    await writeFile(target, 'old')
    const { target: bound } = await observeTarget(target, { readContent: true })
    await rm(target)
    await writeFile(target, 'old')
    expect(await outcome(() => replaceFile(target, 'x', { bound }))).toBe('target_changed')
  })

  it('refuses when the content the preview was computed against changed', async () => {
    const target = path.join(ws, 'note.txt')
    await writeFile(target, 'old')
    const { target: bound } = await observeTarget(target, { readContent: true })
    await writeFile(target, 'changed in place')
    expect(await outcome(() => replaceFile(target, 'x', { bound }))).toBe('target_changed')
    expect(await readFile(target, 'utf8')).toBe('changed in place')
  })

  it('refuses a second name made for the file since the approval', async () => {
    const target = path.join(ws, 'note.txt')
    await writeFile(target, 'old')
    const { target: bound } = await observeTarget(target, { readContent: true })
    await link(target, path.join(outside, 'second-name.txt'))
    expect(await outcome(() => replaceFile(target, 'x', { bound }))).toBe('target_changed')
  })
})

describe('deleting', () => {
  it('deletes a file, and an empty directory', async () => {
    await writeFile(path.join(ws, 'gone.txt'), 'x')
    await mkdir(path.join(ws, 'empty'))
    expect(await removeEntry(path.join(ws, 'gone.txt'), { recursive: false })).toEqual({
      kind: 'file',
    })
    expect(await removeEntry(path.join(ws, 'empty'), { recursive: false })).toEqual({
      kind: 'empty-directory',
    })
    expect(await readdir(ws)).toEqual([])
  })

  it('refuses a file with another name, leaving both', async () => {
    await link(victim, path.join(ws, 'hl.txt'))
    expect(await outcome(() => removeEntry(path.join(ws, 'hl.txt'), { recursive: false }))).toBe(
      'hard_linked_target',
    )
    expect(existsSync(path.join(ws, 'hl.txt'))).toBe(true)
    await outsideUntouched()
  })

  it('removes a symbolic link as a link, never what it points to', async () => {
    await symlink(victim, path.join(ws, 'link'))
    await removeEntry(path.join(ws, 'link'), { recursive: false })
    expect(existsSync(path.join(ws, 'link'))).toBe(false)
    await outsideUntouched()
  })

  it('removes a tree without following a link inside it', async () => {
    await mkdir(path.join(ws, 'tree', 'a', 'b'), { recursive: true })
    await writeFile(path.join(ws, 'tree', 'a', 'b', 'f.txt'), 'x')
    await writeFile(path.join(ws, 'tree', 'top.txt'), 'x')
    await symlink(outside, path.join(ws, 'tree', 'a', 'to-outside'))
    expect(await removeEntry(path.join(ws, 'tree'), { recursive: true })).toEqual({
      kind: 'tree',
      files: 3,
      directories: 2,
    })
    expect(await readdir(ws)).toEqual([])
    await outsideUntouched()
  })

  it('refuses a whole tree that holds a file with another name, removing nothing', async () => {
    await mkdir(path.join(ws, 'tree', 'a'), { recursive: true })
    await writeFile(path.join(ws, 'tree', 'first.txt'), 'x')
    await link(victim, path.join(ws, 'tree', 'a', 'hl.txt'))
    expect(await outcome(() => removeEntry(path.join(ws, 'tree'), { recursive: true }))).toBe(
      'hard_linked_target',
    )
    expect(existsSync(path.join(ws, 'tree', 'first.txt'))).toBe(true)
    await outsideUntouched()
  })

  it('removes a tree exactly as deep as it holds handles for, and refuses one a level deeper', async () => {
    const levels = (n: number) => Array.from({ length: n }, () => 'd')
    const fits = path.join(ws, 'fits', ...levels(MAX_DELETE_DEPTH - 1))
    await mkdir(fits, { recursive: true })
    expect(await removeEntry(path.join(ws, 'fits'), { recursive: true })).toEqual({
      kind: 'tree',
      files: 0,
      directories: MAX_DELETE_DEPTH - 1,
    })
    const deepest = path.join(ws, 'deep', ...levels(MAX_DELETE_DEPTH))
    await mkdir(deepest, { recursive: true })
    await expect(removeEntry(path.join(ws, 'deep'), { recursive: true })).rejects.toMatchObject({
      code: 'too_deep',
      message: `${deepest} is nested more than ${MAX_DELETE_DEPTH} levels deep`,
    })
    expect(existsSync(deepest)).toBe(true)
  })

  it('writes against a target observed without its content, as a delete observes it', async () => {
    const target = path.join(ws, 'note.txt')
    await writeFile(target, 'old')
    const { target: bound } = await observeTarget(target, { readContent: false })
    await replaceFile(target, 'new', { bound })
    expect(await readFile(target, 'utf8')).toBe('new')
  })

  it('refuses a non-empty directory without recursive', async () => {
    await mkdir(path.join(ws, 'full'))
    await writeFile(path.join(ws, 'full', 'f'), 'x')
    expect(await outcome(() => removeEntry(path.join(ws, 'full'), { recursive: false }))).toBe(
      'ENOTEMPTY',
    )
  })

  it('refuses when the target is no longer the one bound at approval', async () => {
    const target = path.join(ws, 'old.txt')
    await writeFile(target, 'x')
    const { target: bound } = await observeTarget(target, { readContent: false })
    await rm(target)
    await writeFile(target, 'a new file under the old name')
    expect(await outcome(() => removeEntry(target, { recursive: false, bound }))).toBe(
      'target_changed',
    )
    expect(await readFile(target, 'utf8')).toBe('a new file under the old name')
  })

  it('refuses a missing target', async () => {
    expect(await outcome(() => removeEntry(path.join(ws, 'nope'), { recursive: false }))).toBe(
      'ENOENT',
    )
  })
})

describe('what a refusal says', () => {
  /** The refusal's message, or 'done'. */
  async function message(act: () => Promise<unknown>): Promise<string> {
    try {
      await act()
      return 'done'
    } catch (error) {
      return (error as Error).message
    }
  }

  it('names what it found, in words a person reads', async () => {
    const hardLink = path.join(ws, 'hl.txt')
    await link(victim, hardLink)
    expect(await message(() => replaceFile(hardLink, 'x'))).toBe(
      `${hardLink} has 2 names (hard links), so it is reachable from outside what was checked; Assent changes only files with a single name`,
    )
    const link2 = path.join(ws, 'link.txt')
    await symlink(victim, link2)
    expect(await message(() => replaceFile(link2, 'x'))).toBe(
      `${link2} is a symbolic link; Assent does not follow it`,
    )
    await mkdir(path.join(ws, 'dir'))
    expect(await message(() => replaceFile(path.join(ws, 'dir'), 'x'))).toBe(
      `${path.join(ws, 'dir')} is a directory`,
    )
    expect(await message(() => removeEntry(path.join(ws, 'gone'), { recursive: false }))).toBe(
      `${path.join(ws, 'gone')} does not exist`,
    )
    const absent: FileTarget = { path: path.join(ws, 'new.txt'), exists: false }
    await writeFile(path.join(ws, 'new.txt'), 'x')
    expect(
      await message(() => replaceFile(path.join(ws, 'new.txt'), 'y', { bound: absent })),
    ).toMatch(
      new RegExp(
        `^${path.join(ws, 'new.txt')} is now a file \\(device \\d+, inode \\d+, 1 name\\); the approval was for nothing$`,
      ),
    )
  })

  it('writes the new content whole, as UTF-8, in a file only the owner may change', async () => {
    const target = path.join(ws, 'new.txt')
    await replaceFile(target, 'naïve ✓\n')
    expect(await readFile(target)).toEqual(Buffer.from('naïve ✓\n', 'utf8'))
    expect((await stat(target)).mode & 0o022).toBe(0)
  })
})
