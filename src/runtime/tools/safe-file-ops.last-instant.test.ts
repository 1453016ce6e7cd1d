import { execFileSync } from 'node:child_process'
import {
  appendFileSync,
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { mkdir, mkdtemp, readFile, readdir, realpath, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { DirectoryHandle } from './anchored-directory.ts'
import { observeTarget } from './file-target.ts'
import { removeEntry, replaceFile } from './safe-file-ops.ts'

// Changes made at a chosen instant while a file tool acts: the temporary
// name is drawn between the tool's first look and its last one, and the
// directory handle's own methods are the steps of a delete. The changes are
// real file-system changes; only their moment is chosen.

let root: string
let ws: string
let outside: string

beforeEach(async () => {
  root = await realpath(await mkdtemp(path.join(os.tmpdir(), 'assent-last-instant-')))
  ws = path.join(root, 'ws')
  outside = path.join(root, 'outside')
  await mkdir(ws)
  await mkdir(outside)
})

afterEach(async () => {
  vi.restoreAllMocks()
  await rm(root, { recursive: true, force: true })
})

/** Runs `act` and returns the refusal's code and message, or 'done'. */
async function refusal(act: () => Promise<unknown>): Promise<string> {
  try {
    await act()
    return 'done'
  } catch (error) {
    return `${String((error as { code?: unknown }).code)}: ${(error as Error).message}`
  }
}

/** The number of descriptors this process holds open. */
const openDescriptors = () => readdirSync('/proc/self/fd').length

describe('a write whose target changes after the first look', () => {
  const changes: Array<{ name: string; before: string | null; change: (target: string) => void }> =
    [
      {
        name: 'a file created where there was none',
        before: null,
        change: (target) => writeFileSync(target, 'theirs'),
      },
      {
        name: 'the file edited',
        before: 'old',
        change: (target) => appendFileSync(target, ' and theirs'),
      },
      {
        name: 'the file replaced by another',
        before: 'old',
        change: (target) => {
          writeFileSync(`${target}.other`, 'theirs')
          renameSync(`${target}.other`, target)
        },
      },
      {
        name: 'the file given a name outside',
        before: 'old',
        change: (target) => linkSync(target, path.join(outside, 'other-name')),
      },
      { name: 'the file removed', before: 'old', change: (target) => rmSync(target) },
    ]

  for (const { name, before, change } of changes) {
    it(`is refused, writes nothing and leaves no temporary file: ${name}`, async () => {
      const target = path.join(ws, 'note.txt')
      if (before !== null) await writeFile(target, before)
      let after: string | null = null
      const result = await refusal(() =>
        replaceFile(target, 'agent bytes', {
          randomName: () => {
            change(target)
            after = existsSync(target) ? execFileSync('cat', [target], { encoding: 'utf8' }) : null
            return 'r4nd0m'
          },
        }),
      )
      expect(result).toBe(`target_changed: ${target} changed while Assent was acting on it`)
      expect(existsSync(target) ? await readFile(target, 'utf8') : null).toBe(after)
      expect((await readdir(ws)).filter((entry) => entry.includes('assent-'))).toEqual([])
    })
  }
})

describe('a delete whose target changes after the first look', () => {
  it('refuses a file replaced between its status and the unlink, and removes nothing', async () => {
    const target = path.join(ws, 'gone.txt')
    await writeFile(target, 'the file the person saw')
    let calls = 0
    const realLstat = DirectoryHandle.prototype.lstat
    vi.spyOn(DirectoryHandle.prototype, 'lstat').mockImplementation(async function (
      this: DirectoryHandle,
      name: string,
    ) {
      const seen = await realLstat.call(this, name)
      calls += 1
      if (calls === 1) {
        writeFileSync(`${target}.other`, 'theirs')
        renameSync(`${target}.other`, target)
      }
      return seen
    })
    const unlink = vi.spyOn(DirectoryHandle.prototype, 'unlink')
    expect(await refusal(() => removeEntry(target, { recursive: false }))).toBe(
      `target_changed: ${target} changed while Assent was acting on it`,
    )
    expect(unlink).not.toHaveBeenCalled()
    expect(await readFile(target, 'utf8')).toBe('theirs')
  })

  it('refuses a tree swapped for another directory before it is opened, and removes nothing', async () => {
    const tree = path.join(ws, 'tree')
    await mkdir(tree)
    await writeFile(path.join(tree, 'seen.txt'), 'seen')
    const realOpenChild = DirectoryHandle.prototype.openChild
    vi.spyOn(DirectoryHandle.prototype, 'openChild').mockImplementation(async function (
      this: DirectoryHandle,
      name: string,
      options: { create: boolean },
    ) {
      if (name === 'tree' && !existsSync(path.join(outside, 'moved'))) {
        renameSync(tree, path.join(outside, 'moved'))
        mkdirSync(tree)
        writeFileSync(path.join(tree, 'theirs.txt'), 'theirs')
      }
      return realOpenChild.call(this, name, options)
    })
    expect(await refusal(() => removeEntry(tree, { recursive: true }))).toBe(
      `target_changed: ${tree} was replaced while Assent was acting on it`,
    )
    expect(await readdir(tree)).toEqual(['theirs.txt'])
    expect(await readdir(path.join(outside, 'moved'))).toEqual(['seen.txt'])
  })

  it('refuses a subdirectory swapped for another before it is opened', async () => {
    const tree = path.join(ws, 'tree')
    await mkdir(path.join(tree, 'sub'), { recursive: true })
    await writeFile(path.join(tree, 'sub', 'seen.txt'), 'seen')
    const realOpenChild = DirectoryHandle.prototype.openChild
    vi.spyOn(DirectoryHandle.prototype, 'openChild').mockImplementation(async function (
      this: DirectoryHandle,
      name: string,
      options: { create: boolean },
    ) {
      if (name === 'sub' && !existsSync(path.join(outside, 'moved'))) {
        renameSync(path.join(tree, 'sub'), path.join(outside, 'moved'))
        mkdirSync(path.join(tree, 'sub'))
      }
      return realOpenChild.call(this, name, options)
    })
    expect(await refusal(() => removeEntry(tree, { recursive: true }))).toMatch(
      /^target_changed: .*\/tree\/sub was replaced while Assent was acting on it$/,
    )
    expect(await readdir(path.join(outside, 'moved'))).toEqual(['seen.txt'])
    expect(existsSync(path.join(tree, 'sub'))).toBe(true)
  })
})

describe('a tree that changes while it is removed', () => {
  it('reports a tree removed by someone else before it is opened as missing, never makes it again', async () => {
    const tree = path.join(ws, 'tree')
    await mkdir(path.join(tree, 'sub'), { recursive: true })
    let removed = false
    const realOpenChild = DirectoryHandle.prototype.openChild
    vi.spyOn(DirectoryHandle.prototype, 'openChild').mockImplementation(async function (
      this: DirectoryHandle,
      name: string,
      options: { create: boolean },
    ) {
      // Once: a directory the tool made again must stay, to be seen.
      if (name === 'tree' && !removed) {
        removed = true
        rmSync(tree, { recursive: true })
      }
      return realOpenChild.call(this, name, options)
    })
    expect(await refusal(() => removeEntry(tree, { recursive: true }))).toMatch(/^ENOENT/)
    expect(existsSync(tree)).toBe(false)
  })

  it('reports a subdirectory removed by someone else before it is opened as missing', async () => {
    const tree = path.join(ws, 'tree')
    await mkdir(path.join(tree, 'sub'), { recursive: true })
    let removed = false
    const realOpenChild = DirectoryHandle.prototype.openChild
    vi.spyOn(DirectoryHandle.prototype, 'openChild').mockImplementation(async function (
      this: DirectoryHandle,
      name: string,
      options: { create: boolean },
    ) {
      if (name === 'sub' && !removed) {
        removed = true
        rmSync(path.join(tree, 'sub'), { recursive: true })
      }
      return realOpenChild.call(this, name, options)
    })
    expect(await refusal(() => removeEntry(tree, { recursive: true }))).toMatch(/^ENOENT/)
    expect(await readdir(tree)).toEqual([])
  })

  it('passes over an entry that was listed and is gone when it is looked at', async () => {
    const tree = path.join(ws, 'tree')
    await mkdir(tree)
    await writeFile(path.join(tree, 'f'), 'x')
    const realList = DirectoryHandle.prototype.list
    vi.spyOn(DirectoryHandle.prototype, 'list').mockImplementation(async function (
      this: DirectoryHandle,
    ) {
      return ['ghost', ...(await realList.call(this))]
    })
    expect(await removeEntry(tree, { recursive: true })).toEqual({
      kind: 'tree',
      files: 1,
      directories: 0,
    })
    expect(existsSync(tree)).toBe(false)
  })
})

describe('what a file tool holds open', () => {
  it('closes every descriptor it opened, whether it acted or was refused', async () => {
    const before = openDescriptors()
    const file = path.join(ws, 'a.txt')
    await replaceFile(file, 'one')
    await replaceFile(file, 'two', {
      bound: (await observeTarget(file, { readContent: true })).target,
    })
    await observeTarget(file, { readContent: true })
    await observeTarget(file, { readContent: false })
    await refusal(() => replaceFile(file, 'x', { bound: { path: file, exists: false } }))
    await mkdir(path.join(ws, 'tree', 'sub'), { recursive: true })
    await writeFile(path.join(ws, 'tree', 'sub', 'f'), 'x')
    await removeEntry(path.join(ws, 'tree'), { recursive: true })
    await removeEntry(file, { recursive: false })
    await refusal(() => removeEntry(file, { recursive: false }))
    const handle = await DirectoryHandle.open(ws, { create: false })
    await handle.close()
    expect(openDescriptors()).toBe(before)
  })
})

describe('what a file tool refuses to touch', () => {
  it('never writes over a named pipe, which is not a regular file', async () => {
    const pipe = path.join(ws, 'pipe')
    execFileSync('mkfifo', [pipe])
    expect(await refusal(() => replaceFile(pipe, 'x'))).toBe(
      `not_a_file: ${pipe} is not a regular file`,
    )
    expect(await readdir(ws)).toEqual(['pipe'])
  })

  it('makes no directory when it deletes under one that does not exist', async () => {
    expect(
      await refusal(() => removeEntry(path.join(ws, 'missing', 'x'), { recursive: false })),
    ).toMatch(/^ENOENT/)
    expect(existsSync(path.join(ws, 'missing'))).toBe(false)
  })
})
