import { z } from 'zod'
import type { FileChange } from '../../contracts/file-change.ts'
import type { FileTarget } from '../../contracts/file-target.ts'
import type { CommandContainment } from '../../contracts/command-containment.ts'
import type { SandboxMode, ToolEffect } from '../../contracts/policy-axes.ts'
import type { CommandLauncher, PinnedWorkspace } from './command-launcher.ts'
import { FileRefusal } from './file-refusal.ts'
import {
  englishText,
  message,
  type RuntimeMessage,
  type RuntimeMessageCode,
} from '../../contracts/runtime-message.ts'

/** What a tool reports back. Tools never throw: every failure, including a
 *  missing file or a command that cannot start, is a result with `ok: false`
 *  and a short machine-readable `code`. */
export interface ToolResult {
  ok: boolean
  output: string
  exitCode?: number | null
  code?: string
  /** The result in words, for the person's language (`output` is then its
   *  English); absent when the output is data. */
  message?: RuntimeMessage
}

/** A result said in words: its English is the output. */
export function saidResult(
  ok: boolean,
  said: RuntimeMessage,
  fields: { code?: string; exitCode?: number | null } = {},
): ToolResult {
  return { ok, output: englishText(said), ...fields, message: said }
}

export interface ToolContext {
  workspace: string
  /** The real paths the sandbox check returned for this call, in the order
   *  of `targetPaths`. Tools act on these only and never re-resolve their
   *  raw arguments, so what runs is exactly what was checked. */
  resolvedPaths: string[]
  timeoutMs: number
  signal?: AbortSignal
  /** The target observed when this call was judged: bound into its
   *  approval's action digest, or observed before a grant answered it. A
   *  tool that changes a file refuses (`target_changed`) when the file is
   *  no longer that one. Absent when nothing was observed (a policy that
   *  runs the call unasked): the runner still runs it only on the paths
   *  it was judged on, and the tool's other checks hold. */
  boundTarget?: FileTarget
  /** How far a read may reach. `workspace`: the call runs unasked because
   *  it was judged a read inside the workspace, so the tool refuses a file
   *  that turns out to have other names (a hard link may lead anywhere).
   *  `any`: a person allowed it, or the policy reads freely. */
  readReach?: 'workspace' | 'any'
  /** How a command is started, for `run_command`: without it a command
   *  refuses to start, since nothing decided what contains it. */
  command?: CommandScope
}

/** What contains a command this call starts: the runtime's one sandbox and
 *  what the turn lets the command reach. */
export interface CommandScope {
  sandbox: CommandLauncher
  sandboxMode: SandboxMode
  /** Real folders the person let this turn write in besides the workspace. */
  extraWritableRoots: readonly string[]
  /** The workspace as its room pinned it; a command refuses to start when
   *  it is another folder by then. */
  expectedWorkspace?: PinnedWorkspace
  /** The widened folders as they were pinned; the same. */
  expectedExtraRoots?: readonly PinnedWorkspace[]
  /** What the person was shown the command could do, when they were
   *  asked: it starts in exactly that, or not at all. */
  shown?: CommandContainment
}

/** What a file tool observes when its approval is opened: the target's
 *  identity, and for a write the preview of the change. Both go into the
 *  canonical action, so the consent token covers them. */
export interface FileObservation {
  target: FileTarget
  fileChange?: FileChange
}

export type ToolKind = 'run-command' | 'apply-changes' | 'read'

/** Declared with method signatures so a registry can hold tools with
 *  different argument types side by side; each tool still checks its own
 *  arguments with `argsSchema` before anything else sees them. */
export interface ToolDefinition<A> {
  name: string
  effect: ToolEffect
  kind: ToolKind
  argsSchema: z.ZodType<A>
  destructive(args: A): boolean
  /** The paths the sandbox must check, as the tool was asked for them. For a
   *  command, its working directory. */
  targetPaths(args: A): string[]
  /** One line for cards and audit entries. */
  summarize(args: A): string
  /** Tools that change a file observe their target here, on the resolved
   *  paths, before anyone is asked; a result instead means the call cannot
   *  run as asked (a target with several names, a link in the path) and is
   *  refused without asking. */
  observe?(args: A, resolvedPaths: readonly string[]): Promise<FileObservation | ToolResult>
  /** The same line as a code with parameters, for the person's language. */
  summaryMessage?(args: A): RuntimeMessage
  run(args: A, ctx: ToolContext): Promise<ToolResult>
}

/** Enough for any file a person would read in a card, small enough that a
 *  runaway command cannot flood the store or the model's context. */
export const MAX_TOOL_OUTPUT_BYTES = 256 * 1024

/** Linux caps a path at 4096 bytes; longer is never a real request. */
export const MAX_PATH_CHARS = 4096

export const ToolPathSchema = z
  .string()
  .min(1)
  .max(MAX_PATH_CHARS)
  .refine((p) => !p.includes('\0'), 'must not contain a NUL byte')

/** The first resolved path, or a failure result when the caller passed
 *  none: a tool must never fall back to its raw argument. */
export function firstResolvedPath(ctx: ToolContext): string | ToolResult {
  const first = ctx.resolvedPaths[0]
  if (first === undefined) {
    return saidResult(false, message('tool.noCheckedPath'), { code: 'no_path' })
  }
  return first
}

export type FsAction = 'read' | 'write' | 'delete' | 'list'

/** Turns a file-system error into a result a person can read. */
export function fsFailure(action: FsAction, target: string, error: unknown): ToolResult {
  const code = (error as NodeJS.ErrnoException | null)?.code
  if (error instanceof FileRefusal) {
    // The refusal's own words say which check failed (a link, several names,
    // a changed target); they are shown as they are, like a system error.
    return saidResult(
      false,
      message('tool.cannot', {
        action: message(`verb.${action}`),
        path: target,
        reason: error.message,
      }),
      { code: error.code },
    )
  }
  const known: Record<string, [string, RuntimeMessageCode]> = {
    ENOENT: ['not_found', 'fs.notFound'],
    EEXIST: ['already_exists', 'fs.alreadyExists'],
    EISDIR: ['is_directory', 'fs.isDirectory'],
    ENOTDIR: ['not_directory', 'fs.notDirectory'],
    ENOTEMPTY: ['not_empty', 'fs.notEmpty'],
    EACCES: ['permission_denied', 'fs.permissionDenied'],
    EPERM: ['permission_denied', 'fs.notPermitted'],
    ELOOP: ['symlink_refused', 'fs.symlinkRefused'],
  }
  const entry = code !== undefined ? known[code] : undefined
  // An error the table does not know keeps the system's own words: they
  // name the problem better than any guess, and are shown as they are.
  const reason = entry ? message(entry[1]) : error instanceof Error ? error.message : String(error)
  return saidResult(
    false,
    message('tool.cannot', { action: message(`verb.${action}`), path: target, reason }),
    { code: entry?.[0] ?? 'io_error' },
  )
}

/** Caps text at `MAX_TOOL_OUTPUT_BYTES` and says so, so nobody mistakes a
 *  cut-off listing for the whole of it. */
export function capOutput(text: string): string {
  const bytes = Buffer.from(text, 'utf8')
  if (bytes.length <= MAX_TOOL_OUTPUT_BYTES) return text
  const kept = bytes.subarray(0, MAX_TOOL_OUTPUT_BYTES).toString('utf8')
  return `${kept}\n[output truncated: showed the first ${MAX_TOOL_OUTPUT_BYTES} of ${bytes.length} bytes]`
}
