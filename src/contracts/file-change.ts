import { z } from 'zod'

/**
 * What a file write changes, as the protected window shows it: the
 * difference between the file's current content and the content the agent
 * wants to write, as unified-diff hunks. The runtime reads the current
 * content when it opens the approval; a preview it sends is part of what
 * the person is shown and so belongs under the action digest.
 *
 * Lines carry their text without the line terminator. Line numbers are
 * 1-based and follow the unified-diff convention: a hunk with no old lines
 * (a new file) has `oldStart` 0, and the numbers of each line are derived
 * from the hunk's starts, so a preview cannot number a line twice.
 */
export const FileChangeLineSchema = z.strictObject({
  op: z.enum(['context', 'add', 'remove']),
  text: z.string(),
  /** The line ends its file (or the part of it an edit names) with no line
   *  feed after it. Only then is it set: a change that adds or removes
   *  nothing but the last line feed would otherwise show a line removed and
   *  the same line added, or nothing at all. */
  noFinalNewline: z.literal(true).optional(),
})
export type FileChangeLine = z.infer<typeof FileChangeLineSchema>

export const FileChangeHunkSchema = z
  .strictObject({
    oldStart: z.number().int().min(0),
    oldLines: z.number().int().min(0),
    newStart: z.number().int().min(0),
    newLines: z.number().int().min(0),
    lines: z.array(FileChangeLineSchema).min(1),
  })
  .refine(
    (hunk) =>
      hunk.lines.filter((line) => line.op !== 'add').length === hunk.oldLines &&
      hunk.lines.filter((line) => line.op !== 'remove').length === hunk.newLines,
    { message: 'the hunk line counts do not match its lines' },
  )
export type FileChangeHunk = z.infer<typeof FileChangeHunkSchema>

export const FileChangeSchema = z
  .strictObject({
    /** The path as the agent named it (the window also shows where it
     *  resolves). */
    path: z.string().min(1),
    /** `create`: the file does not exist yet, and the one hunk holds all of
     *  the new content; `modify`: it exists and the hunks are the changed
     *  parts with a few lines of context. */
    kind: z.enum(['create', 'modify']),
    hunks: z.array(FileChangeHunkSchema).max(1_000),
    /** True when the runtime left hunks out (a very large change): the
     *  window says so and shows the whole new content as well. */
    truncated: z.boolean(),
  })
  .refine(
    (change) =>
      change.hunks.every(
        (hunk, index) =>
          index === 0 ||
          hunk.oldStart >=
            (change.hunks[index - 1]?.oldStart ?? 0) + (change.hunks[index - 1]?.oldLines ?? 0),
      ),
    { message: 'hunks must be in file order and must not overlap' },
  )
  .refine(endsOnlyAtTheEnd, {
    message: 'only the last line of a side may end with no line feed',
  })
  .refine(
    (change) => change.kind === 'modify' || change.hunks.every((hunk) => hunk.oldLines === 0),
    {
      message: 'a new file has no old lines',
    },
  )
export type FileChange = z.infer<typeof FileChangeSchema>

/** Whether a line marked as ending with no line feed is the last line
 *  its side (old: context and removed lines; new: context and added lines)
 *  has in the change: marked anywhere else it would tell the person of a
 *  line end that is not there. */
function endsOnlyAtTheEnd(change: { hunks: readonly { lines: readonly FileChangeLine[] }[] }) {
  // Walked from the end, so each line is looked at once.
  let oldSideLater = false
  let newSideLater = false
  for (const hunk of change.hunks.toReversed()) {
    for (const line of hunk.lines.toReversed()) {
      const onOld = line.op !== 'add'
      const onNew = line.op !== 'remove'
      if (line.noFinalNewline === true && ((onOld && oldSideLater) || (onNew && newSideLater))) {
        return false
      }
      oldSideLater ||= onOld
      newSideLater ||= onNew
    }
  }
  return true
}

/**
 * The most lines the protected window draws of one file's content or one
 * file's change. Past it, what the person would be asked about is not shown
 * whole, and a person cannot allow what they were not shown: the runtime
 * refuses such a write or change (`too_long_to_show`) before anyone is
 * asked, as the MCP doors refuse a description or arguments too long to
 * show.
 */
export const MAX_SHOWN_LINES = 3_000

/** The lines the window draws for `change`: every line of every hunk. */
export function changeLineCount(change: FileChange): number {
  return change.hunks.reduce((sum, hunk) => sum + hunk.lines.length, 0)
}

/** Lines in a file's content as the window numbers them: a final line
 *  feed ends the last line rather than starting another. */
export function contentLineCount(content: string): number {
  if (content === '') return 0
  const lines = content.split('\n').length
  return content.endsWith('\n') ? lines - 1 : lines
}
