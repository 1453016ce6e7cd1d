import { spawn } from 'node:child_process'
import type { ChildProcess, SpawnOptions } from 'node:child_process'
import path from 'node:path'
import { z } from 'zod'
import { canonicalJson } from '../../contracts/canonical-json.ts'
import { englishText, message } from '../../contracts/runtime-message.ts'
import type { CommandContainment } from '../../contracts/command-containment.ts'
import {
  giveDescriptor3,
  type PersonOnlyAfterRun,
  type PreparedCommand,
} from './command-launcher.ts'
import { onlyTheseDescriptors, type StdioEntry } from '../child-processes/inherited-descriptors.ts'
import { failsAfterRun, madePersonOnlyNote, sandboxStopNote } from './sandbox-stop-note.ts'
import { commandLine, isDestructiveCommand } from './command-patterns.ts'
import {
  MAX_TOOL_OUTPUT_BYTES,
  ToolPathSchema,
  firstResolvedPath,
  saidResult,
} from './tool-types.ts'
import type { ToolContext, ToolDefinition, ToolResult } from './tool-types.ts'

/** Ten minutes: the longest a single command may ask for. */
export const MAX_COMMAND_TIMEOUT_MS = 600_000

/** After killing a timed-out tree, how long to wait for its pipes to close
 *  before giving up on them: a process that left the group may hold them. */
export const KILL_GRACE_MS = 2_000

const MAX_ARGV_ITEMS = 1_024
const MAX_ARG_CHARS = 131_072

const ArgSchema = z
  .string()
  .max(MAX_ARG_CHARS)
  .refine((a) => !a.includes('\0'), 'must not contain a NUL byte')

export const RunCommandArgsSchema = z.strictObject({
  argv: z
    .array(ArgSchema)
    .min(1)
    .max(MAX_ARGV_ITEMS)
    .refine((argv) => argv[0] !== '', 'argv[0] must name a program'),
  cwd: ToolPathSchema.optional(),
  shell: z.boolean().optional(),
  timeoutMs: z.number().int().min(1).max(MAX_COMMAND_TIMEOUT_MS).optional(),
})
export type RunCommandArgs = z.infer<typeof RunCommandArgsSchema>

/**
 * Runs a program, contained as the room's sandbox mode promises: the start
 * is prepared by the runtime's one command sandbox (`ctx.command`), which
 * wraps it in bubblewrap or Seatbelt, or refuses it where none can start.
 * Without `shell: true` there is no shell: argv goes to the program as is,
 * so `$HOME` or `;` in an argument is just text. With `shell: true` the
 * argv is joined with spaces and handed to the system shell (`/bin/sh -c`),
 * quoting and all.
 *
 * The working directory is the checked `ctx.resolvedPaths[0]` (the `cwd`
 * argument, or the workspace). The timeout is the smaller of the argument
 * and `ctx.timeoutMs`: a call may shorten the runtime's limit, never extend
 * it. On timeout or abort the whole process tree is killed.
 */
export const runCommandTool: ToolDefinition<RunCommandArgs> = {
  name: 'run_command',
  effect: 'execute',
  kind: 'run-command',
  argsSchema: RunCommandArgsSchema,
  destructive: (args) => isDestructiveCommand(args.argv),
  targetPaths: (args) => [args.cwd ?? '.'],
  summarize: (args) => englishText(runSummary(args)),
  summaryMessage: (args) => runSummary(args),
  async run(args, ctx): Promise<ToolResult> {
    const cwd = firstResolvedPath(ctx)
    if (typeof cwd !== 'string') return cwd
    const timeoutMs = Math.min(args.timeoutMs ?? ctx.timeoutMs, ctx.timeoutMs)
    const prepared = await prepareStart(args, cwd, ctx)
    if (!prepared.ok) return prepared.result
    // What it makes that only a person may make is moved aside while it
    // runs, and once more before anyone hears it ended; a command stopped
    // early is checked too, since it may have made something before it was.
    const watch = prepared.start.watchMade?.()
    let ran: ToolResult
    try {
      ran = await runProcess(args, prepared.start, timeoutMs, ctx)
    } catch (error) {
      watch?.stop()
      throw error
    }
    const after = watch?.stop()
    const result = notStartedInSandbox(args, ran) ?? ran
    const note = sandboxStopNote(
      prepared.start.containment,
      prepared.start.hidden,
      result.ok,
      result.output,
    )
    const stopped: ToolResult =
      note === null
        ? result
        : { ...result, output: `${result.output}\n${note}`, code: 'sandbox_denied' }
    return after === undefined ? stopped : withMadeNote(stopped, after)
  },
}

