import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  builtAtRunTime,
  changesGitSettings,
  globMatches,
  MAX_BRACE_NAMES,
  shellSpellings,
} from './shell-words.ts'

describe('shellSpellings', () => {
  it.each([
    ['.g""it/x', ['.git/x']],
    ["'.git'/x", ['.git/x']],
    ['.gi\\t/x', ['.git/x']],
    ['{.git,docs}/x', ['.git/x', 'docs/x']],
    ['.g{i,}t', ['.git', '.gt']],
    ['a{b,{c,d}}e', ['abe', 'ace', 'ade']],
    ['.gi{s..u}', ['.gis', '.git', '.giu']],
    ['f{1..3}', ['f1', 'f2', 'f3']],
  ])('reads %s as %j too', (word, names) => {
    expect(new Set(shellSpellings(word))).toEqual(
      new Set([...names, word.replace(/["'\\]/g, '')].filter((name) => name !== word)),
    )
  })

  it('adds nothing for a word a shell leaves as it is', () => {
    expect(shellSpellings('docs/{x}')).toEqual([])
    expect(shellSpellings('plain/path.txt')).toEqual([])
  })

  it('gives up (null) on braces that make more names than are checked', () => {
    expect(shellSpellings(`f{1..${MAX_BRACE_NAMES}}`)).toHaveLength(MAX_BRACE_NAMES)
    expect(shellSpellings(`f{1..${MAX_BRACE_NAMES + 1}}`)).toBeNull()
    expect(shellSpellings('{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}{m,n}{o,p}{q,r}')).toBeNull()
    expect(shellSpellings('{a,b}{c,d}{e,f}{g,h}')).toHaveLength(16)
  })
})

describe('globMatches', () => {
  let root: string
  beforeEach(() => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'assent-glob-')))
    mkdirSync(join(root, '.git/hooks'), { recursive: true })
    mkdirSync(join(root, 'src'))
    writeFileSync(join(root, '.git/hooks/post-merge'), '')
    writeFileSync(join(root, 'src/a.ts'), '')
  })
  afterEach(() => rmSync(root, { recursive: true, force: true }))

  it("matches as bash does: a leading dot only by a literal dot, classes and '?'", () => {
    const budget = { entries: 100 }
    expect(globMatches('.gi?/hooks/*', root, budget)).toEqual([join(root, '.git/hooks/post-merge')])
    expect(globMatches('.gi[st]/hooks', root, budget)).toEqual([join(root, '.git/hooks')])
    expect(globMatches('.g[!x]t', root, budget)).toEqual([join(root, '.git')])
    expect(globMatches('*/hooks', root, budget)).toEqual([])
    expect(globMatches('*', root, budget)).toEqual([join(root, 'src')])
    expect(globMatches(`${root}/src/*.ts`, '/elsewhere', budget)).toEqual([join(root, 'src/a.ts')])
  })

  it('stops (null) once the folder entries it may read are spent', () => {
    expect(globMatches('*/*', root, { entries: 2 })).toBeNull()
    expect(globMatches('*/*', root, { entries: 3 })).toEqual([join(root, 'src/a.ts')])
  })
})

describe('builtAtRunTime', () => {
  it.each([
    ['cp x $(printf .git)/hooks', '$('],
    ['cp x `printf .git`/hooks', '`'],
    ["cp x $'\\x2egit'/hooks", "$'"],
    ['eval "$X"', 'eval'],
    ['a; eval x', 'eval'],
  ])('finds what %s builds at run time', (line, found) => {
    expect(builtAtRunTime(line)).toBe(found)
  })

  it.each(['echo "$HOME"', 'cp ${SRC} dst', 'medieval x', 'evaluate.sh'])(
    'finds nothing built at run time in %s',
    (line) => {
      expect(builtAtRunTime(line)).toBeNull()
    },
  )
})

describe('changesGitSettings', () => {
  const words = (line: string) => line.replace(/'/g, '').split(' ')
  it.each([
    ['git config core.hooksPath x', 'git config'],
    ['/usr/bin/git -C docs config --list', 'git config'],
    ['git -c core.fsmonitor=x status', 'git -c'],
    ['git -ccore.pager=x log', 'git -ccore.pager=x'],
    ['git --config-env=core.hooksPath=H status', 'git --config-env=core.hooksPath=H'],
    ['git --exec-path=/tmp/e status', 'git --exec-path=/tmp/e'],
    ['GIT_CONFIG_GLOBAL=/tmp/c git status', 'GIT_CONFIG_GLOBAL=/tmp/c'],
    ['ls ; git config x y', 'git config'],
    ["bash -lc 'git config x y'", 'git config'],
    ['sudo env A=1 git config x y', 'git config'],
  ])('finds what in %s changes what git runs', (line, found) => {
    expect(changesGitSettings(words(line))).toBe(found)
  })

  it.each([
    'git commit -c HEAD',
    'git grep -c config',
    'git log config',
    'echo git config',
    'grep -r git config docs',
  ])('finds nothing in %s', (line) => {
    expect(changesGitSettings(words(line))).toBeNull()
  })
})
