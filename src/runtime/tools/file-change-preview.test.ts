import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { FileChangeSchema, type FileChange } from '../../contracts/file-change.ts'
import { NO_FINAL_NEWLINE } from '../domain/file-change-preview.ts'
import {
  MAX_PREVIEW_EDIT_LINES,
  MAX_PREVIEW_LINES,
  fileChangePreview,
  fileChangeText,
} from './file-change-preview.ts'

const text = (value: string) => ({ sha256: '0'.repeat(64), text: value })

/** Applies the preview's hunks to the old lines: the result must be the new
 *  lines, or the person was shown something other than what is written. */
function apply(oldLines: string[], change: FileChange): string[] {
  const out: string[] = []
  let next = 0
  for (const hunk of change.hunks) {
    const start = hunk.oldLines === 0 ? hunk.oldStart : hunk.oldStart - 1
    out.push(...oldLines.slice(next, start))
    let at = start
    for (const line of hunk.lines) {
      if (line.op === 'add') {
        out.push(line.text)
        continue
      }
      expect(oldLines[at]).toBe(line.text)
      if (line.op === 'context') out.push(line.text)
      at += 1
    }
    next = at
  }
  out.push(...oldLines.slice(next))
  return out
}

const linesOf = (content: string) => {
  if (content === '') return []
  const lines = content.split('\n')
  if (content.endsWith('\n')) lines.pop()
  return lines
}

