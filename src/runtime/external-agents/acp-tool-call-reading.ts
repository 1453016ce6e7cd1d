import { isAbsolute, resolve } from 'node:path'
import { z } from 'zod'
import { AcpText as Text, type AcpToolCall } from './acp-messages.ts'
import { COMMAND_TEXT_FIELDS, commandOf, isAbsent, wideningOf } from './acp-raw-input.ts'
import type {
  ExternalAction,
  ExternalFileChange,
  ExternalRefusalCode,
} from './external-agent-port.ts'

/**
 * What an ACP tool call does, read as an Assent action: a command, file
 * changes, or the agent's own tool with every place it names. The reading
 * is what the person is shown and what every rule is applied to, so where
 * the call is unclear it reads as the wider action, never the narrower one.
 */

/** A diff in a tool call's content. */
const DiffContentSchema = z.looseObject({
  type: z.literal('diff'),
  path: Text.min(1),
  oldText: Text.nullable().optional(),
  newText: Text,
})

/** What a tool call does, or why Assent refuses it without asking anyone. */
export type AcpActionReading =
  { action: ExternalAction } | { refused: ExternalRefusalCode; detail: string }

/**
 * What a tool call does, as Assent shows it:
 * - a call whose raw input asks for more than the call (`WIDENING_FIELDS`:
 *   network access, extra permissions, a wider sandbox) is refused;
 * - `execute` with a command in its raw input (a string, or an argument
 *   vector as codex-acp sends, with any `args` beside it) and nothing else
 *   beside it but `COMMAND_TEXT_FIELDS` or an absent flag: the command,
 *   in the raw input's `cwd` or,
 *   when it names none, the session's. A `cwd` that is not an absolute
 *   path is refused: the agent takes it from its own folder, which Assent
 *   cannot know, and showing any other folder would let the person allow a
 *   command somewhere they were not shown. With any other field beside it
 *   (`run_in_background: true`, a folder under another key), the call is
 *   the agent's own tool, shown whole, and never file changes;
 * - a call whose content carries diffs, when every place the call names is
 *   a file those changes add, edit, delete or move (`acpFileChanges`): those
 *   file changes;
 * - anything else, a call with diffs that names other places too among
 *   them: the agent's title, kind and raw input, as sent, and every place it
 *   names (its locations and its diffs' files).
 */
export function acpAction(toolCall: AcpToolCall, sessionCwd: string): AcpActionReading {
  const widened = wideningOf(toolCall.rawInput)
  if (widened !== null) return widened
  const absolute = (path: string): string => (isAbsolute(path) ? path : resolve(sessionCwd, path))
  const input = z
    .looseObject({
      command: z.unknown().optional(),
      args: z.unknown().optional(),
      cwd: z.unknown().optional(),
    })
    .safeParse(toolCall.rawInput)
  // An execute call with a command and more beside it: shown whole.
  let wholeCommand = false
  if (toolCall.kind === 'execute' && input.success) {
    const { command, args, cwd, ...beside } = input.data
    const line = commandOf(command, args)
    if (line !== null) {
      if (cwd !== undefined && cwd !== null && (typeof cwd !== 'string' || !isAbsolute(cwd))) {
        return {
          refused: 'command-folder-not-absolute',
          detail: `a command whose folder is ${typeof cwd === 'string' ? JSON.stringify(cwd.slice(0, 256)) : `a ${typeof cwd}`}`,
        }
      }
      wholeCommand = !Object.entries(beside).every(
        ([key, value]) => COMMAND_TEXT_FIELDS.has(key) || isAbsent(value),
      )
      if (!wholeCommand) {
        return {
          action: { kind: 'command', ...line, cwd: typeof cwd === 'string' ? cwd : sessionCwd },
        }
      }
    }
  }
  const notAbsolute = firstPlaceNotAbsolute(toolCall)
  if (notAbsolute !== null) {
    return {
      refused: 'place-not-absolute',
      detail: `a place named as ${JSON.stringify(notAbsolute.slice(0, 256))}`,
    }
  }
  const locations = (toolCall.locations ?? []).map(({ path }) => absolute(path))
  const patch = codexAcpPatch(toolCall, absolute)
  const entries = patch ?? []
  const changes = acpFileChanges(toolCall, entries, absolute)
  // Every file the patch names, before and after: one no diff shows is
  // named all the same, so the person and the rule see it.
  const patched = entries.flatMap((e) => endsOf({ path: e.source, movePath: e.target }))
  if (
    !wholeCommand &&
    changes.length > 0 &&
    namesOnlyItsChanges(
      toolCall,
      changes,
      { locations, patched, isPatch: patch !== null },
      absolute,
    )
  ) {
    return { action: { kind: 'file-changes', changes } }
  }
  return {
    action: {
      kind: 'tool',
      toolKind: toolCall.kind ?? 'other',
      title: toolCall.title ?? '',
      input: toolCall.rawInput ?? null,
      // Where the call acts may be said only here (an edit without a diff,
      // a move whose other end only its raw input names): shown to the
      // person, and read by the rule every door applies. Listed in the
      // order the call names them: its locations, its diffs' files, then
      // its patch's.
      locations: [...new Set([...locations, ...changes.flatMap(endsOf), ...patched])],
    },
  }
}

