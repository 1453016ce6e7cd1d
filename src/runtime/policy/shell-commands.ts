import path from 'node:path'
import { globMatchesName, hasGlob } from './shell-glob.ts'
import { readShell, wordSpellings, type ShellReading } from './shell-words.ts'

// What a command line does that no path of it shows, for the person-only
// rule: a name built only when it runs, or a change to what git runs. The
// line is tokenized once (shell-words.ts).

/** Words after which the next word is still a command: wrappers that run
 *  the rest (`sudo git …`, `env X=1 git …`, `timeout 10 git …`). After a
 *  wrapper, any later `git` or `eval` of the same command counts as the
 *  command: its options are not read. */
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
  'parallel',
  'chronic',
  'setsid',
  'flock',
  'unbuffer',
  'script',
])

/** The shell's keywords after which the next word is a command. */
const KEYWORDS = new Set(['then', 'do', 'else', 'elif', 'if', 'while', 'until', '!', '{'])
const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'mksh', 'ash', 'busybox'])
const OPERATORS = new Set([';', '&', '&&', '|', '||', '(', ')'])

/** The variables that change what git runs or where it reads its settings. */
const GIT_SETTING_VARIABLES = /^(?:GIT_CONFIG\w*|GIT_EXEC_PATH|GIT_TEMPLATE_DIR)=/i

/** The variables that change how a shell makes names from a pattern
 *  (`GLOBIGNORE` lets `*` match `.git`), or set its options or run a file
 *  of its own as it starts (`BASHOPTS=dotglob`, `BASH_ENV`, zsh's
 *  `ZDOTDIR`): what the command then touches is not what the reading of
 *  its words says. */
const SHELL_SETTING_VARIABLES = /^(?:GLOBIGNORE|BASHOPTS|SHELLOPTS|BASH_ENV|ZDOTDIR)=/

/** The same variables named as a word (`read GLOBIGNORE`, `export
 *  GLOBIGNORE`): set by a command from what it reads. */
const SHELL_SETTING_NAMES = /^(?:GLOBIGNORE|BASHOPTS|SHELLOPTS|BASH_ENV|ZDOTDIR)$/

/** Programs that hand a command line given with `-c` to a shell. */
const LINE_RUNNERS = new Set([...SHELLS, 'script', 'flock'])

/** The commands that set a shell's options, and the options (bash's,
 *  zsh's, ksh's; zsh ignores case and underscores) that change which names
 *  a pattern matches: a leading dot, case, extended patterns. */
const SHELL_OPTION_COMMANDS = new Set(['shopt', 'setopt', 'unsetopt', 'set'])
const PATTERN_OPTIONS = /glob|case|dot|ksh|extended|markdirs|magicequalsubst/

/** Whether a shell's option `name` changes how it matches patterns. */
function patternOption(name: string): boolean {
  return PATTERN_OPTIONS.test(name.toLowerCase().replaceAll('_', ''))
}

/** The commands a word past a wrapper is read for. */
const READ_COMMANDS = ['git', 'eval', ...SHELLS]

/** Whether a word past a wrapper's options may be made into one of
 *  `READ_COMMANDS` by the shell: a variable (its value is not known), a
 *  glob or braces one of whose names is one. */
function mayBeCommand(word: string): boolean {
  if (word.includes('$')) return true
  const names = [word, ...(wordSpellings(word) ?? [word])].map((name) => path.basename(name))
  return names.some((name) =>
    hasGlob(name)
      ? READ_COMMANDS.some((command) => globMatchesName(name, command))
      : name !== path.basename(word) && READ_COMMANDS.includes(name),
  )
}

/** Whether the shell makes more of `word` than it says: a variable, a
 *  glob, braces that expand. Where the command or git's own command is
 *  such a word (`$G config`, `{git,} config`, `gi? config`), what runs is
 *  not known here. */
