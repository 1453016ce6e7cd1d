import {
  FileChangeSchema,
  type FileChange,
  type FileChangeHunk,
  type FileChangeLine,
} from '../../contracts/file-change.ts'

/**
 * Previews of a file change in the protected window's shape
 * (src/contracts/file-change.ts), built from what an agent sends: a new
 * file's content, the old and new text of an edit, or a unified diff. Pure:
 * the same input always gives the same preview, which is what lets the
 * action digest cover the preview and the agent's text together.
 */

/** Unchanged lines shown around each change. */
export const CONTEXT_LINES = 3
/** The most hunks one preview carries (the contract's ceiling); past it the
 *  preview is marked truncated. */
export const MAX_PREVIEW_HUNKS = 1_000
/** Above this many cells (old lines × new lines, once the common start and
 *  end are set aside) the edit is shown as all old lines removed and all new
 *  lines added: still exact, only less precise about what stayed. */
export const MAX_DIFF_CELLS = 4_000_000

/** A text's lines without their terminators; a final line feed ends the
 *  last line rather than starting an empty one. */
export function textLines(text: string): string[] {
  if (text === '') return []
  const lines = text.split('\n')
  if (text.endsWith('\n')) lines.pop()
  return lines
}

/** A file that does not exist yet, with all of `content`. */
export function newFilePreview(path: string, content: string): FileChange {
  return { path, kind: 'create', hunks: wholeFile(textLines(content), 'add'), truncated: false }
}

/** A file removed whole: every line of its `content` removed. */
export function removalPreview(path: string, content: string): FileChange {
  return { path, kind: 'modify', hunks: wholeFile(textLines(content), 'remove'), truncated: false }
}

/** One hunk with every line of a file added (a new file) or removed. */
function wholeFile(lines: readonly string[], op: 'add' | 'remove'): FileChangeHunk[] {
  if (lines.length === 0) return []
  const count = lines.length
  return [
    {
      oldStart: op === 'add' ? 0 : 1,
      oldLines: op === 'add' ? 0 : count,
      newStart: op === 'add' ? 1 : 0,
      newLines: op === 'add' ? count : 0,
      lines: lines.map((text) => ({ op, text })),
    },
  ]
}

/** The change from `oldText` to `newText` as hunks with context.
 *  `firstLine` is the 0-based line of the file where `oldText` starts, when
 *  it is only a part of the file (an ACP agent may send just the lines
 *  around its edit), so the hunks carry the file's own line numbers. */
export function editPreview(
  path: string,
  oldText: string,
  newText: string,
  firstLine = 0,
): FileChange {
  const script = lineEdits(...endMarkedLines(oldText, newText))
  const hunks = hunksOf(script).map((hunk) => ({
    ...hunk,
    oldStart: hunk.oldStart + firstLine,
    newStart: hunk.newStart + firstLine,
  }))
  return capped({ path, kind: 'modify', hunks, truncated: false })
}

/**
 * Where `part` lies in `content`: the 0-based line it starts on, when it
 * occurs exactly once and starts at the beginning of a line; null when it
 * does not occur, occurs more than once, or starts inside a line. Only then
 * are the lines of an edit of `part` the file's own lines.
 */
export function lineOfOnlyOccurrence(content: string, part: string): number | null {
  if (part === '') return content === '' ? 0 : null
  const at = content.indexOf(part)
  if (at < 0 || content.indexOf(part, at + 1) >= 0) return null
  if (at > 0 && content.charAt(at - 1) !== '\n') return null
  return textLines(content.slice(0, at)).length
}

/** An edit as plain unified-diff lines (` `, `-`, `+`), with no line
 *  numbers: how an edit of an unplaced part of a file is shown as sent. */
export function editAsText(oldText: string, newText: string): string {
  return lineEdits(...endMarkedLines(oldText, newText))
    .map((edit) => {
      const { text, noFinalNewline } = unmarked(edit.text)
      return `${EDIT_MARKS[edit.op]}${text}\n${noFinalNewline ? `${NO_FINAL_NEWLINE}\n` : ''}`
    })
    .join('')
}

/** The remark unified diffs make after a line with no line feed. */
export const NO_FINAL_NEWLINE = '\\ No newline at end of file'

