import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  FileChangeSchema,
  type FileChange,
  type FileChangeHunk,
} from '../../contracts/file-change.ts'
import {
  CONTEXT_LINES,
  editAsText,
  editPreview,
  lineOfOnlyOccurrence,
  newFilePreview,
  NO_FINAL_NEWLINE,
  removalPreview,
  textLines,
  unifiedDiffPreview,
} from './file-change-preview.ts'

/** Applies a preview's hunks to the old lines, checking every context and
 *  removed line against them: what the person would see happen. */
function applied(oldLines: readonly string[], hunks: readonly FileChangeHunk[]): string[] {
  const out: string[] = []
  let next = 0
  for (const hunk of hunks) {
    const start = hunk.oldLines === 0 ? hunk.oldStart : hunk.oldStart - 1
    out.push(...oldLines.slice(next, start))
    next = start
    for (const line of hunk.lines) {
      if (line.op === 'add') {
        out.push(line.text)
        continue
      }
      if (oldLines[next] !== line.text) throw new Error(`line ${next + 1} is not "${line.text}"`)
      if (line.op === 'context') out.push(line.text)
      next += 1
    }
  }
  return [...out, ...oldLines.slice(next)]
}

/** The hunks written as a unified diff, as Codex sends an edit. */
function unifiedText(change: FileChange): string {
  return change.hunks
    .map(
      (hunk) =>
        `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@\n` +
        hunk.lines
          .map(
            (l) =>
              `${{ context: ' ', add: '+', remove: '-' }[l.op]}${l.text}\n` +
              (l.noFinalNewline === true ? `${NO_FINAL_NEWLINE}\n` : ''),
          )
          .join(''),
    )
    .join('')
}

const lines = fc.array(fc.constantFrom('a', 'b', 'c', 'd', '', 'x y'), { maxLength: 40 })
/** Lines joined into a text that ends with a line feed or, when `ends` is
 *  false, without one. */
const joined = (list: readonly string[], ends: boolean) =>
  ends ? list.map((l) => `${l}\n`).join('') : list.join('\n')

describe('editPreview', () => {
  it('turns every edit into valid hunks that, applied to the old text, give the new text', () => {
    fc.assert(
      fc.property(lines, lines, (before, after) => {
        const preview = editPreview(
          '/f',
          before.map((l) => `${l}\n`).join(''),
          after.map((l) => `${l}\n`).join(''),
        )
        expect(FileChangeSchema.safeParse(preview).success).toBe(true)
        expect(applied(before, preview.hunks)).toEqual(after)
        // Nothing is shown as changed when nothing changed.
        if (JSON.stringify(before) === JSON.stringify(after)) expect(preview.hunks).toEqual([])
      }),
      { numRuns: 400 },
    )
  })

  it('shows each change with at most three unchanged lines around it', () => {
    const before = ['1', '2', '3', '4', '5', '6', '7', '8', '9', '10', '11', '12']
    const after = before.map((line) => (line === '2' || line === '11' ? `${line}!` : line))
    const preview = editPreview('/f', `${before.join('\n')}\n`, `${after.join('\n')}\n`)
    expect(CONTEXT_LINES).toBe(3)
    expect(preview.hunks.map((h) => [h.oldStart, h.oldLines, h.newStart, h.newLines])).toEqual([
      [1, 5, 1, 5],
      [8, 5, 8, 5],
    ])
    expect(preview.hunks[0]?.lines).toEqual([
      { op: 'context', text: '1' },
      { op: 'remove', text: '2' },
      { op: 'add', text: '2!' },
      { op: 'context', text: '3' },
      { op: 'context', text: '4' },
      { op: 'context', text: '5' },
    ])
  })

  it('shows no change only where the texts are the same, the last line feed included', () => {
    fc.assert(
      fc.property(lines, fc.boolean(), lines, fc.boolean(), (before, oldEnds, after, newEnds) => {
        const oldText = joined(before, oldEnds)
        const newText = joined(after, newEnds)
        const preview = editPreview('/f', oldText, newText)
        expect(FileChangeSchema.safeParse(preview).success).toBe(true)
        expect(preview.hunks.length === 0).toBe(oldText === newText)
        if (preview.hunks.length > 0) {
          expect(unifiedDiffPreview('/f', unifiedText(preview))).toEqual(preview)
        }
      }),
      { numRuns: 400 },
    )
  })

  it('marks the side of an edit that ends with no line feed, where only one does', () => {
    expect(editPreview('/f', 'a\nb', 'a\nb\n').hunks[0]?.lines).toEqual([
      { op: 'context', text: 'a' },
      { op: 'remove', text: 'b', noFinalNewline: true },
      { op: 'add', text: 'b' },
    ])
    expect(editPreview('/f', 'a\n', 'a').hunks[0]?.lines).toEqual([
      { op: 'remove', text: 'a' },
      { op: 'add', text: 'a', noFinalNewline: true },
    ])
    // A part of a file (an ACP agent's edit) seldom ends with a line feed:
    // where both sides end alike, nothing is marked.
    expect(editPreview('/f', 'x = 1', 'x = 2').hunks[0]?.lines).toEqual([
      { op: 'remove', text: 'x = 1' },
      { op: 'add', text: 'x = 2' },
    ])
    expect(editAsText('a', 'a\n')).toBe(`-a\n${NO_FINAL_NEWLINE}\n+a\n`)
  })

  it('numbers an edit of part of a file with the lines it has in the file', () => {
    const preview = editPreview('/f', 'two\nthree\n', 'two\nTHREE\n', 5)
    expect(preview.hunks[0]).toMatchObject({ oldStart: 6, newStart: 6 })
  })
})

