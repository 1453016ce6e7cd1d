import { createHash } from 'node:crypto'
import { execFileSync } from 'node:child_process'
import { renameSync, rmSync, writeFileSync } from 'node:fs'
import { lstat, mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { FileTarget } from '../../contracts/file-target.ts'
import {
  MAX_DIFFED_BYTES,
  describeTarget,
  observeTarget,
  sameEntryState,
  sameFile,
  sameTarget,
  targetOf,
} from './file-target.ts'
import { releaseWaitingReader, swapBeforeOpen } from './test-support/swapped-before-open.ts'

let ws: string

beforeEach(async () => {
  ws = await realpath(await mkdtemp(path.join(os.tmpdir(), 'assent-target-')))
})

afterEach(async () => {
  vi.restoreAllMocks()
  await rm(ws, { recursive: true, force: true })
})

const sha256 = (bytes: string | Buffer) => createHash('sha256').update(bytes).digest('hex')

const present: FileTarget = {
  path: '/w/a.txt',
  exists: true,
  type: 'file',
  device: '2049',
  inode: '77',
  bornNs: '1000',
  links: 1,
  contentSha256: 'a'.repeat(64),
}

describe('a target as observed', () => {
  it('records the status of each kind of entry, with no link followed', async () => {
    await writeFile(path.join(ws, 'f'), 'x')
    await mkdir(path.join(ws, 'd'))
    await symlink(path.join(ws, 'f'), path.join(ws, 'l'))
    const file = await lstat(path.join(ws, 'f'), { bigint: true })
    expect(targetOf('/p', file, 'b'.repeat(64))).toEqual({
      path: '/p',
      exists: true,
      type: 'file',
      device: file.dev.toString(),
      inode: file.ino.toString(),
      bornNs: file.birthtimeNs.toString(),
      links: 1,
      contentSha256: 'b'.repeat(64),
    })
    expect(targetOf('/p', await lstat(path.join(ws, 'd'), { bigint: true }))).toMatchObject({
      type: 'directory',
    })
    expect(targetOf('/p', await lstat(path.join(ws, 'l'), { bigint: true }))).toMatchObject({
      type: 'symlink',
    })
    expect(targetOf('/p', await lstat('/dev/null', { bigint: true }))).toMatchObject({
      type: 'other',
    })
    expect(targetOf('/p', file)).not.toHaveProperty('contentSha256')
    expect(targetOf('/p', null)).toEqual({ path: '/p', exists: false })
  })

  it('is the same only when path, presence and every identity field agree', () => {
    expect(sameTarget(present, { ...present })).toBe(true)
    expect(sameTarget({ path: '/w/a', exists: false }, { path: '/w/a', exists: false })).toBe(true)
    expect(sameTarget({ path: '/w/a', exists: false }, { path: '/w/b', exists: false })).toBe(false)
    expect(sameTarget(present, { path: present.path, exists: false })).toBe(false)
    expect(sameTarget({ path: present.path, exists: false }, present)).toBe(false)
    const changes: Array<Partial<Extract<FileTarget, { exists: true }>>> = [
      { path: '/w/b.txt' },
      { type: 'symlink' },
      { device: '2050' },
      { inode: '78' },
      { bornNs: '1001' },
      { links: 2 },
      { contentSha256: 'c'.repeat(64) },
      { contentSha256: undefined },
    ]
    for (const change of changes) {
      expect(sameTarget(present, { ...present, ...change }), JSON.stringify(change)).toBe(false)
      expect(sameTarget({ ...present, ...change }, present), JSON.stringify(change)).toBe(false)
    }
  })

  it('is the same file only when device, inode and birth time all agree', () => {
    const file = { dev: 1n, ino: 2n, birthtimeNs: 3n }
    expect(sameFile(file, { ...file })).toBe(true)
    for (const change of [{ dev: 9n }, { ino: 9n }, { birthtimeNs: 9n }]) {
      expect(sameFile(file, { ...file, ...change }), String(Object.keys(change))).toBe(false)
      expect(sameFile({ ...file, ...change }, file), String(Object.keys(change))).toBe(false)
    }
  })

  it('shows the same entry state only when still absent, or the same file unchanged', () => {
    const entry = { dev: 1n, ino: 2n, birthtimeNs: 3n, nlink: 1n, ctimeNs: 4n }
    expect(sameEntryState(null, null)).toBe(true)
    expect(sameEntryState(entry, { ...entry })).toBe(true)
    expect(sameEntryState(null, entry)).toBe(false)
    expect(sameEntryState(entry, null)).toBe(false)
    const changes = [{ dev: 9n }, { ino: 9n }, { birthtimeNs: 9n }, { nlink: 2n }, { ctimeNs: 9n }]
    for (const change of changes) {
      expect(sameEntryState(entry, { ...entry, ...change }), String(Object.keys(change))).toBe(
        false,
      )
    }
  })

  it('is described in words for refusals and the audit log', () => {
    expect(describeTarget({ path: '/w/a', exists: false })).toBe('nothing')
    expect(describeTarget(present)).toBe(
      'a file (device 2049, inode 77, 1 name, content aaaaaaaaaaaa)',
    )
    const { contentSha256: _hash, ...unhashed } = present
    expect(describeTarget({ ...unhashed, links: 3 })).toBe(
      'a file (device 2049, inode 77, 3 names)',
    )
  })
})

describe('observing a target on disk', () => {
  it('says a target under a missing directory does not exist', async () => {
    const target = path.join(ws, 'missing', 'deeper', 'a.txt')
    expect(await observeTarget(target, { readContent: true })).toEqual({
      target: { path: target, exists: false },
      content: null,
      stats: null,
    })
    await expect(lstat(path.join(ws, 'missing'))).rejects.toMatchObject({ code: 'ENOENT' })
  })

  it('says an absent file in an existing directory does not exist, even when asked for content', async () => {
    const target = path.join(ws, 'absent.txt')
    expect(await observeTarget(target, { readContent: true })).toEqual({
      target: { path: target, exists: false },
      content: null,
      stats: null,
    })
  })

  it('refuses, never hashes, a file swapped in between its status and its opening', async () => {
    const target = path.join(ws, 'a.txt')
    await writeFile(target, 'the file observed')
    swapBeforeOpen(() => {
      writeFileSync(`${target}.other`, 'theirs')
      renameSync(`${target}.other`, target)
    })
    await expect(observeTarget(target, { readContent: true })).rejects.toMatchObject({
      code: 'target_changed',
      message: 'a.txt changed while Assent was reading it',
    })
    expect(await readFile(target, 'utf8')).toBe('theirs')
  })

  it('refuses, without waiting on it, a named pipe swapped in between its status and its opening', async () => {
    const target = path.join(ws, 'a.txt')
    await writeFile(target, 'the file observed')
    swapBeforeOpen(() => {
      rmSync(target)
      execFileSync('mkfifo', [target])
    })
    try {
      // An open that waited for a writer would never settle: the ceiling
      // says so instead of leaving the test hanging.
      const ceiling = new Promise((_, reject) =>
        setTimeout(() => reject(new Error('the open waited on the pipe')), 5_000).unref(),
      )
      await expect(
        Promise.race([observeTarget(target, { readContent: true }), ceiling]),
      ).rejects.toMatchObject({ code: 'not_a_file', message: 'a.txt is not a regular file' })
    } finally {
      releaseWaitingReader(target)
    }
  })

  it('refuses a path through a symbolic link', async () => {
    await mkdir(path.join(ws, 'real'))
    await symlink(path.join(ws, 'real'), path.join(ws, 'link'))
    await expect(
      observeTarget(path.join(ws, 'link', 'a.txt'), { readContent: false }),
    ).rejects.toMatchObject({
      code: 'symlink_refused',
      message: `${path.join(ws, 'link')} is a symbolic link; Assent does not follow it`,
    })
  })

  it('hashes a file and keeps its text, byte order mark included, only when asked', async () => {
    const target = path.join(ws, 'a.txt')
    const content = '\uFEFFhello\nwörld\n'
    await writeFile(target, content)
    const observed = await observeTarget(target, { readContent: true })
    expect(observed.content).toEqual({ sha256: sha256(content), text: content })
    expect(observed.target).toMatchObject({ exists: true, contentSha256: sha256(content) })
    const light = await observeTarget(target, { readContent: false })
    expect(light.content).toBeNull()
    expect(light.target).not.toHaveProperty('contentSha256')
  })

  it('hashes a directory never, and reads no content of one', async () => {
    await mkdir(path.join(ws, 'd'))
    const observed = await observeTarget(path.join(ws, 'd'), { readContent: true })
    expect(observed.content).toBeNull()
    expect(observed.target).toMatchObject({ type: 'directory' })
  })

  it('keeps no text of a binary or non-UTF-8 file, and still hashes it', async () => {
    const binary = Buffer.from([0x61, 0x00, 0x62])
    const invalid = Buffer.from([0x61, 0xff, 0x62])
    await writeFile(path.join(ws, 'bin'), binary)
    await writeFile(path.join(ws, 'latin1'), invalid)
    expect((await observeTarget(path.join(ws, 'bin'), { readContent: true })).content).toEqual({
      sha256: sha256(binary),
      text: null,
    })
    expect((await observeTarget(path.join(ws, 'latin1'), { readContent: true })).content).toEqual({
      sha256: sha256(invalid),
      text: null,
    })
  })

  it('keeps the text of a file of exactly the diff limit, and none of a larger one', async () => {
    const atLimit = 'x'.repeat(MAX_DIFFED_BYTES)
    const over = `${atLimit}y`
    expect(MAX_DIFFED_BYTES).toBe(1024 * 1024)
    await writeFile(path.join(ws, 'at'), atLimit)
    await writeFile(path.join(ws, 'over'), over)
    const at = await observeTarget(path.join(ws, 'at'), { readContent: true })
    expect(at.content?.text?.length).toBe(MAX_DIFFED_BYTES)
    expect(at.content?.sha256).toBe(sha256(atLimit))
    const large = await observeTarget(path.join(ws, 'over'), { readContent: true })
    expect(large.content).toEqual({ sha256: sha256(over), text: null })
  })
})
