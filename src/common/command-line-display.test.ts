import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { commandLineDisplay, readCommandLineDisplay } from './command-line-display.ts'

describe('commandLineDisplay', () => {
  it('shows plain words as they are and quotes anything a shell would read', () => {
    expect(commandLineDisplay(['git', 'status'], false)).toBe('git status')
    expect(commandLineDisplay(['rm', 'a b'], false)).toBe("rm 'a b'")
    expect(commandLineDisplay(['echo', ''], false)).toBe("echo ''")
    expect(commandLineDisplay(['echo', "it's", '$HOME;x'], false)).toBe(`echo 'it'\\''s' '$HOME;x'`)
  })

  it('shows a shell command as the one line the shell receives', () => {
    expect(commandLineDisplay(['ls', '-l', '|', 'wc'], true)).toBe('ls -l | wc')
  })

  it('never shows two different argument lists as the same line', () => {
    fc.assert(
      fc.property(fc.array(fc.string(), { minLength: 1, maxLength: 6 }), (argv) => {
        expect(readCommandLineDisplay(commandLineDisplay(argv, false))).toEqual(argv)
      }),
      { numRuns: 500 },
    )
  })
})
