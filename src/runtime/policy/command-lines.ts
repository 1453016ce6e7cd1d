import { homedir } from 'node:os'
import path from 'node:path'
import { AGENT_COMMAND_TOOL } from '../../contracts/agent-request.ts'
import { quoteArgument, quotedCommandLine } from '../../contracts/shell-quoting.ts'
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

/** Keys beside a command that name the environment it runs with: an MCP
 *  server's shell tool, or an ACP agent's tool call, that takes
 *  `{ command, env }` sets each variable for the command as a line's
 *  leading `NAME=value` does. */
const ENVIRONMENT_KEYS = /^(?:env|envs|environment|env_?vars?|environment_?variables)$/i

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
      const line = words.length === 1 ? (words[0] ?? '') : quotedCommandLine(words)
      // The environment given beside it is read as the line's own leading
      // assignments, so a variable that changes what git runs or where it
      // keeps its folder (`GIT_CONFIG_COUNT`, `GIT_DIR`), or how the shell
      // makes names (`BASHOPTS=dotglob` lets `*` match `.git`), needs the
      // person as it does written in the line: given beside it, no rule
      // read it, and a grant, the reviewer or the webhook answered.
      const assignments = environmentOf(entries)
      lines.push(assignments.length === 0 ? line : `${assignments.join(' ')} ${line}`)
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

/**
 * What the environment keys among `entries` set, or those in an object
 * among them (Node's spawn takes `{ command, options: { env } }`), as a
 * shell's assignments (`NAME='value'`): an object of names and values, a
 * list of `{ name, value }` (ACP's terminal) or of `NAME=value` strings,
 * or a string of such lines. A name that is not a plain identifier is
 * left out: neither a shell nor git looks such a name up. A value that is
 * not a string, a number or a boolean is read as its JSON.
 */
function environmentOf(entries: ReadonlyArray<readonly [string, unknown]>): string[] {
  const out: string[] = []
  const add = (name: unknown, value: unknown): void => {
    if (typeof name !== 'string' || !/^[A-Za-z_]\w*$/.test(name)) return
    if (value === undefined || value === null) return
    const text = typeof value === 'object' ? JSON.stringify(value) : String(value)
    out.push(`${name}=${quoteArgument(text)}`)
  }
  const addAssignment = (text: string): void => {
    const at = text.indexOf('=')
    if (at > 0) add(text.slice(0, at).trim(), text.slice(at + 1))
  }
  const beside = entries.flatMap(([key, value]) =>
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    !ENVIRONMENT_KEYS.test(key)
      ? Object.entries(value)
      : [],
  )
  for (const [key, value] of [...entries, ...beside]) {
    if (!ENVIRONMENT_KEYS.test(key)) continue
    if (typeof value === 'string') {
      for (const line of value.split(/\r?\n/)) addAssignment(line)
    } else if (Array.isArray(value)) {
      for (const item of value) {
        if (typeof item === 'string') addAssignment(item)
        else if (typeof item === 'object' && item !== null) {
          const pair = item as Record<string, unknown>
          add(pair.name ?? pair.key, pair.value)
        }
      }
    } else if (typeof value === 'object' && value !== null) {
      for (const [name, inner] of Object.entries(value)) add(name, inner)
    }
  }
  return out
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