/** The raw-input fields that name the folder a call acts in. */
export const RAW_INPUT_FOLDER_FIELDS = ['cwd', 'workdir', 'working_directory', 'directory'] as const

/**
 * The first place the call names by a path that is not absolute, or null:
 * a location, a diff's file, a file of codex-acp's patch or where it moves
 * it, a folder of its raw input. ACP names every place by an absolute path;
 * an agent reads any other its own way (claude-agent-acp's Write takes
 * `~/x` as a file in its home folder), so where the call acts cannot be
 * shown, and reading it from the session's folder would show the person
 * one place while the agent acts in another: such a call is refused.
 */
function firstPlaceNotAbsolute(toolCall: AcpToolCall): string | null {
  const places = (toolCall.locations ?? []).map(({ path }) => path)
  for (const item of toolCall.content ?? []) {
    const diff = DiffContentSchema.safeParse(item)
    if (diff.success) places.push(diff.data.path)
  }
  const patch = CodexAcpChangesSchema.safeParse(toolCall.rawInput)
  if (patch.success) {
    for (const [source, entry] of Object.entries(patch.data.changes)) {
      places.push(source)
      if (entry.move_path != null) places.push(entry.move_path)
    }
  }
  const input = toolCall.rawInput
  if (typeof input === 'object' && input !== null) {
    for (const key of RAW_INPUT_FOLDER_FIELDS) {
      const value = (input as Record<string, unknown>)[key]
      if (typeof value === 'string' && value !== '') places.push(value)
    }
  }
  return places.find((place) => !isAbsolute(place)) ?? null
}

/** The files a change touches: its file, and where it moves the file to. */
function endsOf(change: { path: string; movePath: string | null }): string[] {
  return change.movePath === null ? [change.path] : [change.path, change.movePath]
}

/** codex-acp's raw input for a patch: each file it changes, by the path it
 *  has before the change, with what happens to it (an update may move it:
 *  `move_path`). codex-acp names a moved file's diff and location by where
 *  it moves to, so the source is only here. */
const CodexAcpChangesSchema = z.looseObject({
  changes: z.record(
    Text.min(1),
    z.looseObject({
      type: z.enum(['add', 'update', 'delete']),
      move_path: Text.min(1).nullable().optional(),
    }),
  ),
})
type CodexAcpChange = z.infer<typeof CodexAcpChangesSchema>['changes'][string]

/** One file of codex-acp's patch: its path before the change, where an
 *  update moves it (`target`), and what happens to it. */
interface CodexAcpPatchEntry {
  source: string
  target: string | null
  type: CodexAcpChange['type']
}

/** The files of a codex-acp patch, by absolute path; null when the raw
 *  input is not one. */
function codexAcpPatch(
  toolCall: AcpToolCall,
  absolute: (path: string) => string,
): CodexAcpPatchEntry[] | null {
  const patch = CodexAcpChangesSchema.safeParse(toolCall.rawInput)
  if (!patch.success) return null
  return Object.entries(patch.data.changes).map(([source, entry]) => ({
    source: absolute(source),
    target: entry.move_path == null ? null : absolute(entry.move_path),
    type: entry.type,
  }))
}

/**
 * A tool call's diffs as file changes. Where the raw input is codex-acp's
 * patch, it says what each diff does: a file moved onto the diff's path is
 * a move from its source, a `delete` is a delete (codex-acp sends it as an
 * `edit` whose new text is empty, which would otherwise read as an update
 * that empties the file), an `add` is an add. Otherwise the call's kind
 * says: a `delete` call deletes, a diff without old text adds a file, any
 * other diff edits it in place.
 */
