import { spawnSync } from 'node:child_process'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { quoteArgument, quotedCommandLine } from './shell-quoting.ts'

/** The argument vector a real POSIX shell reads the line as. */
function splitByShell(line: string): string[] {
  const shell = spawnSync('/bin/sh', ['-c', `set -- ${line}; printf '%s\\0' "$@"`], {
    encoding: 'utf8',
  })
  expect(shell.status).toBe(0)
  return shell.stdout.split('\0').slice(0, -1)
}

describe('shell quoting', () => {
  it('leaves an argument bare only when it holds nothing a shell reads', () => {
    expect(quotedCommandLine(['ls', '-la', 'AZaz09_@%+=:,./-'])).toBe('ls -la AZaz09_@%+=:,./-')
    expect(quotedCommandLine(['a b', 'x$', '', "it's"])).toBe(`'a b' 'x$' '' 'it'\\''s'`)
    for (const reads of ['*', '~', '`id`', '$(id)', 'a\nb', '\\', '#', 'a;b', '!', '{a,b}']) {
      expect(quoteArgument(reads)).toMatch(/^'.*'$/s)
    }
  })

  it('writes every argument vector as a line a real shell splits back into it', () => {
    const nasty = ['', ' ', "'", "''", '"', '$HOME', '`id`', '*', '~', 'a\nb', '\\', '-n', '\t']
    expect(splitByShell(quotedCommandLine(nasty))).toEqual(nasty)
    fc.assert(
      fc.property(
        fc.array(
          fc.string({ unit: 'grapheme' }).filter((arg) => !arg.includes('\0')),
          { minLength: 1, maxLength: 5 },
        ),
        (argv) => {
          expect(splitByShell(quotedCommandLine(argv))).toEqual(argv)
        },
      ),
      { numRuns: 200 },
    )
  })
})
