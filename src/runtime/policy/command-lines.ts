import { homedir } from 'node:os'
import path from 'node:path'
import { AGENT_COMMAND_TOOL } from '../../contracts/agent-request.ts'
import { quotedCommandLine } from '../../contracts/shell-quoting.ts'
import { commandLine } from '../tools/command-patterns.ts'
import type { ActionTouch } from './person-only.ts'
import type { ShellReading } from './shell-words.ts'

// Which command lines an action runs, and the folders its relative paths
// are taken from, for the person-only rule (person-only.ts).

/** How deep into an argument object the search goes; deeper asks. */
export const MAX_ARGUMENT_DEPTH = 16

/** Keys under which a tool Assent does not know takes a command line to
 *  run: an MCP server's shell tool is a command too, and so is an ACP
 *  agent's tool call of any kind that carries one (codex-acp sends a
 *  command that only reads or searches as kind `read` or `search`). */
const COMMAND_KEYS = /^(?:command|cmd|command_?line|script|shell_?command|bash|sh)$/i

/** Keys beside a command that name the folder it runs in. */
const FOLDER_KEYS = /^(?:cwd|workdir|work_?dir|working_?dir(?:ectory)?|dir(?:ectory)?)$/i

/** The command lines an action runs, and the folders they run in. */
export interface ActionCommands {
  lines: string[]
  /** Folders the commands run in, as given (relative to the workspace
   *  when not absolute). */
  folders: string[]
}

/**
 * The command lines an action runs: Assent's `run_command` as the tool
 * runs it (with `shell: true` the argv joined, as `/bin/sh -c` receives
 * it, `commandLine`; otherwise each argument quoted, since no shell reads
 * it), a lone argument read as a line (an external agent's command as the
 * reviewer is shown it: its argv alone), an external agent's command
 * line; and for any other tool, Assent's file tools aside, every argument
 * under a command key (with the `args` or `argv` beside it, if any), with
 * the folder a key beside it names.
 */
export function commandsOf(touch: ActionTouch): ActionCommands {
  const args = (touch.arguments ?? {}) as Record<string, unknown>
  const folders = typeof args.cwd === 'string' ? [args.cwd] : []
  if (
    touch.mcpServerId === undefined &&
    (touch.toolName === AGENT_COMMAND_TOOL || touch.toolName === 'run_command')
  ) {
    if (typeof args.commandLine === 'string') return { lines: [args.commandLine], folders }
    const argv = stringsOf(args.argv)
    if (argv === null) return { lines: [], folders }
    if (argv.length === 1) return { lines: [argv[0] ?? ''], folders }
    return { lines: [args.shell === true ? commandLine(argv) : quotedCommandLine(argv)], folders }
  }
  const lines: string[] = []
  const visit = (value: unknown, depth: number): void => {
    if (typeof value !== 'object' || value === null || depth >= MAX_ARGUMENT_DEPTH) return
    if (Array.isArray(value)) {
      for (const item of value) visit(item, depth + 1)
      return
    }
    const record = value as Record<string, unknown>
    const entries = Object.entries(record)
    const command = entries.filter(([key]) => COMMAND_KEYS.test(key))
    for (const [, inner] of command) {
      const rest = stringsOf(record.args) ?? stringsOf(record.argv) ?? []
      // A command given as an argv is run without a shell: each word is
      // quoted, as the shell reading must take it whole. The `args` beside
      // it are its words too, whichever way the command is given.
      const argv = stringsOf(inner)
      const words = typeof inner === 'string' ? [inner, ...rest] : argv && [...argv, ...rest]
      if (words === null || words.length === 0) continue
      lines.push(words.length === 1 ? (words[0] ?? '') : quotedCommandLine(words))
    }
    if (command.length > 0) {
      for (const [key, inner] of entries) {
        if (FOLDER_KEYS.test(key) && typeof inner === 'string') folders.push(inner)
      }
    }
    for (const [, inner] of entries) visit(inner, depth + 1)
  }
  visit(args, 0)
  return { lines, folders: lines.length === 0 ? [] : folders }
}

function stringsOf(value: unknown): string[] | null {
  return Array.isArray(value) && value.every((item) => typeof item === 'string')
    ? (value as string[])
    : null
}

/** What `readShell` makes of the shell's operators: a `cd` followed by one
 *  has no folder of its own. */
const OPERATOR_WORDS = new Set([';', '&', '&&', '|', '||', '(', ')', '>'])

/** The folders relative paths are taken from: the workspace, each
 *  folder a command runs in, every folder it `cd`s or `pushd`s to from
 *  either, and the person's home for a `cd` with no folder. (Every folder
 *  the action names is one too: person-only.ts.) */
export function baseFolders(
  touch: ActionTouch,
  commands: ActionCommands,
  readings: readonly ShellReading[],
): string[] {
  // An MCP server Assent started takes relative paths from its own folder,
  // which need not be the workspace: judged from both (person-only.ts).
  const bases = new Set([touch.workspace])
  if (touch.serverFolder !== undefined) bases.add(touch.serverFolder)
  if (readings.length > 0) {
    for (const folder of commands.folders) bases.add(path.resolve(touch.workspace, folder))
  }
  for (const { words } of readings) {
    words.forEach((word, i) => {
      const target = words[i + 1]
      if (word !== 'cd' && word !== 'pushd') return
      const named = target === undefined || OPERATOR_WORDS.has(target) ? homedir() : target
      for (const base of [...bases]) bases.add(path.resolve(base, named))
    })
  }
  return [...bases]
}
