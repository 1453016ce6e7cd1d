import { spawn } from 'node:child_process'
import type { ChildProcess, SpawnOptions } from 'node:child_process'
import { z } from 'zod'
import { commandEnvironment } from './command-environment.ts'
import { englishText, message } from '../../contracts/runtime-message.ts'
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
 * Runs a program with `spawn`. Without `shell: true` there is no shell: argv
 * goes to the program as is, so `$HOME` or `;` in an argument is just text.
 * With `shell: true` the argv is joined with spaces and handed to the system
 * shell, quoting and all.
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
    return runProcess(args, cwd, timeoutMs, ctx)
  },
}

function runProcess(
  args: RunCommandArgs,
  cwd: string,
  timeoutMs: number,
  ctx: ToolContext,
): Promise<ToolResult> {
  return new Promise<ToolResult>((resolve) => {
    const output = new CappedOutput()
    let child: ChildProcess
    try {
      child = startChild(args, cwd)
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

function startChild(args: RunCommandArgs, cwd: string): ChildProcess {
  // detached on POSIX makes the child a process-group leader, so a timeout
  // can kill everything it started, not just the first process.
  const options: SpawnOptions = {
    cwd,
    env: commandEnvironment(),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: process.platform !== 'win32',
    windowsHide: true,
  }
  if (args.shell === true) return spawn(commandLine(args.argv), { ...options, shell: true })
  const [program = '', ...rest] = args.argv
  return spawn(program, rest, { ...options, shell: false })
}

function killTree(child: ChildProcess): void {
  const pid = child.pid
  if (pid === undefined) return
  if (process.platform === 'win32') {
    const killer = spawn('taskkill', ['/pid', String(pid), '/T', '/F'], {
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
