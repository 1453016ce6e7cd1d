import { execFileSync } from 'node:child_process'
import {
  mkdirSync,
  mkdtempSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeEach, describe, expect, it } from 'vitest'
import { SETTLED_MS, SettledFileCache, SettledFolderCache } from './settled-file-cache.ts'

const folder = mkdtempSync(path.join(tmpdir(), 'assent-settled-'))
afterAll(() => rmSync(folder, { recursive: true, force: true }))

let parsed: string[] = []
beforeEach(() => {
  parsed = []
})

/** A cache that records every parse, so a test sees when a file was read. */
function cache(now?: () => number): SettledFileCache<string> {
  return new SettledFileCache((text) => {
    parsed.push(text)
    return text
  }, now)
}

/** A clock that has the file's last change well in the past. */
const later = () => Date.now() + SETTLED_MS + 60_000

/** Waits until the file system's clock has moved past the file's change
 *  time, so a write now gives it another one. */
function afterChangeTimeOf(file: string): void {
  const changed = statSync(file, { bigint: true }).ctimeNs
  const until = Date.now() + 5_000
  for (;;) {
    const probe = path.join(folder, 'probe')
    writeFileSync(probe, 'x')
    if (statSync(probe, { bigint: true }).ctimeNs > changed) return
    if (Date.now() > until) throw new Error('the file system clock did not move')
  }
}

describe('SettledFileCache', () => {
  it('reads a settled file once while it stays the same file', () => {
    const file = path.join(folder, 'settled')
    writeFileSync(file, 'one')
    const files = cache(later)
    expect(files.read(file)).toBe('one')
    expect(files.read(file)).toBe('one')
    expect(parsed).toEqual(['one'])
  })

  it('reads a file again once it changed, even to the same size', () => {
    const file = path.join(folder, 'changed')
    writeFileSync(file, 'aaaa')
    const files = cache(later)
    expect(files.read(file)).toBe('aaaa')
    afterChangeTimeOf(file)
    writeFileSync(file, 'bbbb')
    expect(files.read(file)).toBe('bbbb')
    expect(parsed).toEqual(['aaaa', 'bbbb'])
  })

  it('keeps nothing read from a file that changed within the settling time', () => {
    // Changed in the same tick of the file system's clock, a file of the
    // same size keeps its times: only a file that had settled is kept.
    const file = path.join(folder, 'fresh')
    writeFileSync(file, 'aaaa')
    const files = cache()
    expect(files.read(file)).toBe('aaaa')
    writeFileSync(file, 'bbbb')
    expect(files.read(file)).toBe('bbbb')
    expect(files.read(file)).toBe('bbbb')
    expect(parsed).toEqual(['aaaa', 'bbbb', 'bbbb'])
  })

  it('reads the file that replaced one by rename, and the one a link leads to now', () => {
    const file = path.join(folder, 'replaced')
    writeFileSync(file, 'old!')
    const files = cache(later)
    expect(files.read(file)).toBe('old!')
    const next = path.join(folder, 'replacement')
    writeFileSync(next, 'new!')
    renameSync(next, file)
    expect(files.read(file)).toBe('new!')

    const first = path.join(folder, 'first')
    const second = path.join(folder, 'second')
    const link = path.join(folder, 'link')
    writeFileSync(first, 'first')
    writeFileSync(second, 'other')
    symlinkSync(first, link)
    expect(files.read(link)).toBe('first')
    rmSync(link)
    symlinkSync(second, link)
    expect(files.read(link)).toBe('other')
  })

  it('names nothing for a path not there, a folder or a pipe, and forgets what was kept', () => {
    const files = cache(later)
    const file = path.join(folder, 'gone')
    writeFileSync(file, 'here')
    expect(files.read(file)).toBe('here')
    rmSync(file)
    expect(files.read(file)).toBeNull()
    const sub = path.join(folder, 'sub')
    mkdirSync(sub)
    expect(files.read(sub)).toBeNull()
    // A pipe is never opened for a read that would wait for a writer.
    const pipe = path.join(folder, 'pipe')
    execFileSync('mkfifo', [pipe])
    expect(files.read(pipe)).toBeNull()
    expect(files.read(path.join(folder, 'gone', 'below'))).toBeNull()
    expect(parsed).toEqual(['here'])
  })

  it('stays right past the number of files it keeps', () => {
    const files = cache(later)
    const many = Array.from({ length: 300 }, (_, index) => {
      const file = path.join(folder, `many-${index}`)
      writeFileSync(file, String(index))
      return file
    })
    for (const file of many) files.read(file)
    expect(parsed).toHaveLength(300)
    // The last one read is kept; the first was let go to keep it.
    expect(files.read(many[299]!)).toBe('299')
    expect(parsed).toHaveLength(300)
    expect(files.read(many[0]!)).toBe('0')
    expect(parsed).toHaveLength(301)
  })
})

describe('SettledFolderCache', () => {
  it('lists a settled folder again once a name in it is made, removed or renamed', () => {
    const at = path.join(folder, 'listed')
    mkdirSync(at)
    writeFileSync(path.join(at, 'a'), 'a')
    const folders = new SettledFolderCache(later)
    expect(folders.read(at)).toEqual(['a'])
    afterChangeTimeOf(at)
    writeFileSync(path.join(at, 'lefthook-local.yml'), 'x')
    expect(folders.read(at)?.sort()).toEqual(['a', 'lefthook-local.yml'])
    afterChangeTimeOf(at)
    renameSync(path.join(at, 'a'), path.join(at, '.pre-commit-config.yaml'))
    expect(folders.read(at)?.sort()).toEqual(['.pre-commit-config.yaml', 'lefthook-local.yml'])
    afterChangeTimeOf(at)
    rmSync(path.join(at, 'lefthook-local.yml'))
    expect(folders.read(at)).toEqual(['.pre-commit-config.yaml'])
  })

  it('keeps and hands out only the names asked for, however many the folder holds', () => {
    const at = path.join(folder, 'many')
    mkdirSync(at)
    for (let index = 0; index < 500; index += 1) {
      writeFileSync(path.join(at, `note-${index}.txt`), 'x')
    }
    writeFileSync(path.join(at, '.pre-commit-config.yaml'), 'x')
    const folders = new SettledFolderCache(later, (name) => !name.startsWith('note-'))
    expect(folders.read(at)).toEqual(['.pre-commit-config.yaml'])
    // Kept as asked for: the same again, whatever was listed.
    expect(folders.read(at)).toEqual(['.pre-commit-config.yaml'])
    afterChangeTimeOf(at)
    writeFileSync(path.join(at, 'lefthook.yml'), 'x')
    expect(folders.read(at)?.sort()).toEqual(['.pre-commit-config.yaml', 'lefthook.yml'])
  })

  it('names nothing for a folder not there, or a file', () => {
    const folders = new SettledFolderCache(later)
    expect(folders.read(path.join(folder, 'no-such-folder'))).toBeNull()
    const file = path.join(folder, 'a-file')
    writeFileSync(file, 'x')
    expect(folders.read(file)).toBeNull()
  })
})
