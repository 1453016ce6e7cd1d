import { describe, expect, it } from 'vitest'
import { displaySafe } from '../common/display-safe-text.ts'
import { splitSegmentLines } from './file-lines-render.ts'

describe('a file drawn line by line', () => {
  // A file's content is made safe whole, then cut into lines: a look-alike
  // word keeps its mark on its line, or the notice above the buttons would
  // name a word the file shows nowhere.
  it('keeps the mark of a look-alike word and the escapes on their lines', () => {
    const safe = displaySafe('see\nhttps://p\u0430ypal.com\u200B\necho ok \uFF03 ; rm x\n', {
      multiline: true,
    })
    expect(splitSegmentLines(safe.segments)).toEqual([
      [{ kind: 'text', text: 'see' }],
      [
        { kind: 'text', text: 'https://' },
        { kind: 'text', text: 'p\u0430ypal', lookalike: true },
        { kind: 'text', text: '.com' },
        { kind: 'escape', original: '\u200B', label: '⟨U+200B⟩', reason: 'invisible' },
      ],
      [
        { kind: 'text', text: 'echo ok ' },
        { kind: 'text', text: '\uFF03', lookalike: true },
        { kind: 'text', text: ' ; rm x' },
      ],
      [],
    ])
  })
})
