// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest'
import { displaySafe } from '../common/display-safe-text.ts'
import { translate } from '../common/i18n/index.ts'
import { splitSegmentLines, trailingSpaces } from './file-lines-render.ts'
import { approvalView, inbox, start, useConsentPage } from './test-support/consent-page-harness.ts'
import { body } from './test-support/consent-page-queries.ts'

useConsentPage()

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

describe('a change of nothing but the last line feed', () => {
  // The removed and the added line read the same: the words after the one
  // with no line feed are the difference the person is shown.
  it.each(['en', 'zh-CN'] as const)('says which side has no line feed, in %s', (lang) => {
    start()
    inbox.deliver(
      approvalView({
        lang,
        kind: 'apply-changes',
        toolName: 'write_file',
        action: {
          type: 'write',
          path: 'notes.txt',
          absolutePath: '/home/ada/project/notes.txt',
          content: 'a\nb\n',
          fileChange: {
            path: 'notes.txt',
            kind: 'modify',
            truncated: false,
            hunks: [
              {
                oldStart: 1,
                oldLines: 2,
                newStart: 1,
                newLines: 2,
                lines: [
                  { op: 'context', text: 'a' },
                  { op: 'remove', text: 'b', noFinalNewline: true },
                  { op: 'add', text: 'b' },
                ],
              },
            ],
          },
        },
      }),
    )
    const texts = [...body().querySelectorAll('tbody tr.consent-line')].map(
      (row) => row.querySelector('.consent-line-text')?.textContent,
    )
    const end = translate(lang, 'consent.action.noFinalNewline')
    expect(texts).toEqual(['a', `b${end}`, 'b'])
  })
})

describe('spaces at the end of a changed line', () => {
  it('are set apart from the text before them, whatever the line', () => {
    expect(trailingSpaces([{ kind: 'text', text: 'a \\ \t ' }])).toEqual({
      segments: [{ kind: 'text', text: 'a \\' }],
      trailing: ' \t ',
    })
    expect(trailingSpaces([{ kind: 'text', text: '   ' }])).toEqual({
      segments: [],
      trailing: '   ',
    })
    const escaped = displaySafe('a\u00a0', { multiline: true }).segments
    expect(trailingSpaces(escaped)).toEqual({ segments: escaped, trailing: '' })
    expect(trailingSpaces([{ kind: 'text', text: ' a' }]).trailing).toBe('')
  })

  it.each(['en', 'zh-CN'] as const)(
    'are outlined and named on added and removed lines, in %s',
    (lang) => {
      start()
      inbox.deliver(
        approvalView({
          lang,
          kind: 'apply-changes',
          toolName: 'write_file',
          action: {
            type: 'write',
            path: 'run.sh',
            absolutePath: '/home/ada/project/run.sh',
            content: 'rm -r build \\ \n  /tmp/x\n',
            fileChange: {
              path: 'run.sh',
              kind: 'modify',
              truncated: false,
              hunks: [
                {
                  oldStart: 1,
                  oldLines: 2,
                  newStart: 1,
                  newLines: 2,
                  lines: [
                    { op: 'remove', text: 'rm -r build \\' },
                    { op: 'add', text: 'rm -r build \\ ' },
                    { op: 'context', text: '  /tmp/x  ' },
                  ],
                },
              ],
            },
          },
        }),
      )
      const marked = [...body().querySelectorAll('tbody tr.consent-line')].map((row) =>
        [...row.querySelectorAll('.consent-trailing-space')].map((span) => span.textContent),
      )
      expect(marked).toEqual([[], [' '], []])
      expect(
        body().querySelector('.consent-trailing-space + .consent-visually-hidden')?.textContent,
      ).toBe(translate(lang, 'consent.action.trailingSpaces'))
    },
  )
})