describe('the preview of a write', () => {
  it('shows a new file as one hunk of added lines numbered from 1', () => {
    const change = fileChangePreview('notes.txt', null, 'one\ntwo\n')
    expect(change).toEqual({
      path: 'notes.txt',
      kind: 'create',
      truncated: false,
      hunks: [
        {
          oldStart: 0,
          oldLines: 0,
          newStart: 1,
          newLines: 2,
          lines: [
            { op: 'add', text: 'one' },
            { op: 'add', text: 'two' },
          ],
        },
      ],
    })
    expect(FileChangeSchema.parse(change)).toEqual(change)
  })

  it('counts the last line of a new file that has no final line feed', () => {
    expect(fileChangePreview('n.txt', null, 'one\ntwo').hunks[0]?.lines).toEqual([
      { op: 'add', text: 'one' },
      { op: 'add', text: 'two' },
    ])
  })

  it('numbers a pure insertion and a pure deletion from the line before, as unified diffs do', () => {
    const old = 'a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n'
    const inserted = fileChangePreview('n', text(''), 'x\n')
    expect(inserted.hunks[0]).toMatchObject({ oldStart: 0, oldLines: 0, newStart: 1, newLines: 1 })
    const removed = fileChangePreview('n', text('x\n'), '')
    expect(removed.hunks[0]).toMatchObject({ oldStart: 1, oldLines: 1, newStart: 0, newLines: 0 })
    expect(fileChangePreview('n', text(old), old).hunks).toEqual([])
  })

  it('prints each line with its old and new number and its mark, and says when it was cut', () => {
    const change = fileChangePreview('n', text('a\nb\n'), 'a\nc\n')
    expect(fileChangeText(change)).toBe(
      ['@@ -1,2 +1,2 @@', '     1      1  a', '     2        -b', '            2 +c'].join('\n'),
    )
    expect(
      fileChangeText({ ...change, truncated: true })
        .split('\n')
        .at(-1),
    ).toBe('[the change is too large to show in full]')
  })

  it('holds at most one hunk per edited line, within the contract, at the edit limit', () => {
    const oldLines = Array.from({ length: 3_000 }, (_, i) => `k${i}`)
    const newLines = oldLines.map((line, i) => (i % 12 === 0 && i < 12 * 240 ? `${line}!` : line))
    const change = fileChangePreview('big', text(oldLines.join('\n')), newLines.join('\n'))
    expect(change.truncated).toBe(false)
    expect(change.hunks.length).toBe(240)
    expect(FileChangeSchema.safeParse(change).success).toBe(true)
  })

  it('shows an empty new file with no lines', () => {
    expect(fileChangePreview('empty.txt', null, '')).toEqual({
      path: 'empty.txt',
      kind: 'create',
      hunks: [],
      truncated: false,
    })
  })

  it('shows a change to an existing file as numbered hunks with context', () => {
    const old = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join('\n') + '\n'
    const next = old.replace('line 10\n', 'line ten\n')
    const change = fileChangePreview('n.txt', text(old), next)
    expect(change.kind).toBe('modify')
    expect(change.hunks).toEqual([
      {
        oldStart: 7,
        oldLines: 7,
        newStart: 7,
        newLines: 7,
        lines: [
          { op: 'context', text: 'line 7' },
          { op: 'context', text: 'line 8' },
          { op: 'context', text: 'line 9' },
          { op: 'remove', text: 'line 10' },
          { op: 'add', text: 'line ten' },
          { op: 'context', text: 'line 11' },
          { op: 'context', text: 'line 12' },
          { op: 'context', text: 'line 13' },
        ],
      },
    ])
    expect(fileChangeText(change).split('\n').slice(0, 5)).toEqual([
      '@@ -7,7 +7,7 @@',
      '     7      7  line 7',
      '     8      8  line 8',
      '     9      9  line 9',
      '    10        -line 10',
    ])
  })

  it('marks the line a "no newline at end of file" remark follows, which is not a line', () => {
    const change = fileChangePreview('n.txt', text('a\nb'), 'a\nb\n')
    expect(change.hunks[0]?.lines).toEqual([
      { op: 'context', text: 'a' },
      { op: 'remove', text: 'b', noFinalNewline: true },
      { op: 'add', text: 'b' },
    ])
    expect(FileChangeSchema.safeParse(change).success).toBe(true)
    expect(fileChangeText(change).split('\n')).toEqual([
      '@@ -1,2 +1,2 @@',
      '     1      1  a',
      '     2        -b',
      NO_FINAL_NEWLINE,
      '            2 +b',
    ])
    const removed = fileChangePreview('n.txt', text('a\n'), 'a')
    expect(removed.hunks[0]?.lines).toEqual([
      { op: 'remove', text: 'a' },
      { op: 'add', text: 'a', noFinalNewline: true },
    ])
  })

  it('shows nothing but a truncation for a file that is not text or too large to diff', () => {
    expect(fileChangePreview('bin', { sha256: '0'.repeat(64), text: null }, 'x')).toEqual({
      path: 'bin',
      kind: 'modify',
      hunks: [],
      truncated: true,
    })
  })

  it('gives up on a diff longer than its edit limit instead of taking unbounded time', () => {
    const old = Array.from({ length: MAX_PREVIEW_EDIT_LINES + 10 }, (_, i) => `a${i}`).join('\n')
    const next = Array.from({ length: MAX_PREVIEW_EDIT_LINES + 10 }, (_, i) => `b${i}`).join('\n')
    expect(fileChangePreview('big', text(old), next)).toEqual({
      path: 'big',
      kind: 'modify',
      hunks: [],
      truncated: true,
    })
  })

  it('cuts a very long new file at the line cap and says so', () => {
    const content = Array.from({ length: MAX_PREVIEW_LINES + 5 }, (_, i) => `l${i}`).join('\n')
    const change = fileChangePreview('long', null, content)
    expect(change.truncated).toBe(true)
    expect(change.hunks[0]?.newLines).toBe(MAX_PREVIEW_LINES)
    expect(FileChangeSchema.safeParse(change).success).toBe(true)
  })

  it('always fits the contract and, applied to the old lines, gives exactly the new ones', () => {
    const line = fc.constantFrom('a', 'b', 'c', '', ' x', 'd\r')
    const content = fc
      .tuple(fc.array(line, { maxLength: 40 }), fc.boolean())
      .map(([lines, finalBreak]) => lines.join('\n') + (finalBreak && lines.length > 0 ? '\n' : ''))
    let compared = 0
    fc.assert(
      fc.property(content, content, (old, next) => {
        const change = fileChangePreview('f.txt', text(old), next)
        expect(FileChangeSchema.safeParse(change).success).toBe(true)
        expect(change.truncated).toBe(false)
        expect(apply(linesOf(old), change)).toEqual(linesOf(next))
        compared += 1
      }),
      { numRuns: 400 },
    )
    expect(compared).toBe(400)
  })

  it('is the same every time for the same contents, since the digest covers it', () => {
    const old = 'a\nb\nc\n'.repeat(50)
    const next = old.replace(/b/g, 'B')
    expect(fileChangePreview('f', text(old), next)).toEqual(fileChangePreview('f', text(old), next))
  })
})
