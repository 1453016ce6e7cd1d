import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { homedir, tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  commandFinding,
  globMatches,
  MAX_BRACE_NAMES,
  readShell,
  wordSpellings,
} from './shell-words.ts'

describe('readShell', () => {
  it.each([
    ['cp x .g""it/h', ['cp', 'x', '.git/h']],
    ["cp 'a b' .gi\\t", ['cp', 'a b', '.git']],
    ['echo "a\\"b" c', ['echo', 'a"b', 'c']],
    ['a;b&&c||d|e&f', ['a', ';', 'b', '&&', 'c', '||', 'd', '|', 'e', '&', 'f']],
    ['echo hi\ngit x', ['echo', 'hi', ';', 'git', 'x']],
    ['cp x .gi\\\nt/h', ['cp', 'x', '.git/h']],
    ['cmd 2>/dev/null >>log', ['cmd', '>', '/dev/null', '>', 'log']],
  ])('reads %j as %j', (line, words) => {
    expect(readShell(line)).toEqual({ words, runTime: null })
  })

  it.each([
    ['cp x $(printf .git)/h', '$('],
    ['cp x `printf .git`/h', '`'],
    ["cp x $'\\x2egit'/h", "$'"],
    ['cp x "$(id)"', '$('],
    ['cp x ${X:-.git}/h', '${X:-.git}'],
    ['cp x ${X-.git}/h', '${X-.git}'],
    ['cp x .g${X}it/h', '${X}'],
    ['cp x .g$@it/h', '$@'],
    ['X=.gi; cp x ${X}t/h', '${X}'],
  ])('finds what %s builds at run time', (line, found) => {
    expect(readShell(line).runTime).toBe(found)
  })

  it.each([
    "rg -n 'TODO$' src",
    "grep -c '^$' README.md",
    'rg -n "foo$" src',
    "rg -n '`foo`' docs",
    'cd "$HOME" && ls $HOME/x',
    "awk '{print $1}' f",
  ])('finds nothing built at run time in %s', (line) => {
    expect(readShell(line).runTime).toBeNull()
  })
})

describe('wordSpellings', () => {
  it.each([
    ['{.git,docs}/x', ['.git/x', 'docs/x']],
    ['.g{i,}t', ['.git', '.gt']],
    ['a{b,{c,d}}e', ['abe', 'ace', 'ade']],
    ['.gi{s..u}', ['.gis', '.git', '.giu']],
    ['.gi{t..t..1}', ['.git']],
    ['f{1..5..2}', ['f1', 'f3', 'f5']],
    ['~/.ssh', [join(homedir(), '.ssh')]],
  ])('reads %s as %j too', (word, names) => {
    expect(new Set(wordSpellings(word))).toEqual(new Set(names))
  })

  it('adds nothing for a word a shell leaves as it is', () => {
    expect(wordSpellings('docs/{x}')).toEqual([])
    expect(wordSpellings('plain/path.txt')).toEqual([])
  })

  it('gives up (null) on braces that make more names, or hold more groups, than are read', () => {
    expect(wordSpellings(`f{1..${MAX_BRACE_NAMES}}`)).toHaveLength(MAX_BRACE_NAMES)
    expect(wordSpellings(`f{1..${MAX_BRACE_NAMES + 1}}`)).toBeNull()
    expect(wordSpellings('{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}{m,n}{o,p}{q,r}')).toBeNull()
    expect(wordSpellings('{'.repeat(65))).toBeNull()
    expect(wordSpellings(`{a,b}${'x'.repeat(9_000)}`)).toBeNull()
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

describe('commandFinding', () => {
  it.each([
    ['git config core.hooksPath x', 'git config'],
    ['/usr/bin/git -C docs config --list', 'git config'],
    ['git -c core.fsmonitor=x status', 'git -c'],
    ['git -ccore.pager=x log', 'git -ccore.pager=x'],
    ['git --config-env=core.hooksPath=H status', 'git --config-env=core.hooksPath=H'],
    ['git --exec-path=/tmp/e status', 'git --exec-path=/tmp/e'],
    ['git init --template=/tmp/t', 'git init --template=/tmp/t'],
    ['git clone -c core.hooksPath=h src sub', 'git clone -c'],
    ['GIT_CONFIG_GLOBAL=/tmp/c git status', 'GIT_CONFIG_GLOBAL=/tmp/c'],
    ['GIT_TEMPLATE_DIR=/tmp/t git init', 'GIT_TEMPLATE_DIR=/tmp/t'],
    ['ls ; git config x y', 'git config'],
    ['echo hi\ngit config x y', 'git config'],
    ["bash -lc 'git config x y'", 'git config'],
    ['sudo -u me env A=1 git config x y', 'git config'],
    ['timeout 10 git config x y', 'git config'],
    ['nice -n 5 git config x y', 'git config'],
    ['>/dev/null git config x y', 'git config'],
    ['find . -exec git config x y ;', 'git config'],
  ])('finds what in %s changes what git runs', (line, found) => {
    expect(commandFinding(line)).toEqual({ kind: 'git-settings', what: found })
  })

  it.each([
    ['eval "$SCRIPT"', 'eval'],
    ['\\eval x', 'eval'],
    ["'eval' x", 'eval'],
    ['ev""al x', 'eval'],
    ['G=git; $G config x', '$G'],
    ['cp x $(id)', '$('],
  ])('finds what in %s is built at run time', (line, found) => {
    expect(commandFinding(line)).toEqual({ kind: 'built-at-run-time', what: found })
  })

  it.each([
    'git commit -c HEAD',
    'git grep -c config',
    'git log config',
    'git status',
    'echo git config',
    'grep -c "git config" docs',
    'rg -n GIT_CONFIG src',
    'rg -n eval src',
    'npm run eval',
    "rg -n 'TODO$' src",
    'bash -lc "rg -n foo src"',
    "sed -n '1,200p' README.md",
  ])('finds nothing in %s', (line) => {
    expect(commandFinding(line)).toBeNull()
  })
})
