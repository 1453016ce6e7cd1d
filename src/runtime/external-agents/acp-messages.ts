import type {
  AGENT_METHODS,
  CLIENT_METHODS,
  PermissionOptionKind,
  ProtocolVersion,
  RequestPermissionOutcome,
  StopReason,
  ToolCallStatus as AcpToolCallStatus,
} from '@agentclientprotocol/sdk'
import { isAbsolute, resolve } from 'node:path'
import { z } from 'zod'
import type { ToolCallStatus } from '../../contracts/room.ts'
import type {
  ExternalAction,
  ExternalDecision,
  ExternalFileChange,
  ExternalRefusalCode,
} from './external-agent-port.ts'

/**
 * The parts of the Agent Client Protocol (ACP, protocol version 1) that the
 * client reads. Agents add fields, so objects are loose: unknown keys are
 * tolerated and never read. A message without a field the client uses does
 * not parse and is never acted on.
 *
 * The protocol's names and shapes come from the official SDK
 * (`@agentclientprotocol/sdk`, as types only): what the client sends is
 * checked against the SDK's request types, and what it parses must fit the
 * SDK's types. The parsing itself stays Assent's own zod schemas
 * (docs/agents-external.md says why): they bound every string and list, and
 * read only what the client uses.
 */

export const ACP_PROTOCOL_VERSION = 1 satisfies ProtocolVersion

/** The methods the client calls, and those it answers, by the SDK's names
 *  (acp-messages.test.ts checks them against the SDK's own tables). */
export const ACP_METHODS = Object.freeze({
  initialize: 'initialize',
  newSession: 'session/new',
  setMode: 'session/set_mode',
  prompt: 'session/prompt',
  cancel: 'session/cancel',
  requestPermission: 'session/request_permission',
  sessionUpdate: 'session/update',
} as const satisfies Record<
  string,
  | (typeof AGENT_METHODS)[keyof typeof AGENT_METHODS]
  | (typeof CLIENT_METHODS)[keyof typeof CLIENT_METHODS]
>)

const Text = z.string().max(16 * 1024 * 1024)
const Id = z.string().min(1).max(512)

export const AcpInitializeResultSchema = z.looseObject({ protocolVersion: z.number().int() })

export const AcpNewSessionResultSchema = z.looseObject({
  sessionId: Id,
  modes: z
    .looseObject({
      currentModeId: z.string(),
      availableModes: z.array(z.looseObject({ id: z.string() })).max(256),
    })
    .nullable()
    .optional(),
})

/** Answers whose content the client does not use (`session/set_mode`). */
export const AcpEmptyResultSchema = z.looseObject({}).nullable()

const STOP_REASONS = [
  'end_turn',
  'max_tokens',
  'max_turn_requests',
  'refusal',
  'cancelled',
] as const satisfies readonly StopReason[]
export const AcpPromptResultSchema = z.looseObject({ stopReason: z.enum(STOP_REASONS) })
export type AcpStopReason = StopReason

/** One item of a tool call's content. Only text and diffs are read. */
const ContentItemSchema = z.looseObject({ type: z.string() })
const TextContentSchema = z.looseObject({
  type: z.literal('content'),
  content: z.looseObject({ type: z.literal('text'), text: Text }),
})
const DiffContentSchema = z.looseObject({
  type: z.literal('diff'),
  path: Text.min(1),
  oldText: Text.nullable().optional(),
  newText: Text,
})

/** A tool call, or an update to one: only `toolCallId` is always there. */
export const AcpToolCallSchema = z.looseObject({
  toolCallId: Id,
  title: Text.optional(),
  kind: z.string().max(64).optional(),
  status: z.string().max(64).optional(),
  content: z.array(ContentItemSchema).max(4096).nullable().optional(),
  rawInput: z.unknown().optional(),
  rawOutput: z.unknown().optional(),
  /** The files the call touches, as the agent names them. */
  locations: z
    .array(z.looseObject({ path: Text }))
    .max(4096)
    .nullable()
    .optional(),
})
export type AcpToolCall = z.infer<typeof AcpToolCallSchema>

