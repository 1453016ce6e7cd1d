import { describe, expect, it } from 'vitest'
import { coreHooksPath } from './git-hooks-folder.ts'

describe('coreHooksPath', () => {
  it.each([
    ['[core]\n\thooksPath = tools/hooks\n', 'tools/hooks'],
    ['[core]\n\thooksPath = "my hooks"\n', 'my hooks'],
    ['[CORE]\n\tHOOKSPATH=.hooks\n', '.hooks'],
    ['[core]\n\thooksPath = a\n[core]\n\thooksPath = b\n', 'b'],
    // As git reads them: a comment after the value, a key on the section's
    // line, quotes around part of a value and escapes inside them.
    ['[core]\n\thooksPath = tools/hooks ; moved by the team\n', 'tools/hooks'],
    ['[core]\n\thooksPath = tools/hooks # moved\n', 'tools/hooks'],
    ['[core] hooksPath = inline/hooks\n', 'inline/hooks'],
    ['[core]\n\thooksPath = "a;b #c" ; comment\n', 'a;b #c'],
    ['[core]\n\thooksPath = my" "hooks\n', 'my hooks'],
    ['[core]\n\thooksPath = "say \\"hi\\""\n', 'say "hi"'],
  ])('reads %j as %s', (config, expected) => {
    expect(coreHooksPath(config)).toBe(expected)
  })

  it('reads no hooksPath outside the [core] section', () => {
    expect(coreHooksPath('[alias]\n\thooksPath = x\n')).toBeNull()
    expect(coreHooksPath('[alias] hooksPath = x\n')).toBeNull()
    expect(coreHooksPath('[core]\n\tbare = false\n[user]\n\thooksPath = x\n')).toBeNull()
  })
})
