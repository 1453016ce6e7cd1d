import path from 'node:path'
import { AGENT_COMMAND_TOOL } from '../../contracts/agent-request.ts'
import { commandLine } from '../tools/command-patterns.ts'
import type { ActionTouch } from './person-only.ts'
import type { ShellReading } from './shell-words.ts'

// Which command lines an action runs, and the folders its relative paths
// are taken from, for the person-only rule (person-only.ts).

/** How deep into an argument object the search goes; deeper asks. */
export const MAX_ARGUMENT_DEPTH = 16

/** Keys under which an MCP tool takes a command line to run: a server's
 *  shell tool is a command too. */
const COMMAND_KEYS = /^(?:command|cmd|command_?line|script|shell_?command|bash|sh)$/i

/**
 * The command lines an action runs: Assent's `run_command` as the tool
 * runs it (with `shell: true` the argv joined, as `/bin/sh -c` receives
 * it, `commandLine`; otherwise each argument quoted, since no shell reads
 * it), a lone argument read as a
 * line (an external agent's command as the reviewer is shown it: its
 * argv alone), an external agent's command line, and any MCP argument
 * under a command key (with the `args` or `argv` beside it, if any).
 */
export function commandLinesOf(touch: ActionTouch): string[] {
  const args = (touch.arguments ?? {}) as Record<string, unknown>
  if (touch.mcpServerId === undefined) {
    if (touch.toolName !== AGENT_COMMAND_TOOL && touch.toolName !== 'run_command') return []
    if (typeof args.commandLine === 'string') return [args.commandLine]
    const argv = stringsOf(args.argv)
    if (argv === null) return []
    if (argv.length === 1) return [argv[0] ?? '']
    return [args.shell === true ? commandLine(argv) : quotedLine(argv)]
  }
  const lines: string[] = []
  const visit = (value: unknown, depth: number): void => {
    if (typeof value !== 'object' || value === null || depth >= MAX_ARGUMENT_DEPTH) return
    if (Array.isArray(value)) {
      for (const item of value) visit(item, depth + 1)
      return
    }
    const record = value as Record<string, unknown>
    for (const [key, inner] of Object.entries(record)) {
      if (COMMAND_KEYS.test(key) && typeof inner === 'string') {
        const rest = stringsOf(record.args) ?? stringsOf(record.argv) ?? []
        lines.push(rest.length === 0 ? inner : quotedLine([inner, ...rest]))
      }
      visit(inner, depth + 1)
    }
  }
  visit(args, 0)
  return lines
}

/** An argument vector as one shell line: each argument single-quoted
 *  unless it holds nothing a shell reads (as the person is shown it in
 *  src/common/command-line-display.ts, which the runtime may not import). */
function quotedLine(argv: readonly string[]): string {
  return argv
    .map((arg) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", `'\\''`)}'`))
    .join(' ')
}

function stringsOf(value: unknown): string[] | null {
  return Array.isArray(value) && value.every((item) => typeof item === 'string')
    ? (value as string[])
    : null
}

/** The folders relative paths are taken from: the workspace, the
 *  command's own folder (`cwd`), and every folder it `cd`s or `pushd`s
 *  to from either. */
export function baseFolders(touch: ActionTouch, readings: readonly ShellReading[]): string[] {
  const bases = new Set([touch.workspace])
  const cwd = (touch.arguments as { cwd?: unknown } | null)?.cwd
  if (readings.length > 0 && typeof cwd === 'string') {
    bases.add(path.resolve(touch.workspace, cwd))
  }
  for (const { words } of readings) {
    words.forEach((word, i) => {
      const target = words[i + 1]
      if ((word === 'cd' || word === 'pushd') && target !== undefined) {
        for (const base of [...bases]) bases.add(path.resolve(base, target))
      }
    })
  }
  return [...bases]
}