function acpFileChanges(
  toolCall: AcpToolCall,
  entries: readonly CodexAcpPatchEntry[],
  absolute: (path: string) => string,
): ExternalFileChange[] {
  const changes: ExternalFileChange[] = []
  for (const item of toolCall.content ?? []) {
    const diff = DiffContentSchema.safeParse(item)
    if (!diff.success) continue
    const path = absolute(diff.data.path)
    const oldText = diff.data.oldText ?? null
    const entry =
      // Only an update moves a file; an add or a delete with a target names
      // a place no change has, so the call is never read as file changes.
      entries.find((e) => e.target === path) ?? entries.find((e) => e.source === path)
    const fromEntry = entry === undefined ? null : changeOf(entry)
    changes.push({
      path: fromEntry?.path ?? path,
      change:
        fromEntry?.change ??
        (toolCall.kind === 'delete' ? 'delete' : oldText === null ? 'add' : 'update'),
      movePath: fromEntry?.movePath ?? null,
      diff: null,
      oldText,
      newText: diff.data.newText,
    })
  }
  return changes
}

function changeOf(
  entry: CodexAcpPatchEntry,
): Pick<ExternalFileChange, 'path' | 'change' | 'movePath'> {
  // A target of null is no move either way: movePath is the target.
  const moves = entry.type === 'update' && entry.target !== entry.source
  return { path: entry.source, change: entry.type, movePath: moves ? entry.target : null }
}

/** Fields of a raw input that hold text the agent writes or says, never a
 *  place: codex-acp's patch (`unified_diff`, an added or deleted file's
 *  `content`, `call_id`, `turn_id`, `reason`, and the time it started,
 *  `started_at_ms`) and claude-agent-acp's edits (`old_string`,
 *  `new_string`, a written file's `content`). */
const RAW_INPUT_TEXT_FIELDS: ReadonlySet<string> = new Set([
  'content',
  'started_at_ms',
  'unified_diff',
  'call_id',
  'turn_id',
  'reason',
  'old_string',
  'new_string',
  'description',
])

/** Deeper than this, a raw input is not read, and names a place unread. */
const MAX_RAW_INPUT_DEPTH = 16

/**
 * Whether every place the call names is a file its changes add, edit,
 * delete or move from or to: each of its locations, each file and move
 * target of codex-acp's patch, and every other string of its raw input
 * outside the fields that hold text, and every key that is not a plain
 * field name (a record keyed by file, as codex-acp's patch is). Fails
 * closed: a string Assent cannot tell from a place (an unknown field, a
 * `grant_root`), a patch entry no diff shows, or a `move` call whose source
 * and destination its changes do not say, makes the call not one of file
 * changes, so it is shown with every place it names, a one-file grant never
 * answers for it, and the reviewer leaves it to the person.
 */
function namesOnlyItsChanges(
  toolCall: AcpToolCall,
  changes: readonly ExternalFileChange[],
  named: {
    /** The call's locations, absolute. */
    locations: readonly string[]
    /** Every file codex-acp's patch names, before and after. */
    patched: readonly string[]
    /** Whether the raw input is codex-acp's patch, read entry by entry. */
    isPatch: boolean
  },
  absolute: (path: string) => string,
): boolean {
  const { locations, patched, isPatch } = named
  if (toolCall.kind === 'move' && !changes.some((c) => c.movePath !== null)) return false
  const places = new Set(changes.flatMap(endsOf))
  const isChanged = (path: string) => places.has(absolute(path))
  if (!locations.every(isChanged) || !patched.every(isChanged)) return false
  const raw = toolCall.rawInput
  const readable = (value: unknown, depth: number): boolean => {
    if (typeof value === 'string') return isChanged(value)
    // A flag or a number may change what the call does beyond its diffs
    // (claude-agent-acp's `replace_all: true` edits every occurrence, its
    // diff shows one): only an absent one is read as nothing.
    if (isAbsent(value)) return true
    if (typeof value !== 'object') return false
    if (depth >= MAX_RAW_INPUT_DEPTH) return false
    if (Array.isArray(value)) return value.every((item) => readable(item, depth + 1))
    return Object.entries(value).every(
      ([key, inner]) =>
        (FIELD_NAME.test(key) || isChanged(key)) &&
        (RAW_INPUT_TEXT_FIELDS.has(key) ||
          // The patch's own record is read above, entry by entry.
          (depth === 0 && isPatch && key === 'changes') ||
          readable(inner, depth + 1)),
    )
  }
  return readable(raw, 0)
}

/** A key that names a field, not a place: letters, digits and `_` or `-`,
 *  not starting with a digit or `-`. */
const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_-]*$/