export const AcpSessionUpdateSchema = z.looseObject({
  sessionId: Id,
  update: z.looseObject({ sessionUpdate: z.string() }),
})
export const AcpMessageChunkSchema = z.looseObject({
  content: z.looseObject({ type: z.literal('text'), text: Text }),
})
export const AcpModeUpdateSchema = z.looseObject({ currentModeId: z.string() })

const PermissionOptionSchema = z.looseObject({
  optionId: Id,
  name: Text.optional(),
  /** `allow_once`, `allow_always`, `reject_once`, `reject_always`
   *  (`PermissionOptionKind`); any other kind is never chosen. */
  kind: z.string().max(64),
})
export type AcpPermissionOption = z.infer<typeof PermissionOptionSchema>

export const AcpPermissionRequestSchema = z.looseObject({
  sessionId: Id,
  toolCall: AcpToolCallSchema,
  options: z.array(PermissionOptionSchema).min(1).max(64),
})

/** The answer to a permission request: exactly the SDK's outcome type. */
export type AcpPermissionOutcome = RequestPermissionOutcome

const ALLOW_ONCE: PermissionOptionKind = 'allow_once'
const REJECT_ONCE: PermissionOptionKind = 'reject_once'

/**
 * Assent's decision as an ACP permission outcome. An allow, allow-always
 * included, is the agent's `allow_once` option and never `allow_always`:
 * "always" is Assent's own grant, and the agent must keep asking so that
 * revoking the grant takes effect. A denial or expiry is the `reject_once`
 * option (never `reject_always`, which would make the agent refuse later
 * requests without anyone asked), or `cancelled` when there is none.
 * An option id shared with an option of another kind is never chosen.
 */
export function acpOutcomeFor(
  decision: ExternalDecision,
  options: readonly AcpPermissionOption[],
): AcpPermissionOutcome {
  const wanted =
    decision === 'allow-once' || decision === 'allow-always'
      ? ALLOW_ONCE
      : decision === 'cancelled'
        ? null
        : REJECT_ONCE
  // Cancelled wants none: no option's kind is null.
  const option = options.find((o) => o.kind === wanted)
  // Checked here too, not only when the request is parsed: an id that also
  // names an option of another kind is never sent.
  const ambiguous = options.some((o) => o.optionId === option?.optionId && o.kind !== wanted)
  return option && !ambiguous
    ? { outcome: 'selected', optionId: option.optionId }
    : { outcome: 'cancelled' }
}

/** The answer as the timeline shows it: the option id, or `cancelled`. */
export function acpAnswerText(outcome: AcpPermissionOutcome): string {
  return outcome.outcome === 'selected' ? outcome.optionId : 'cancelled'
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === 'string')
}

