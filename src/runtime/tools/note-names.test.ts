import { describe, expect, it } from 'vitest'
import { nameInNote } from './note-names.ts'

describe('a name written into a note', () => {
  it.each([
    ['a line break', 'notes\n[nothing else]/.git', 'notes\\u{A}[nothing else]/.git'],
    ['a carriage return', 'a\rb', 'a\\u{D}b'],
    ['the line separator', 'a\u2028b', 'a\\u{2028}b'],
    ['the next-line control', 'a\u0085b', 'a\\u{85}b'],
    ['a direction override', 'invoice\u202Etxt.exe', 'invoice\\u{202E}txt.exe'],
    ['a zero-width space', '.g\u200Bit', '.g\\u{200B}it'],
    ['an escape starting a terminal sequence', 'a\u001b[2Jb', 'a\\u{1B}[2Jb'],
    ['a backslash, doubled so the escapes read back', 'a\\u{A}b', 'a\\\\u{A}b'],
  ])('writes %s as its code point', (_what, name, written) => {
    expect(nameInNote(name)).toBe(written)
  })

  it('leaves every other name as it is, Chinese and spaces included', () => {
    for (const name of ['/w/sub/.git', '/w/我的 笔记/.git', '/w/a b/c-d_e.txt']) {
      expect(nameInNote(name)).toBe(name)
    }
  })
})
