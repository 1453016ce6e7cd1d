import { readFileSync } from 'node:fs'
import { homedir, userInfo } from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { wordReadings } from './argument-spellings.ts'
import { leadingExpansion, namesUnknownHome, namesUnknownPlace } from './leading-expansion.ts'

/** A user this machine lists, other than the person, with their home. */
const other = readFileSync('/etc/passwd', 'utf8')
  .split('\n')
  .map((line) => line.split(':'))
  .find(([name, , , , , home]) => name && name !== userInfo().username && home?.startsWith('/'))

describe('leadingExpansion', () => {
  it('reads the folders a shell or a server puts at the start of a name', () => {
    const home = homedir()
    expect(leadingExpansion('~')).toBe(home)
    expect(leadingExpansion('~/x')).toBe(path.join(home, 'x'))
    expect(leadingExpansion(`~${userInfo().username}/x`)).toBe(path.join(home, 'x'))
    expect(leadingExpansion('$HOME/x')).toBe(path.join(home, 'x'))
    expect(leadingExpansion('${HOME}')).toBe(home)
    // The folder it runs in: relative, taken from each folder it may be.
    expect(leadingExpansion('~+/../x')).toBe('./../x')
    expect(leadingExpansion('$PWD/../x')).toBe('./../x')
    expect(leadingExpansion('${PWD}')).toBe('.')
    if (other !== undefined) {
      expect(leadingExpansion(`~${other[0]}/x`)).toBe(path.join(other[5] ?? '', 'x'))
    }
  })

  it('leaves what it cannot know, and what is no such start, unread', () => {
    for (const name of ['~-/x', '$OLDPWD/x', '~2/x', '~+1', '~no-such-user-here/x', '~~x~~']) {
      expect(leadingExpansion(name), name).toBeNull()
    }
    for (const name of ['docs/~/x', '$HOMEWORK/x', 'x~']) {
      expect(leadingExpansion(name), name).toBeNull()
    }
  })
})

describe('namesUnknownPlace', () => {
  it.each([
    ['~no-such-user-here/x', true, true],
    ['~-/x', true, true],
    ['${OLDPWD}', true, true],
    ['~3', true, true],
    ['$XDG_CONFIG_HOME/gh/hosts.yml', true, false],
    ['docs/$SUB/../x', true, false],
    ['docs/${SUB}', true, false],
    ['$HOME/$X', true, false],
    ['$1/x', true, false],
    ['$1', false, false],
    ['$USER', false, false],
    // Known, or no variable at all.
    ['~/x', false, false],
    ['$PWD/../x', false, false],
    ['~+/x', false, false],
    ['homework/x', false, false],
    ['price$5', false, false],
    ['~~struck~~', false, false],
    ['docs/~/x', false, false],
  ])('%s: unknown place %s, unknown folder at its start %s', (name, place, home) => {
    expect(namesUnknownPlace(name)).toBe(place)
    expect(namesUnknownHome(name)).toBe(home)
  })
})

describe('wordReadings: a short option’s glued value', () => {
  it('reads every suffix after an option letter that names a path', () => {
    expect(wordReadings('-o.git/config')).toEqual(['.git/config'])
    expect(wordReadings('-sSo.git/config')).toEqual([
      'So.git/config',
      'o.git/config',
      '.git/config',
    ])
    expect(wordReadings('-f/outside/secret')).toEqual(['/outside/secret'])
    expect(wordReadings('-t.git/hooks')).toEqual(['.git/hooks'])
    expect(wordReadings('-ohooks/pre-commit')).toContain('hooks/pre-commit')
    expect(wordReadings('-o~/x')).toEqual(['~/x', path.join(homedir(), 'x')])
  })

  it('adds nothing for a word that is no glued path, and cannot read too long a run', () => {
    for (const word of ['-v', '-rf', '--out=x', 'plain', '-', '-5']) {
      expect(wordReadings(word), word).toEqual([])
    }
    expect(wordReadings(`-${'v'.repeat(33)}/x`)).toBeNull()
    expect(wordReadings(`-${'v'.repeat(32)}/x`)).toContain('/x')
  })
})