/**
 * Both sides' lines, where one side ends with a line feed and the other
 * does not, with a line feed kept at the end of the last line of the side
 * that has none (a line never holds one, so the mark cannot be mistaken
 * for text): the two last lines then differ, and an edit that adds or
 * removes nothing but the last line feed shows as a changed line instead
 * of no change at all. Where both sides end alike, nothing is marked: in
 * a part of a file (an ACP agent's edit) a missing line feed at its end is
 * the usual case and says nothing.
 */
function endMarkedLines(oldText: string, newText: string): [string[], string[]] {
  const before = textLines(oldText)
  const after = textLines(newText)
  const oldEnds = oldText === '' || oldText.endsWith('\n')
  const newEnds = newText === '' || newText.endsWith('\n')
  if (oldEnds === newEnds) return [before, after]
  const marked = oldEnds ? after : before
  marked[marked.length - 1] += '\n'
  return [before, after]
}

/** A line's text without the end mark of `endMarkedLines`. */
function unmarked(line: string): { text: string; noFinalNewline: boolean } {
  return line.endsWith('\n')
    ? { text: line.slice(0, -1), noFinalNewline: true }
    : { text: line, noFinalNewline: false }
}

const EDIT_MARKS: Readonly<Record<FileChangeLine['op'], string>> = {
  context: ' ',
  remove: '-',
  add: '+',
}

/**
 * A unified diff's hunks (`@@ -a,b +c,d @@` headers, then lines starting
 * with a space, `-` or `+`), or null when the text is not one whose every
 * line can be read: a preview that guessed at a line would show the person
 * something other than what the agent will write. File headers (`---`,
 * `+++`) before the first hunk are skipped; a "\ No newline at end of
 * file" remark marks the line before it.
 */
export function unifiedDiffPreview(path: string, diff: string): FileChange | null {
  const hunks: FileChangeHunk[] = []
  let current: FileChangeHunk | null = null
  for (const raw of textLines(diff)) {
    const header = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(raw)
    if (header) {
      if (current) hunks.push(current)
      current = {
        oldStart: Number(header[1]),
        oldLines: header[2] === undefined ? 1 : Number(header[2]),
        newStart: Number(header[3]),
        newLines: header[4] === undefined ? 1 : Number(header[4]),
        lines: [],
      }
      continue
    }
    if (raw.startsWith('\\')) {
      // A remark about the line before: it ends the file with no line feed.
      const before = current?.lines.at(-1)
      if (before !== undefined) before.noFinalNewline = true
      continue
    }
    if (!current) {
      if (raw.startsWith('--- ') || raw.startsWith('+++ ') || raw.startsWith('diff ')) continue
      return null
    }
    const op = LINE_OPS[raw.charAt(0)]
    if (op === undefined) return null
    current.lines.push({ op, text: raw.slice(1) })
  }
  if (current) hunks.push(current)
  if (hunks.length === 0) return null
  const parsed = FileChangeSchema.safeParse({ path, kind: 'modify', hunks, truncated: false })
  return parsed.success ? capped(parsed.data) : null
}

const LINE_OPS: Readonly<Record<string, FileChangeLine['op']>> = {
  ' ': 'context',
  '-': 'remove',
  '+': 'add',
}

function capped(change: FileChange): FileChange {
  if (change.hunks.length <= MAX_PREVIEW_HUNKS) return change
  return { ...change, hunks: change.hunks.slice(0, MAX_PREVIEW_HUNKS), truncated: true }
}

/** One line of an edit script, with its 0-based index on each side. */
interface Edit {
  op: FileChangeLine['op']
  text: string
  oldIndex: number
  newIndex: number
}

/** The shortest edit script between two lists of lines (longest common
 *  subsequence), after setting the common start and end aside. */
export function lineEdits(before: readonly string[], after: readonly string[]): Edit[] {
  let start = 0
  while (start < before.length && start < after.length && before[start] === after[start]) {
    start += 1
  }
  let endBefore = before.length
  let endAfter = after.length
  while (endBefore > start && endAfter > start && before[endBefore - 1] === after[endAfter - 1]) {
    endBefore -= 1
    endAfter -= 1
  }
  const edits: Edit[] = []
  for (let index = 0; index < start; index += 1) {
    edits.push({ op: 'context', text: before[index] ?? '', oldIndex: index, newIndex: index })
  }
  edits.push(
    ...middleEdits(before.slice(start, endBefore), after.slice(start, endAfter), start, start),
  )
  for (let offset = 0; offset < before.length - endBefore; offset += 1) {
    edits.push({
      op: 'context',
      text: before[endBefore + offset] ?? '',
      oldIndex: endBefore + offset,
      newIndex: endAfter + offset,
    })
  }
  return edits
}

