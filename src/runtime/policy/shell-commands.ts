import path from 'node:path'
import { readShell, type ShellReading } from './shell-words.ts'

// What a command line does that no path of it shows, for the person-only
// rule: a name built only when it runs, or a change to what git runs. The
// line is tokenized once (shell-words.ts).

/** Words after which the next word is still a command: wrappers that run
 *  the rest (`sudo git …`, `env X=1 git …`, `timeout 10 git …`) and the
 *  shell's keywords. After a wrapper, any later `git` or `eval` of the same
 *  command counts as the command: its options are not read. */
const WRAPPERS = new Set([
  'sudo',
  'doas',
  'env',
  'command',
  'builtin',
  'exec',
  'nohup',
  'time',
  'nice',
  'ionice',
  'timeout',
  'stdbuf',
  'xargs',
  'chronic',
  'then',
  'do',
  'else',
  'elif',
  'if',
  'while',
  'until',
  '!',
  '{',
])
const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'mksh', 'ash', 'busybox'])
const OPERATORS = new Set([';', '&', '&&', '|', '||', '(', ')'])

/** The variables that change what git runs or where it reads its settings. */
const GIT_SETTING_VARIABLES = /^(?:GIT_CONFIG\w*|GIT_EXEC_PATH|GIT_TEMPLATE_DIR)=/i

/** git's options before its command that take their value as the next
 *  word. */
const GIT_OPTIONS_WITH_VALUE = new Set(['-C', '--git-dir', '--work-tree', '--namespace'])

/** What a command line does that no path of it shows. */
export type CommandFinding =
  { kind: 'built-at-run-time'; what: string } | { kind: 'git-settings'; what: string }

/**
 * Each command line, and every script handed to a shell's `-c` in it
 * (`bash -lc '…'`), to four levels, each tokenized once: a script is a
 * command line of its own, read by every check as the line is.
 */
export function readCommandLines(lines: readonly string[]): ShellReading[] {
  const out: ShellReading[] = []
  let level = lines.map(readShell)
  for (let depth = 0; depth <= 4 && level.length > 0; depth += 1) {
    out.push(...level)
    level = level.flatMap((reading) =>
      simpleCommands(reading.words).flatMap((command) => shellScripts(command).map(readShell)),
    )
  }
  return out
}

/**
 * What needs the person in command lines (`readCommandLines`) whatever
 * paths they name: a name
 * built at run time (`$(…)`, `${X:-w}`, `eval`, a command that is a
 * variable), or a change to what git runs: `git config …` (which writes a
 * config, or reads one that can hold a token), git's `-c`, `--config-env`
 * and `--exec-path`, `git init`/`clone --template`, `clone -c`/`--config`,
 * and the `GIT_CONFIG*`, `GIT_EXEC_PATH` and `GIT_TEMPLATE_DIR` variables
 * set for a command. `git` counts where a shell runs it (first in a
 * command, or after a wrapper), not as another program's argument (`grep
 * "git config" docs`). A name that a program computes (`python -c …`,
 * `tr`) is not read: see docs/security-model.md.
 */
export function commandFinding(readings: readonly ShellReading[]): CommandFinding | null {
  for (const reading of readings) {
    if (reading.runTime !== null) return { kind: 'built-at-run-time', what: reading.runTime }
    for (const command of simpleCommands(reading.words)) {
      const finding = commandWordsFinding(command)
      if (finding !== null) return finding
    }
  }
  return null
}

/** The script a simple command hands to a shell's `-c`, if it does. */
function shellScripts(command: readonly string[]): string[] {
  const at = command.findIndex((word) => SHELLS.has(path.basename(word)))
  if (at === -1) return []
  const flag = command.slice(at + 1).findIndex((arg) => /^-[A-Za-z]*c[A-Za-z]*$/.test(arg))
  const script = flag === -1 ? undefined : command[at + 2 + flag]
  return script === undefined ? [] : [script]
}

/** The words of each simple command, operators dropped, redirections and
 *  their targets left out. */
function simpleCommands(words: readonly string[]): string[][] {
  const commands: string[][] = [[]]
  for (let i = 0; i < words.length; i += 1) {
    const word = words[i] ?? ''
    if (OPERATORS.has(word)) commands.push([])
    else if (word === '>') i += 1
    else commands.at(-1)?.push(word)
  }
  return commands.filter((command) => command.length > 0)
}

function commandWordsFinding(command: readonly string[]): CommandFinding | null {
  // The next word is the command (after assignments, or a wrapper).
  let expectCommand = true
  // Past a wrapper: its options are not read, so any later word may be
  // the command it runs.
  let wrapped = false
  for (let i = 0; i < command.length; i += 1) {
    const word = command[i] ?? ''
    const name = path.basename(word)
    if (GIT_SETTING_VARIABLES.test(word)) return { kind: 'git-settings', what: word }
    if (expectCommand && /^[A-Za-z_]\w*=/.test(word)) continue
    if (expectCommand && word.startsWith('$')) return { kind: 'built-at-run-time', what: word }
    if (!expectCommand && !wrapped) return null
    if (name === 'eval') return { kind: 'built-at-run-time', what: 'eval' }
    if (name === 'git') return gitFinding(command.slice(i + 1))
    if (name === 'find') {
      // `-exec`, `-execdir`, `-ok`, `-okdir` run a command of their own.
      const exec = command.slice(i + 1).findIndex((arg) => /^-(?:exec|ok)(?:dir)?$/.test(arg))
      return exec === -1 ? null : commandWordsFinding(command.slice(i + 2 + exec))
    }
    // A shell's `-c` script is read as a line of its own (readCommandLines).
    if (SHELLS.has(name)) return null
    if (WRAPPERS.has(name)) {
      wrapped = true
      expectCommand = true
      continue
    }
    expectCommand = false
  }
  return null
}

/** What a `git` command changes of git's settings: `args` are the words
 *  after `git`. */
function gitFinding(args: readonly string[]): CommandFinding | null {
  const found = (what: string): CommandFinding => ({ kind: 'git-settings', what: `git ${what}` })
  for (let i = 0; i < args.length; i += 1) {
    const word = args[i] ?? ''
    if (/^-c/.test(word) || /^--(?:config-env|exec-path)/.test(word)) return found(word)
    if (GIT_OPTIONS_WITH_VALUE.has(word)) {
      i += 1
      continue
    }
    if (word.startsWith('-')) continue
    // git's command.
    if (word === 'config') return found(word)
    const rest = args.slice(i + 1)
    if (word === 'init' || word === 'clone') {
      const template = rest.find((arg) => arg.startsWith('--template'))
      if (template !== undefined) return found(`${word} ${template}`)
    }
    if (word === 'clone') {
      const setting = rest.find((arg) => /^(?:-c|--config)/.test(arg))
      if (setting !== undefined) return found(`clone ${setting}`)
    }
    return null
  }
  return null
}