/** The result with what the command made of the table said after its
 *  output: a command that made any of it did not do only what it was
 *  allowed to, so it did not succeed. */
function withMadeNote(result: ToolResult, after: PersonOnlyAfterRun): ToolResult {
  const note = madePersonOnlyNote(after)
  if (note === null) return result
  // The output with the note is what is shown: a result said in words
  // (`message`) would show its words without it.
  const shown: ToolResult = {
    ok: result.ok,
    output: result.output === '' ? note : `${result.output}\n${note}`,
    ...(result.exitCode === undefined ? {} : { exitCode: result.exitCode }),
    ...(result.code === undefined ? {} : { code: result.code }),
  }
  return failsAfterRun(after) ? { ...shown, ok: false, code: 'person_only_made' } : shown
}

/** The command's start as the sandbox prepared it, or the refusal to give
 *  the model. Fails closed: no scope, no sandbox that can start, a
 *  workspace swapped since, or containment other than the person was
 *  shown, and nothing starts. */
async function prepareStart(
  args: RunCommandArgs,
  cwd: string,
  ctx: ToolContext,
): Promise<{ ok: true; start: PreparedCommand } | { ok: false; result: ToolResult }> {
  const scope = ctx.command
  if (scope === undefined) {
    return refused(message('sandbox.notDecided'), 'sandbox_unavailable')
  }
  const prepared = await scope.sandbox.prepare({
    sandboxMode: scope.sandboxMode,
    workspace: ctx.workspace,
    extraWritableRoots: scope.extraWritableRoots,
    ...(scope.expectedWorkspace === undefined
      ? {}
      : { expectedWorkspace: scope.expectedWorkspace }),
    ...(scope.expectedExtraRoots === undefined
      ? {}
      : { expectedExtraRoots: scope.expectedExtraRoots }),
    cwd,
    argv: args.shell === true ? shellArgv(commandLine(args.argv)) : args.argv,
  })
  if (!prepared.ok) return refused(prepared.message, prepared.code)
  if (scope.shown !== undefined && !sameContainment(scope.shown, prepared.containment)) {
    prepared.release?.()
    return refused(message('sandbox.containmentChanged'), 'containment_changed')
  }
  return { ok: true, start: prepared }
}

/** The system shell, as `spawn(line, { shell: true })` would pick it. */
function shellArgv(line: string): string[] {
  if (process.platform === 'win32')
    return [process.env.ComSpec ?? 'cmd.exe', '/d', '/s', '/c', line]
  return ['/bin/sh', '-c', line]
}

/** bubblewrap reports a program it cannot start as its own failure
 *  ("bwrap: execvp …"): that is the same result as a program `spawn`
 *  cannot start, not a command that ran and failed. */
function notStartedInSandbox(args: RunCommandArgs, result: ToolResult): ToolResult | null {
  const said = /^bwrap: execvp [^\n]*: ([^\n]+)\n?$/.exec(result.output)
  if (result.exitCode !== 1 || said === null) return null
  return startFailure(args, new Error(said[1]))
}

function refused(
  said: ReturnType<typeof message>,
  code: string,
): { ok: false; result: ToolResult } {
  return { ok: false, result: saidResult(false, said, { exitCode: null, code }) }
}

function sameContainment(a: CommandContainment, b: CommandContainment): boolean {
  return canonicalJson(a) === canonicalJson(b)
}

function runProcess(
  args: RunCommandArgs,
  start: PreparedCommand,
  timeoutMs: number,
  ctx: ToolContext,
): Promise<ToolResult> {
  return new Promise<ToolResult>((resolve) => {
    const output = new CappedOutput()
    let child: ChildProcess
    try {
      child = startChild(start)
    } catch (error) {
      resolve(startFailure(args, error))
      return
    }

    let stopReason: 'timeout' | 'aborted' | null = null
    let settled = false
    let grace: NodeJS.Timeout | undefined

    const finish = (result: ToolResult): void => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      clearTimeout(grace)
      ctx.signal?.removeEventListener('abort', onAbort)
      resolve(result)
    }
    const stop = (reason: 'timeout' | 'aborted'): void => {
      if (stopReason !== null || settled) return
      stopReason = reason
      killTree(child)
      grace = setTimeout(() => {
        child.stdout?.destroy()
        child.stderr?.destroy()
        finish(stoppedResult(reason, timeoutMs, output.text()))
      }, KILL_GRACE_MS)
    }
    const onAbort = (): void => stop('aborted')
    const timer = setTimeout(() => stop('timeout'), timeoutMs)

    child.stdout?.on('data', (chunk: Buffer) => output.add(chunk))
    child.stderr?.on('data', (chunk: Buffer) => output.add(chunk))
    child.on('error', (error) => finish(startFailure(args, error)))
    child.on('close', (exitCode, signal) => {
      if (stopReason !== null) {
        finish(stoppedResult(stopReason, timeoutMs, output.text()))
        return
      }
      finish(exitResult(exitCode, signal, output.text()))
    })

    if (ctx.signal?.aborted) onAbort()
    else ctx.signal?.addEventListener('abort', onAbort, { once: true })
  })
}