function middleEdits(
  before: readonly string[],
  after: readonly string[],
  oldBase: number,
  newBase: number,
): Edit[] {
  const n = before.length
  const m = after.length
  const removeAll = (): Edit[] => [
    ...before.map((text, i) => ({
      op: 'remove' as const,
      text,
      oldIndex: oldBase + i,
      newIndex: newBase,
    })),
    ...after.map((text, j) => ({
      op: 'add' as const,
      text,
      oldIndex: oldBase + n,
      newIndex: newBase + j,
    })),
  ]
  if (n === 0 || m === 0 || n * m > MAX_DIFF_CELLS) return removeAll()
  // lengths[i * (m + 1) + j]: the longest common subsequence of before[i..]
  // and after[j..].
  const width = m + 1
  const lengths = new Uint32Array((n + 1) * width)
  for (let i = n - 1; i >= 0; i -= 1) {
    for (let j = m - 1; j >= 0; j -= 1) {
      lengths[i * width + j] =
        before[i] === after[j]
          ? (lengths[(i + 1) * width + j + 1] ?? 0) + 1
          : Math.max(lengths[(i + 1) * width + j] ?? 0, lengths[i * width + j + 1] ?? 0)
    }
  }
  const edits: Edit[] = []
  let i = 0
  let j = 0
  while (i < n || j < m) {
    const oldIndex = oldBase + i
    const newIndex = newBase + j
    if (i < n && j < m && before[i] === after[j]) {
      edits.push({ op: 'context', text: before[i] ?? '', oldIndex, newIndex })
      i += 1
      j += 1
    } else if (
      i < n &&
      (j === m || (lengths[(i + 1) * width + j] ?? 0) >= (lengths[i * width + j + 1] ?? 0))
    ) {
      // Removals before additions where either keeps the subsequence, as
      // unified diffs conventionally show a replaced line.
      edits.push({ op: 'remove', text: before[i] ?? '', oldIndex, newIndex })
      i += 1
    } else {
      edits.push({ op: 'add', text: after[j] ?? '', oldIndex, newIndex })
      j += 1
    }
  }
  return edits
}

/** Groups an edit script into hunks: each change with up to
 *  `CONTEXT_LINES` unchanged lines on either side, and changes whose
 *  context would touch joined into one hunk. */
function hunksOf(edits: readonly Edit[]): FileChangeHunk[] {
  const changed = edits.flatMap((edit, index) => (edit.op === 'context' ? [] : [index]))
  const hunks: FileChangeHunk[] = []
  let cursor = 0
  while (cursor < changed.length) {
    const first = changed[cursor] ?? 0
    let last = first
    while (
      cursor + 1 < changed.length &&
      (changed[cursor + 1] ?? 0) - last <= 2 * CONTEXT_LINES + 1
    ) {
      cursor += 1
      last = changed[cursor] ?? last
    }
    cursor += 1
    const from = Math.max(0, first - CONTEXT_LINES)
    const to = Math.min(edits.length - 1, last + CONTEXT_LINES)
    const slice = edits.slice(from, to + 1)
    const oldLines = slice.filter((edit) => edit.op !== 'add').length
    const newLines = slice.filter((edit) => edit.op !== 'remove').length
    const head = slice[0]
    hunks.push({
      // Unified-diff numbering: 1-based, and a side with no lines names the
      // line before it.
      oldStart: oldLines === 0 ? (head?.oldIndex ?? 0) : (head?.oldIndex ?? 0) + 1,
      oldLines,
      newStart: newLines === 0 ? (head?.newIndex ?? 0) : (head?.newIndex ?? 0) + 1,
      newLines,
      lines: slice.map(({ op, text }) => {
        const line = unmarked(text)
        return line.noFinalNewline ? { op, text: line.text, noFinalNewline: true } : { op, text }
      }),
    })
  }
  return hunks
}