describe('unifiedDiffPreview', () => {
  it('reads what editPreview would show, for any edit', () => {
    let read = 0
    fc.assert(
      fc.property(lines, lines, (before, after) => {
        const preview = editPreview(
          '/f',
          before.map((l) => `${l}\n`).join(''),
          after.map((l) => `${l}\n`).join(''),
        )
        fc.pre(preview.hunks.length > 0)
        read += 1
        expect(unifiedDiffPreview('/f', unifiedText(preview))).toEqual(preview)
      }),
      { numRuns: 300 },
    )
    // fc.pre skips unchanged texts; most inputs must still have been read.
    expect(read).toBeGreaterThan(200)
  })

  it("reads Codex's diff of an edit", () => {
    expect(unifiedDiffPreview('/w/a.txt', '@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n')).toEqual({
      path: '/w/a.txt',
      kind: 'modify',
      truncated: false,
      hunks: [
        {
          oldStart: 1,
          oldLines: 3,
          newStart: 1,
          newLines: 3,
          lines: [
            { op: 'context', text: 'one' },
            { op: 'remove', text: 'two' },
            { op: 'add', text: 'TWO' },
            { op: 'context', text: 'three' },
          ],
        },
      ],
    })
  })

  it('skips file headers and marks the line a "no newline" remark follows', () => {
    const preview = unifiedDiffPreview(
      '/f',
      '--- a/f\n+++ b/f\n@@ -1 +1 @@\n-old\n\\ No newline at end of file\n+new\n',
    )
    expect(preview?.hunks[0]?.lines).toEqual([
      { op: 'remove', text: 'old', noFinalNewline: true },
      { op: 'add', text: 'new' },
    ])
  })

  it('gives no preview for a "no newline" remark after a line its side has more after', () => {
    // The person would be told of a file's end in the middle of the file.
    const early = '@@ -1,2 +1,2 @@\n-a\n\\ No newline at end of file\n-b\n+A\n+B\n'
    expect(unifiedDiffPreview('/f', early)).toBeNull()
    const context = '@@ -1,2 +1,2 @@\n a\n\\ No newline at end of file\n-b\n+B\n'
    expect(unifiedDiffPreview('/f', context)).toBeNull()
    // After the last line of each side, it stands.
    const both = '@@ -1 +1,2 @@\n-a\n\\ No newline at end of file\n+a\n+b\n'
    expect(unifiedDiffPreview('/f', both)?.hunks[0]?.lines[0]).toEqual({
      op: 'remove',
      text: 'a',
      noFinalNewline: true,
    })
  })

  it('gives no preview for a diff it cannot read whole, rather than guess', () => {
    // A line that is not context, removal or addition.
    expect(unifiedDiffPreview('/f', '@@ -1 +1 @@\n*old\n+new\n')).toBeNull()
    // Counts that do not match the lines.
    expect(unifiedDiffPreview('/f', '@@ -1,2 +1 @@\n-old\n+new\n')).toBeNull()
    // Text before any hunk.
    expect(unifiedDiffPreview('/f', 'new content\n')).toBeNull()
    // No hunk at all.
    expect(unifiedDiffPreview('/f', '')).toBeNull()
    // Hunks out of order.
    expect(unifiedDiffPreview('/f', '@@ -5 +5 @@\n-e\n+E\n@@ -1 +1 @@\n-a\n+A\n')).toBeNull()
  })
})

describe('new files and removals', () => {
  it('shows a new file as all of its lines added', () => {
    expect(newFilePreview('/n', 'a\nb')).toEqual({
      path: '/n',
      kind: 'create',
      truncated: false,
      hunks: [
        {
          oldStart: 0,
          oldLines: 0,
          newStart: 1,
          newLines: 2,
          lines: [
            { op: 'add', text: 'a' },
            { op: 'add', text: 'b' },
          ],
        },
      ],
    })
    expect(newFilePreview('/n', '').hunks).toEqual([])
  })

  it('shows a removal as all of its lines removed', () => {
    const preview = removalPreview('/r', 'bye\n')
    expect(FileChangeSchema.safeParse(preview).success).toBe(true)
    expect(preview.hunks).toEqual([
      {
        oldStart: 1,
        oldLines: 1,
        newStart: 0,
        newLines: 0,
        lines: [{ op: 'remove', text: 'bye' }],
      },
    ])
  })
})

describe('lineOfOnlyOccurrence', () => {
  it('places a part that occurs once at the start of a line', () => {
    expect(lineOfOnlyOccurrence('one\ntwo\nthree\n', 'two\nthree\n')).toBe(1)
    expect(lineOfOnlyOccurrence('one\ntwo\n', 'one\ntwo\n')).toBe(0)
  })

  it('places nothing it could place twice, inside a line, or not at all', () => {
    expect(lineOfOnlyOccurrence('a\nb\na\nb\n', 'a\nb\n')).toBeNull()
    expect(lineOfOnlyOccurrence('xa\nb\n', 'a\nb\n')).toBeNull()
    expect(lineOfOnlyOccurrence('c\n', 'a\n')).toBeNull()
    expect(lineOfOnlyOccurrence('c\n', '')).toBeNull()
  })
})

describe('editAsText', () => {
  it('writes an edit as unnumbered diff lines', () => {
    expect(editAsText('one\ntwo\n', 'one\nTWO\n')).toBe(' one\n-two\n+TWO\n')
    expect(textLines('a\n\nb')).toEqual(['a', '', 'b'])
  })
})
