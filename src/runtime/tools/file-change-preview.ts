import { structuredPatch } from 'diff'
import type { FileChange, FileChangeHunk, FileChangeLine } from '../../contracts/file-change.ts'
import { NO_FINAL_NEWLINE } from '../domain/file-change-preview.ts'
import type { ReplacedContent } from './file-target.ts'

/**
 * What a write changes, as the protected window shows it: a diff of the
 * file's current content against the new content (a new file: all of its
 * lines), computed when the approval is opened. The preview is part of the
 * canonical action, so it must be the same every time for the same
 * contents: the diff is bounded by edit length (deterministic), never by a
 * clock.
 */

/** Lines of unchanged context around each change. */
export const PREVIEW_CONTEXT_LINES = 3

/** Beyond this many differing lines the diff is not computed (its cost
 *  grows with the square of it, and it runs on the runtime's event loop):
 *  the window shows the new content whole. */
export const MAX_PREVIEW_EDIT_LINES = 500

/** The most lines a new file's preview holds; past them it is cut and
 *  flagged, and the window shows the new content whole as well. */
export const MAX_PREVIEW_LINES = 5_000

/**
 * The preview of writing `next` to `shownPath`. `current` is null when the
 * file does not exist, else what observing it read: a file too large or
 * not text has no lines to diff, so its preview is empty and truncated.
 */
export function fileChangePreview(
  shownPath: string,
  current: ReplacedContent | null,
  next: string,
): FileChange {
  if (current === null) return created(shownPath, next)
  if (current.text === null) return { path: shownPath, kind: 'modify', hunks: [], truncated: true }
  const patch = structuredPatch('', '', current.text, next, undefined, undefined, {
    context: PREVIEW_CONTEXT_LINES,
    maxEditLength: MAX_PREVIEW_EDIT_LINES,
  })
  if (patch === undefined) return { path: shownPath, kind: 'modify', hunks: [], truncated: true }
  const hunks = patch.hunks.map((hunk) =>
    normalised({
      oldStart: hunk.oldStart,
      oldLines: hunk.oldLines,
      newStart: hunk.newStart,
      newLines: hunk.newLines,
      lines: linesOf(hunk.lines),
    }),
  )
  // Bounded by the edit limit: at most MAX_PREVIEW_EDIT_LINES changed lines,
  // so at most that many hunks (the contract allows 1 000), each with a few
  // lines of context.
  return { path: shownPath, kind: 'modify', hunks, truncated: false }
}

function created(shownPath: string, next: string): FileChange {
  const lines = splitLines(next)
  if (lines.length === 0) return { path: shownPath, kind: 'create', hunks: [], truncated: false }
  const kept = lines.slice(0, MAX_PREVIEW_LINES)
  return {
    path: shownPath,
    kind: 'create',
    hunks: [
      {
        oldStart: 0,
        oldLines: 0,
        newStart: 1,
        newLines: kept.length,
        lines: kept.map((text) => ({ op: 'add', text })),
      },
    ],
    truncated: kept.length < lines.length,
  }
}

/** Unified-diff convention: a side with no lines starts at the line before
 *  (0 for the start of the file). */
function normalised(hunk: FileChangeHunk): FileChangeHunk {
  return {
    ...hunk,
    oldStart: hunk.oldLines === 0 ? Math.max(0, hunk.oldStart - 1) : hunk.oldStart,
    newStart: hunk.newLines === 0 ? Math.max(0, hunk.newStart - 1) : hunk.newStart,
  }
}

/** A hunk's lines. "\ No newline at end of file" is a remark about the
 *  line before it, not a line of the file: that line is marked, so a change
 *  of nothing but the last line feed shows which side has none. */
function linesOf(patchLines: readonly string[]): FileChangeLine[] {
  const lines: FileChangeLine[] = []
  for (const patchLine of patchLines) {
    const before = lines.at(-1)
    if (!patchLine.startsWith('\\')) lines.push(toLine(patchLine))
    else if (before !== undefined) before.noFinalNewline = true
  }
  return lines
}

function toLine(line: string): FileChangeLine {
  const text = line.slice(1)
  if (line.startsWith('+')) return { op: 'add', text }
  if (line.startsWith('-')) return { op: 'remove', text }
  return { op: 'context', text }
}

/** A final line feed ends the last line rather than starting another. */
function splitLines(content: string): string[] {
  if (content === '') return []
  const lines = content.split('\n')
  if (content.endsWith('\n')) lines.pop()
  return lines
}

/**
 * The preview as numbered text, for where only text can be shown (the
 * built-in MCP filesystem server's preview): a header per hunk, then one
 * line each with its old and new numbers and `-`, `+` or a space.
 */
export function fileChangeText(change: FileChange): string {
  const out: string[] = []
  for (const hunk of change.hunks) {
    out.push(`@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`)
    let oldLine = hunk.oldStart
    let newLine = hunk.newStart
    for (const line of hunk.lines) {
      const oldNumber = line.op === 'add' ? '' : String(oldLine++)
      const newNumber = line.op === 'remove' ? '' : String(newLine++)
      const mark = line.op === 'add' ? '+' : line.op === 'remove' ? '-' : ' '
      out.push(`${oldNumber.padStart(6)} ${newNumber.padStart(6)} ${mark}${line.text}`)
      if (line.noFinalNewline === true) out.push(NO_FINAL_NEWLINE)
    }
  }
  if (change.truncated) out.push('[the change is too large to show in full]')
  return out.join('\n')
}
