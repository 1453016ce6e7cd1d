import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { globMatches } from './shell-glob.ts'

describe('globMatches', () => {
  let root: string
  beforeEach(() => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'assent-glob-')))
    mkdirSync(join(root, '.git/hooks'), { recursive: true })
    mkdirSync(join(root, 'src'))
    writeFileSync(join(root, '.git/hooks/post-merge'), '')
    writeFileSync(join(root, 'src/a.ts'), '')
    writeFileSync(join(root, 'a'.repeat(60)), '')
  })
  afterEach(() => rmSync(root, { recursive: true, force: true }))

  it("matches as bash does: a leading dot only by a literal dot, classes and '?'", () => {
    const budget = { entries: 1_000 }
    const hook = [join(root, '.git/hooks/post-merge')]
    expect(globMatches('.gi?/hooks/*', root, budget)).toEqual(hook)
    expect(globMatches('.gi[st]/hooks/post-merge', root, budget)).toEqual(hook)
    expect(globMatches('.g[!x]t/hooks/post-merge', root, budget)).toEqual(hook)
    expect(globMatches('.g[[:alpha:]]t/hooks/post-merge', root, budget)).toEqual(hook)
    expect(globMatches('.g[[=i=]]t/hooks/post-merge', root, budget)).toEqual(hook)
    expect(globMatches('*/hooks', root, budget)).toEqual([])
    expect(globMatches('src/*', root, budget)).toEqual([join(root, 'src/a.ts')])
    expect(globMatches(`${root}/src/*.ts`, '/elsewhere', budget)).toEqual([join(root, 'src/a.ts')])
    // A pattern whose every part does not exist is passed on as written.
    expect(globMatches('.gi?/hooks/none', root, budget)).toEqual([])
  })

  it('matches a name against many stars without backtracking, and a range out of order as nothing', () => {
    const budget = { entries: 1_000 }
    expect(globMatches('*a*a*a*a*a*a*b', root, budget)).toEqual([])
    expect(globMatches('*a*a*a*a*a*a*a', root, budget)).toEqual([join(root, 'a'.repeat(60))])
    expect(globMatches('[a-Z]*', root, budget)).toEqual([])
    expect(globMatches('[z-a]rc', root, budget)).toEqual([])
  })

  it('stops (null) once the folder entries it may read are spent', () => {
    expect(globMatches('*/*', root, { entries: 3 })).toBeNull()
    expect(globMatches('*/*', root, { entries: 4 })).toEqual([join(root, 'src/a.ts')])
  })
})