function startChild(start: PreparedCommand): ChildProcess {
  const base: StdioEntry[] =
    start.onDescriptor3 === undefined
      ? ['ignore', 'pipe', 'pipe']
      : ['ignore', 'pipe', 'pipe', 'pipe', ...(start.descriptorsAfter3 ?? [])]
  // A contained command gets no descriptor the runtime was handed by
  // whatever started it (inherited-descriptors.ts); reading which there are
  // fails the start rather than passing them on.
  const given = start.containment.contained
    ? onlyTheseDescriptors(base)
    : { stdio: base, close: () => undefined }
  try {
    // detached on POSIX makes the child a process-group leader, so a timeout
    // can kill everything it started, not just the first process. In the
    // sandbox that leader is bubblewrap, and killing it ends the command's
    // whole PID namespace (--die-with-parent).
    const options: SpawnOptions = {
      cwd: start.cwd,
      env: start.env,
      stdio: given.stdio,
      detached: process.platform !== 'win32',
      windowsHide: true,
      shell: false,
    }
    const child = spawn(start.file, start.args, options)
    if (start.onDescriptor3 !== undefined) giveDescriptor3(child, start.onDescriptor3)
    return child
  } finally {
    given.close()
    // The child holds its own copies now (or never started).
    start.release?.()
  }
}

function killTree(child: ChildProcess): void {
  const pid = child.pid
  if (pid === undefined) return
  if (process.platform === 'win32') {
    // By its full path: Windows looks for a bare name in the current
    // folder and on PATH first, where a command may have left one.
    const taskkill = path.win32.join(
      process.env.SystemRoot ?? 'C:\\Windows',
      'System32',
      'taskkill.exe',
    )
    const killer = spawn(taskkill, ['/pid', String(pid), '/T', '/F'], {
      stdio: 'ignore',
      windowsHide: true,
    })
    killer.on('error', () => child.kill('SIGKILL'))
    return
  }
  try {
    process.kill(-pid, 'SIGKILL')
  } catch {
    child.kill('SIGKILL')
  }
}

/** Keeps the first `MAX_TOOL_OUTPUT_BYTES` of stdout and stderr, in the
 *  order they arrived, and keeps draining the rest so the process never
 *  blocks on a full pipe. */
class CappedOutput {
  private readonly chunks: Buffer[] = []
  private kept = 0
  private dropped = 0

  add(chunk: Buffer): void {
    const room = MAX_TOOL_OUTPUT_BYTES - this.kept
    if (room > 0) {
      const part = chunk.subarray(0, room)
      this.chunks.push(part)
      this.kept += part.length
    }
    this.dropped += Math.max(0, chunk.length - Math.max(room, 0))
  }

  text(): string {
    const text = Buffer.concat(this.chunks).toString('utf8')
    if (this.dropped === 0) return text
    return `${text}\n[output truncated: kept the first ${this.kept} bytes, dropped ${this.dropped}]`
  }
}

function exitResult(
  exitCode: number | null,
  signal: NodeJS.Signals | null,
  output: string,
): ToolResult {
  if (exitCode === 0) return { ok: true, output, exitCode }
  if (signal !== null) {
    return {
      ok: false,
      output: `${output}\n[terminated by ${signal}]`,
      exitCode,
      code: 'signalled',
    }
  }
  return { ok: false, output, exitCode, code: 'nonzero_exit' }
}

function stoppedResult(
  reason: 'timeout' | 'aborted',
  timeoutMs: number,
  output: string,
): ToolResult {
  const note =
    reason === 'timeout'
      ? `[timed out after ${timeoutMs} ms; the process tree was killed]`
      : '[cancelled; the process tree was killed]'
  return {
    ok: false,
    output: output === '' ? note : `${output}\n${note}`,
    exitCode: null,
    code: reason,
  }
}

function startFailure(args: RunCommandArgs, error: unknown): ToolResult {
  const detail = error instanceof Error ? error.message : String(error)
  return saidResult(false, message('tool.cannotStart', { program: args.argv[0] ?? '', detail }), {
    exitCode: null,
    code: 'spawn_failed',
  })
}

function runSummary(args: RunCommandArgs) {
  return message('summary.run', { command: commandLine(args.argv), directory: args.cwd ?? '.' })
}
