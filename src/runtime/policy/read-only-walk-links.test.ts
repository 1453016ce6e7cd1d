import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { personOnlyPathsIn, personOnlyPathsInRoots } from './read-only-walk.ts'

// The sandbox's walk goes through a link to a folder in a writable root,
// judging what is under it by the link's name, as the person's editor, CI
// and git read it, and keeps the real paths it found (walk-links.ts).

describe('the read-only walk through links to folders', () => {
  let root: string
  let ws: string
  beforeEach(() => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'assent-walk-links-')))
    ws = join(root, 'ws')
    mkdirSync(ws)
  })
  afterEach(() => {
    rmSync(root, { recursive: true, force: true })
  })

  it('finds editor tasks under a linked .vscode, at their real path', () => {
    mkdirSync(join(ws, 'editor/vscode'), { recursive: true })
    writeFileSync(join(ws, 'editor/vscode/tasks.json'), '{}')
    writeFileSync(join(ws, 'editor/vscode/notes.md'), '')
    symlinkSync('editor/vscode', join(ws, '.vscode'))
    expect(personOnlyPathsIn(ws).paths).toEqual([join(ws, 'editor/vscode/tasks.json')])
  })

  it('finds CI workflows under a linked .github, and a linked workflows folder', () => {
    mkdirSync(join(ws, 'ci/github'), { recursive: true })
    mkdirSync(join(ws, 'ci/flows'), { recursive: true })
    symlinkSync('ci/github', join(ws, '.github'))
    symlinkSync('../flows', join(ws, 'ci/github/workflows'))
    expect(personOnlyPathsIn(ws).paths).toEqual([join(ws, 'ci/github/workflows')])
  })

  it('goes through a link to a folder in another writable root', () => {
    const other = join(root, 'other')
    mkdirSync(join(other, 'claude'), { recursive: true })
    writeFileSync(join(other, 'claude/settings.json'), '{}')
    symlinkSync(join(other, 'claude'), join(ws, '.claude'))
    expect(personOnlyPathsIn(ws).paths).toEqual([])
    expect(personOnlyPathsInRoots([ws, other]).paths).toContain(join(other, 'claude/settings.json'))
  })

  it('does not go through a link to a folder outside every writable root', () => {
    mkdirSync(join(root, 'outside'))
    writeFileSync(join(root, 'outside/tasks.json'), '{}')
    symlinkSync(join(root, 'outside'), join(ws, '.vscode'))
    expect(personOnlyPathsIn(ws)).toMatchObject({ paths: [], truncated: false })
  })

  it('ends in a link that loops, and judges what the loop names by the link’s name', () => {
    mkdirSync(join(ws, 'a/b'), { recursive: true })
    symlinkSync('..', join(ws, 'a/b/up'))
    // `.vscode/tasks.json` is `tasks.json` at the top, read through the loop.
    writeFileSync(join(ws, 'tasks.json'), '{}')
    symlinkSync('.', join(ws, '.vscode'))
    const walked = personOnlyPathsIn(ws)
    expect(walked).toMatchObject({ truncated: false })
    expect(walked.paths).toEqual([join(ws, 'tasks.json')])
  })

  it('ends in links that loop through each other', () => {
    mkdirSync(join(ws, 'x'))
    mkdirSync(join(ws, 'y'))
    symlinkSync('../y', join(ws, 'x/to-y'))
    symlinkSync('../x', join(ws, 'y/to-x'))
    expect(personOnlyPathsIn(ws)).toMatchObject({ paths: [], truncated: false })
  })

  it('counts what is under a link against the walk’s limit of entries', () => {
    mkdirSync(join(ws, 'many'))
    for (let i = 0; i < 30; i += 1) writeFileSync(join(ws, 'many', `f${i}`), '')
    expect(personOnlyPathsInRoots([ws], 40).truncated).toBeNull()
    symlinkSync('many', join(ws, 'again'))
    expect(personOnlyPathsInRoots([ws], 40).truncated).toBe(ws)
  })
})
