import { constants } from 'node:fs'
import { z } from 'zod'
import type { ToolEffect } from '../../contracts/policy-axes.ts'

/** What a tool reports back. Tools never throw: every failure, including a
 *  missing file or a command that cannot start, is a result with `ok: false`
 *  and a short machine-readable `code`. */
export interface ToolResult {
  ok: boolean
  output: string
  exitCode?: number | null
  code?: string
}

export interface ToolContext {
  workspace: string
  /** The real paths the sandbox check returned for this call, in the order
   *  of `targetPaths`. Tools act on these only and never re-resolve their
   *  raw arguments, so what runs is exactly what was checked. */
  resolvedPaths: string[]
  timeoutMs: number
  signal?: AbortSignal
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

/** `O_NOFOLLOW` makes open fail if the final component became a symlink
 *  after the sandbox check; Windows has no such flag, so it is 0 there. */
export const NO_FOLLOW: number = constants.O_NOFOLLOW ?? 0

/** The first resolved path, or a failure result when the caller passed
 *  none: a tool must never fall back to its raw argument. */
export function firstResolvedPath(ctx: ToolContext): string | ToolResult {
  const first = ctx.resolvedPaths[0]
  if (first === undefined) {
    return { ok: false, output: 'no checked path was supplied for this call', code: 'no_path' }
  }
  return first
}

/** Turns a file-system error into a result a person can read. */
export function fsFailure(action: string, target: string, error: unknown): ToolResult {
  const code = (error as NodeJS.ErrnoException | null)?.code
  const known: Record<string, [string, string]> = {
    ENOENT: ['not_found', 'does not exist'],
    EEXIST: ['already_exists', 'already exists'],
    EISDIR: ['is_directory', 'is a directory'],
    ENOTDIR: ['not_directory', 'is not a directory'],
    ENOTEMPTY: ['not_empty', 'is a directory that is not empty'],
    EACCES: ['permission_denied', 'permission denied'],
    EPERM: ['permission_denied', 'operation not permitted'],
    ELOOP: ['symlink_refused', 'became a symbolic link after it was checked'],
  }
  const entry = code !== undefined ? known[code] : undefined
  if (entry) return { ok: false, output: `cannot ${action} ${target}: ${entry[1]}`, code: entry[0] }
  const message = error instanceof Error ? error.message : String(error)
  return { ok: false, output: `cannot ${action} ${target}: ${message}`, code: 'io_error' }
}

/** Caps text at `MAX_TOOL_OUTPUT_BYTES` and says so, so nobody mistakes a
 *  cut-off listing for the whole of it. */
export function capOutput(text: string): string {
  const bytes = Buffer.from(text, 'utf8')
  if (bytes.length <= MAX_TOOL_OUTPUT_BYTES) return text
  const kept = bytes.subarray(0, MAX_TOOL_OUTPUT_BYTES).toString('utf8')
  return `${kept}\n[output truncated: showed the first ${MAX_TOOL_OUTPUT_BYTES} of ${bytes.length} bytes]`
}
