import { describe, expect, it } from 'vitest'
import { displaySafe, originalText, type DisplaySafeText } from './display-safe-text.ts'

// A shell reads a fullwidth `＃`, a curly quote or a `＼` as a letter of a
// word: in a one-line value they make text the shell runs look like a
// comment, a quoted string or an escaped character. Each is marked, as a
// look-alike word is, and the window says so.

const lookalikes = (safe: DisplaySafeText) =>
  safe.segments.flatMap((s) => (s.kind === 'text' && s.lookalike === true ? [s.text] : []))

describe('characters that pass for a shell quote or comment sign', () => {
  it.each([
    ['fullwidth number sign', 'echo ok \uFF03 ; touch pwned', ['\uFF03']],
    ['small number sign', 'echo ok \uFE5F ; touch pwned', ['\uFE5F']],
    ['curly single quotes', 'echo \u2018; touch pwned\u2019', ['\u2018', '\u2019']],
    ['curly double quotes', 'echo \u201C; touch pwned\u201D', ['\u201C', '\u201D']],
    [
      'fullwidth quotes',
      'echo \uFF07; touch pwned\uFF07 \uFF02x\uFF02',
      ['\uFF07', '\uFF07', '\uFF02', '\uFF02'],
    ],
    ['fullwidth backslash', 'echo ok\uFF3C; touch pwned', ['\uFF3C']],
    ['set minus (a backslash)', 'echo ok\u2216; touch pwned', ['\u2216']],
    ['fullwidth grave accent', 'echo \uFF40; touch pwned\uFF40', ['\uFF40', '\uFF40']],
    ['here-document signs', 'cat \uFF1C\uFF1CEOF', ['\uFF1C\uFF1C']],
    ['curly apostrophe in a path', '/home/ada/Ada\u2019s notes/a.txt', ['\u2019']],
  ])('marks a %s in a one-line value and warns', (_what, text, marked) => {
    const safe = displaySafe(text)
    expect(lookalikes(safe)).toEqual(marked)
    expect(safe.warnings.has('confusable')).toBe(true)
    expect(originalText(safe)).toBe(text)
  })

  // Text with lines is prose as well as code: only the fullwidth and small
  // forms are marked there, and not among Chinese or Japanese.
  it.each([
    [
      "an MCP shell tool's arguments",
      '{\n  "command": "echo ok \uFF03 ; touch pwned"\n}',
      ['\uFF03'],
    ],
    [
      'a script',
      'echo ok\n\uFF3C\necho \uFF02; touch pwned\uFF02\n',
      ['\uFF3C', '\uFF02', '\uFF02'],
    ],
    ['a here document', 'cat \uFE64\uFE64EOF\nrm x\nEOF\n', ['\uFE64\uFE64']],
  ])('marks a fullwidth sign in %s', (_what, text, marked) => {
    const safe = displaySafe(text, { multiline: true })
    expect(lookalikes(safe)).toEqual(marked)
    expect(safe.warnings.has('confusable')).toBe(true)
  })

  it('leaves curly quotes and Chinese or Japanese punctuation alone in text with lines', () => {
    for (const text of [
      '他说：\u201C你好\u201D。\n',
      'It\u2019s \u201Cdone\u201D.\n',
      '话题\uFF03一\n\uFF03标题\n',
    ]) {
      const safe = displaySafe(text, { multiline: true })
      expect(safe.segments).toEqual([{ kind: 'text', text }])
      expect(safe.warnings.size).toBe(0)
    }
  })

  // A dash that only passes for `-` makes a word read as an option the
  // program does not take: `rsync ‐‐dry-run a b` copies for real.
  it.each([
    ['hyphens in a command line', 'rsync \u2010\u2010dry-run a/ b/', false, ['\u2010\u2010']],
    [
      'a minus sign and a dash',
      'git clean -fdx \u2212n && rm \u2013i x',
      false,
      ['\u2212', '\u2013'],
    ],
    ['one real and one fake dash', 'rsync -\u2010dry-run a/ b/', false, ['\u2010']],
    ['a fullwidth hyphen-minus in arguments', '{\n  "args": ["\uFF0Dn", "x"]\n}', true, ['\uFF0D']],
  ])('marks %s where an option stands', (_what, text, multiline, marked) => {
    const safe = displaySafe(text, { multiline })
    expect(lookalikes(safe)).toEqual(marked)
    expect(safe.warnings.has('confusable')).toBe(true)
  })

  it('leaves a dash in prose or inside a word alone', () => {
    for (const [text, multiline] of [
      ['Report \u2013 final.pdf', false],
      ['1990\u20132000, well\u2010known \u2014 see\n', true],
      ['a\u2010b', false],
    ] as const) {
      const safe = displaySafe(text, { multiline })
      expect(lookalikes(safe)).toEqual([])
      expect(safe.warnings.size).toBe(0)
    }
  })

  it('leaves the ASCII signs and plain fullwidth punctuation alone', () => {
    for (const text of ['echo \'a\' "b" `c` \\d # e <<EOF', '笔记（一）；第二行，完。']) {
      const safe = displaySafe(text)
      expect(lookalikes(safe)).toEqual([])
      expect(safe.warnings.size).toBe(0)
    }
  })
})
