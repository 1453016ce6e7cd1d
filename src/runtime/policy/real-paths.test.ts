import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { realPathAllowingMissing, type RealPathsSeen } from './real-paths.ts'

// A name is looked up from its folder's real path once that folder was
// looked up in the same judgment: each kind of name must still lead where
// the kernel would take a write to it.

let root: string

beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(tmpdir(), 'assent-real-paths-')))
  mkdirSync(path.join(root, 'real', 'sub'), { recursive: true })
  mkdirSync(path.join(root, 'elsewhere'))
  writeFileSync(path.join(root, 'real', 'plain.txt'), 'x')
  writeFileSync(path.join(root, 'elsewhere', 'secret'), 'x')
  // The folder the names are asked in is reached through a link.
  symlinkSync(path.join(root, 'real'), path.join(root, 'via'))
  symlinkSync(path.join(root, 'elsewhere', 'secret'), path.join(root, 'real', 'to-secret'))
  symlinkSync('../elsewhere', path.join(root, 'real', 'up'))
  symlinkSync(path.join(root, 'elsewhere', 'made-later'), path.join(root, 'real', 'dangling'))
})

afterEach(() => {
  rmSync(root, { recursive: true, force: true })
})

describe('a name in a folder already looked up', () => {
  const rows: Array<[string, (root: string) => string | null]> = [
    ['a plain file', (r) => path.join(r, 'real', 'plain.txt')],
    ['a folder', (r) => path.join(r, 'real', 'sub')],
    ['a link to a file elsewhere', (r) => path.join(r, 'elsewhere', 'secret')],
    ['a relative link up and out, and a name below it', (r) => path.join(r, 'elsewhere', 'secret')],
    ['a link whose end is missing', (r) => path.join(r, 'elsewhere', 'made-later')],
    ['a missing name', (r) => path.join(r, 'real', 'new.txt')],
    // Not there, and cannot be made: judged where it is written.
    ['a name below a file', (r) => path.join(r, 'real', 'plain.txt', 'x')],
  ]
  const asked: Record<string, string> = {
    'a plain file': 'plain.txt',
    'a folder': 'sub',
    'a link to a file elsewhere': 'to-secret',
    'a relative link up and out, and a name below it': 'up/secret',
    'a link whose end is missing': 'dangling',
    'a missing name': 'new.txt',
    'a name below a file': 'plain.txt/x',
  }

  it.each(rows)('%s leads where a write to it would land', (kind, expected) => {
    const seen: RealPathsSeen = new Map()
    const folder = path.join(root, 'via')
    // The folder first, as a judgment that names several paths in it does.
    expect(realPathAllowingMissing(folder, seen)).toBe(path.join(root, 'real'))
    const name = path.join(folder, asked[kind]!)
    const found = realPathAllowingMissing(name, seen)
    expect(found).toBe(expected(root))
    // The same as looked up with nothing known before.
    expect(realPathAllowingMissing(name, new Map())).toBe(found)
  })
})