/** POSIX shell quoting, so an argument vector reads as one command line. */
export function shellQuote(argv: readonly string[]): string {
  return argv
    .map((arg) =>
      /^[A-Za-z0-9_@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", `'\\''`)}'`,
    )
    .join(' ')
}

/** What a tool call does, or why Assent refuses it without asking anyone. */
export type AcpActionReading =
  { action: ExternalAction } | { refused: ExternalRefusalCode; detail: string }

/**
 * What a tool call does, as Assent shows it:
 * - `execute` with a command in its raw input (a string, or an argument
 *   vector as codex-acp sends): the command, in the raw input's `cwd` or,
 *   when it names none, the session's. A `cwd` that is not an absolute
 *   path is refused: the agent takes it from its own folder, which Assent
 *   cannot know, and showing any other folder would let the person allow a
 *   command somewhere they were not shown;
 * - a call whose content carries diffs, when every place the call names is
 *   a file those changes add, edit, delete or move (`acpFileChanges`): those
 *   file changes;
 * - anything else, a call with diffs that names other places too among
 *   them: the agent's title, kind and raw input, as sent, and every place it
 *   names (its locations and its diffs' files).
 */
export function acpAction(toolCall: AcpToolCall, sessionCwd: string): AcpActionReading {
  const absolute = (path: string): string => (isAbsolute(path) ? path : resolve(sessionCwd, path))
  const input = z
    .looseObject({ command: z.unknown().optional(), cwd: z.unknown().optional() })
    .safeParse(toolCall.rawInput)
  if (toolCall.kind === 'execute' && input.success) {
    const { command, cwd } = input.data
    const line = isStringArray(command)
      ? { commandLine: shellQuote(command), argv: [...command] }
      : typeof command === 'string' && command !== ''
        ? { commandLine: command, argv: null }
        : null
    if (line !== null) {
      if (cwd === undefined || cwd === null) {
        return { action: { kind: 'command', ...line, cwd: sessionCwd } }
      }
      if (typeof cwd !== 'string' || !isAbsolute(cwd)) {
        return {
          refused: 'command-folder-not-absolute',
          detail: `a command whose folder is ${typeof cwd === 'string' ? JSON.stringify(cwd.slice(0, 256)) : `a ${typeof cwd}`}`,
        }
      }
      return { action: { kind: 'command', ...line, cwd } }
    }
  }
  const locations = (toolCall.locations ?? []).map(({ path }) => absolute(path))
  const entries = codexAcpPatchEntries(toolCall, absolute)
  const changes = acpFileChanges(toolCall, entries, absolute)
  // Every file the patch names, before and after: one no diff shows is
  // named all the same, so the person and the rule see it.
  const patched = entries.flatMap((e) => endsOf({ path: e.source, movePath: e.target }))
  if (changes.length > 0 && namesOnlyItsChanges(toolCall, changes, locations, patched, absolute)) {
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

/** The files of a codex-acp patch, by absolute path; none when the raw
 *  input is not one. */
function codexAcpPatchEntries(
  toolCall: AcpToolCall,
  absolute: (path: string) => string,
): CodexAcpPatchEntry[] {
  const patch = CodexAcpChangesSchema.safeParse(toolCall.rawInput)
  if (!patch.success) return []
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
 *  `content`, `call_id`, `turn_id`, `reason`) and claude-agent-acp's edits
 *  (`old_string`, `new_string`, a written file's `content`). */
const RAW_INPUT_TEXT_FIELDS: ReadonlySet<string> = new Set([
  'content',
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
  locations: readonly string[],
  patched: readonly string[],
  absolute: (path: string) => string,
): boolean {
  if (toolCall.kind === 'move' && !changes.some((c) => c.movePath !== null)) return false
  const places = new Set(changes.flatMap(endsOf))
  const named = (path: string) => places.has(absolute(path))
  if (!locations.every(named) || !patched.every(named)) return false
  const raw = toolCall.rawInput
  // The patch's own record is read above, entry by entry.
  const patch = CodexAcpChangesSchema.safeParse(raw).success
  const readable = (value: unknown, depth: number): boolean => {
    if (typeof value === 'string') return named(value)
    if (typeof value !== 'object' || value === null) return true
    if (depth >= MAX_RAW_INPUT_DEPTH) return false
    if (Array.isArray(value)) return value.every((item) => readable(item, depth + 1))
    return Object.entries(value).every(
      ([key, inner]) =>
        (FIELD_NAME.test(key) || named(key)) &&
        (RAW_INPUT_TEXT_FIELDS.has(key) ||
          (depth === 0 && patch && key === 'changes') ||
          readable(inner, depth + 1)),
    )
  }
  return readable(raw, 0)
}

/** A key that names a field, not a place: letters, digits and `_` or `-`,
 *  not starting with a digit or `-`. */
const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_-]*$/

/** The text a tool call reported: its text content, or its raw output. */
export function acpToolOutput(toolCall: AcpToolCall): string | null {
  const texts = (toolCall.content ?? []).flatMap((item) => {
    const text = TextContentSchema.safeParse(item)
    return text.success ? [text.data.content.text] : []
  })
  if (texts.length > 0) return texts.join('\n')
  if (toolCall.rawOutput === undefined || toolCall.rawOutput === null) return null
  return typeof toolCall.rawOutput === 'string'
    ? toolCall.rawOutput
    : JSON.stringify(toolCall.rawOutput)
}

/** An ACP tool-call status as a timeline tool-call status. */
export function acpToolStatus(status: AcpToolCallStatus | string | undefined): ToolCallStatus {
  switch (status) {
    case 'completed':
      return 'succeeded'
    case 'failed':
      return 'failed'
    case 'pending':
    case 'in_progress':
      return 'running'
    default:
      return 'unknown'
  }
}