function shellMakes(word: string): boolean {
  // `[` and `[[` are the test command, not a pattern.
  if (word === '[' || word === '[[') return false
  if (word.includes('$') || hasGlob(word)) return true
  if (!word.includes('{')) return false
  const spellings = wordSpellings(word)
  return spellings === null || spellings.some((name) => name !== word)
}

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
  // `script -c` and `flock -c` hand their line to a shell as well.
  const at = command.findIndex((word) => LINE_RUNNERS.has(path.basename(word)))
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
  // Past `xargs` (or `parallel`): the command's words come from its input.
  let fromInput = false
  const settings = shellSettingsFinding(command)
  if (settings !== null) return settings
  for (let i = 0; i < command.length; i += 1) {
    const word = command[i] ?? ''
    const name = path.basename(word)
    if (GIT_SETTING_VARIABLES.test(word)) return { kind: 'git-settings', what: word }
    // A value built in pieces (`D=.gi; D+=t`), or by a program
    // (`printf -v D …`): what `$D` then names is not read here.
    if (/^[A-Za-z_]\w*\+=/.test(word) || (name === 'printf' && command.includes('-v'))) {
      return { kind: 'built-at-run-time', what: word }
    }
    if (expectCommand && /^[A-Za-z_]\w*=/.test(word)) continue
    // The command itself made by the shell; past a wrapper's options,
    // any word that may be made into git, eval or a shell.
    if (expectCommand ? shellMakes(word) : wrapped && mayBeCommand(word)) {
      return { kind: 'built-at-run-time', what: word }
    }
    if (!expectCommand && !wrapped) return null
    if (name === 'eval') return { kind: 'built-at-run-time', what: 'eval' }
    // The folder a `cd` goes to decides what every relative path after it
    // names: one the shell makes from a variable, or the last one (`-`),
    // is not known here.
    if (name === 'cd' || name === 'pushd') {
      const target = command.slice(i + 1).find((arg) => !/^-[LPe@]+$/.test(arg) && arg !== '--')
      if (target !== undefined && (target === '-' || target.includes('$'))) {
        return { kind: 'built-at-run-time', what: `${word} ${target}` }
      }
      return null
    }
    // git's command read from input (`xargs git`): any of them. With its
    // command written out (`xargs git add`), the input gives its
    // arguments only, read as the command's own.
    if (name === 'git' && fromInput && !namesGitCommand(command.slice(i + 1))) {
      return { kind: 'git-settings', what: `xargs ${word}` }
    }
    if (name === 'git') return gitFinding(command.slice(i + 1))
    if (name === 'find') {
      // `-exec`, `-execdir`, `-ok`, `-okdir` run a command of their own.
      const exec = command.slice(i + 1).findIndex((arg) => /^-(?:exec|ok)(?:dir)?$/.test(arg))
      return exec === -1 ? null : commandWordsFinding(command.slice(i + 2 + exec))
    }
    // A shell's `-c` script is read as a line of its own (readCommandLines).
    if (SHELLS.has(name)) return null
    if (KEYWORDS.has(word)) {
      expectCommand = true
      continue
    }
    if (WRAPPERS.has(name)) {
      wrapped = true
      expectCommand = true
      if (name === 'xargs' || name === 'parallel') fromInput = true
      continue
    }
    expectCommand = false
  }
  return null
}

/**
 * A change to how the shell makes names that this reading assumes:
 * `shopt -s dotglob`, `setopt globdots`, `set -o …`, a shell started with
 * such an option (`bash -O extglob -c …`), or a variable that sets one
 * (`GLOBIGNORE`, `BASHOPTS`, `BASH_ENV`). Patterns are matched as a shell
 * with its default options does (shell-glob.ts); with any of these, a `*`
 * may be `.git`.
 */
function shellSettingsFinding(command: readonly string[]): CommandFinding | null {
  const found = (what: string): CommandFinding => ({ kind: 'built-at-run-time', what })
  for (const word of command) {
    if (SHELL_SETTING_VARIABLES.test(word) || SHELL_SETTING_NAMES.test(word)) return found(word)
  }
  const at = command.findIndex(
    (word) => SHELL_OPTION_COMMANDS.has(word) || SHELLS.has(path.basename(word)),
  )
  if (at === -1) return null
  const head = command[at] ?? ''
  const rest = command.slice(at + 1)
  // `shopt`, `setopt`, `unsetopt`: every word after is an option or a
  // flag; `set` and a shell: the word after `-o`/`+o`/`-O`/`+O`.
  if (head === 'shopt' || head === 'setopt' || head === 'unsetopt') {
    const option = rest.find((word) => patternOption(word) || word.includes('$'))
    return option === undefined ? null : found(`${head} ${option}`)
  }
  for (let i = 0; i < rest.length; i += 1) {
    const flag = rest[i] ?? ''
    if (!/^[-+][A-Za-z]*[oO]$/.test(flag)) continue
    const option = rest[i + 1] ?? ''
    if (patternOption(option) || option.includes('$')) return found(`${head} ${flag} ${option}`)
  }
  return null
}

/** Whether `args` (the words after `git`) name git's command, written
 *  out. */
function namesGitCommand(args: readonly string[]): boolean {
  for (let i = 0; i < args.length; i += 1) {
    const word = args[i] ?? ''
    if (GIT_OPTIONS_WITH_VALUE.has(word)) {
      i += 1
      continue
    }
    if (!word.startsWith('-')) return !shellMakes(word)
  }
  return false
}

/** What a `git` command changes of git's settings: `args` are the words
 *  after `git`. */
function gitFinding(args: readonly string[]): CommandFinding | null {
  const found = (what: string): CommandFinding => ({ kind: 'git-settings', what: `git ${what}` })
  for (let i = 0; i < args.length; i += 1) {
    const word = args[i] ?? ''
    // An option or git's command the shell makes (`git $C …`, `git
    // {config,} …`): which one runs is not known here.
    if (shellMakes(word)) return found(word)
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
