import { homedir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { MAX_BRACE_NAMES, readShell, wordSpellings } from './shell-words.ts'

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

  // A fish script (`fish -c …`) as fish reads it.
  it.each([
    ["echo 'a\\'b' ; git x", ['echo', "a'b", ';', 'git', 'x'], ['echo', 'a\\b ; git x']],
    ["echo 'a\\\\b'", ['echo', 'a\\b'], ['echo', 'a\\\\b']],
    ['cp x {.git}/config', ['cp', 'x', '.git/config'], ['cp', 'x', '{.git}/config']],
    ['cp x {{.g}it}/h', ['cp', 'x', '.git/h'], ['cp', 'x', '{{.g}it}/h']],
    ['cp x {.git,y}/h', ['cp', 'x', '{.git,y}/h'], ['cp', 'x', '{.git,y}/h']],
  ])('reads %j in fish as %j (a POSIX shell: %j)', (line, fish, posix) => {
    expect(readShell(line, 'fish').words).toEqual(fish)
    expect(readShell(line).words).toEqual(posix)
  })

  it("finds fish's command substitution, a bare `(…)`, built at run time", () => {
    expect(readShell('cp x (echo .git)/config', 'fish').runTime).toBe('(')
    expect(readShell('cp x "(echo .git)"/config', 'fish').runTime).toBeNull()
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
