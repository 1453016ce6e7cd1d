import { GIT_FOLDER_NAMES, GIT_SETTING_NAMES, variablePattern } from './git-variable-names.ts'
import path from 'node:path'
import {
  GIT_COMMANDS_HANDING_ON,
  GIT_OPTIONS_WITH_VALUE,
  gitArguments,
  makesGitFolderElsewhere,
  namesDotGit,
} from './git-hand-offs.ts'
import { handOffs, HANDING_ON, SHELLS } from './hand-offs.ts'
import { longOf, shortOf } from './option-words.ts'
import { programNotRead, PROGRAMS_NOT_READ } from './programs-not-read.ts'
import { KEYWORDS, runsFromHere, simpleCommands, WRAPPERS } from './programs-run.ts'
import { sessionHandleIn } from './session-handles.ts'
import { shellSettingsFinding } from './shell-settings.ts'
import { globMatchesName, hasGlob } from './shell-glob.ts'
import { gitSettingsWrittenBy } from './git-settings-commands.ts'
import { gitVariableSetUnseen } from './git-variables-set.ts'
import { readShell, wordSpellings, type ShellReading } from './shell-words.ts'

// What a command line does that no path of it shows, for the person-only
// rule: a name built only when it runs, a change to what git runs, or a
// command it has run that cannot be read. The line is tokenized once
// (shell-words.ts), and so is each line it hands on (hand-offs.ts).

/** `NAME=value` for a variable that changes what git runs or where it
 *  reads its settings (git-variable-names.ts). */
const GIT_SETTING_VARIABLES = variablePattern(GIT_SETTING_NAMES, 'assignment')

/** The variables that name git's folder (`GIT_DIR=docs git init`): one
 *  that is not a `.git` makes (or uses) a repository under a name no rule
 *  keeps, whose config and hooks git runs. */
const GIT_FOLDER_VARIABLES = variablePattern(GIT_FOLDER_NAMES, 'assignment')

/** The commands a word past a wrapper is read for: git (and its dashed
 *  programs that change its settings or hand a line on), `eval`, and the
 *  programs that hand a line on. */
const READ_COMMANDS = [
  ...['git', 'hub', 'eval', ...HANDING_ON, ...PROGRAMS_NOT_READ],
  ...['config', 'init', 'clone', ...GIT_COMMANDS_HANDING_ON].map((command) => `git-${command}`),
]

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

/** What a command line does that no path of it shows: a name built when
 *  it runs, a change to git's settings, or a command it has run that
 *  cannot be read (its words, or the folder it runs in). */
export type CommandFinding = {
  kind: 'built-at-run-time' | 'git-settings' | 'unread-command' | 'person-session'
  what: string
}

/** A command line as read, with the first command it has run that cannot
 *  be read (hand-offs.ts), or null. */
export interface CommandReading extends ShellReading {
  unread: string | null
}

/** How many times a line handed on is read within another (`bash -c
 *  "sh -c '…'"`); one handed on deeper is not read, and needs the person. */
const MAX_HAND_OFF_DEPTH = 4

/** How many words the lines handed on may hold, all together; past it
 *  they are not read, and need the person. */
const MAX_HANDED_ON_WORDS = 100_000

/**
 * Each command line, and every line it hands on (a shell's `-c` script,
 * `env -S`'s string, what `watch` or git runs: hand-offs.ts), to four
 * levels, each tokenized once: a line handed on is a command line of its
 * own, read by every check as the line is.
 */
export function readCommandLines(lines: readonly string[]): CommandReading[] {
  const out: CommandReading[] = []
  let level = lines.map((line) => readShell(line))
  let handedOnWords = 0
  for (let depth = 0; level.length > 0; depth += 1) {
    const next: ShellReading[] = []
    // The first line of this level that hands one on.
    let handing: ShellReading | null = null
    for (const reading of level) {
      let unread: string | null = null
      for (const command of simpleCommands(reading.words)) {
        const handed = handOffs(command)
        unread ??= handed.unread
        next.push(...handed.readings)
        if (handed.readings.length > 0) handing ??= reading
      }
      out.push({ ...reading, unread })
    }
    handedOnWords += next.reduce((sum, reading) => sum + reading.words.length, 0)
    if (handing !== null && (depth === MAX_HAND_OFF_DEPTH || handedOnWords > MAX_HANDED_ON_WORDS)) {
      const what = handing.words.slice(0, 8).join(' ')
      out.push({ words: [], runTime: null, unread: what })
      break
    }
    level = next
  }
  return out
}

/** Why each finding needs the person, finishing "<words>: …"
 *  (person-only.ts). */
export const COMMAND_REASONS = {
  'built-at-run-time':
    'the command builds what it touches only when it runs, which cannot be checked',
  'git-settings': 'it changes what git runs (its settings)',
  'person-session': "it reaches the person's desktop session (display, session bus, agents)",
  'unread-command':
    'the command it runs cannot be read whole here (its words, or the folder it runs in), so it cannot be checked',
} as const satisfies Record<CommandFinding['kind'], string>

/**
 * What needs the person in command lines (`readCommandLines`) whatever
 * paths they name: a name
 * built at run time (`$(…)`, `${X:-w}`, `eval`, a command that is a
 * variable), or a change to what git runs: `git config …` (which writes a
 * config, or reads one that can hold a token), git's `-c`, `--config-env`
 * and `--exec-path`, `git init`/`clone --template`, `clone -c`/`--config`,
 * and the `GIT_CONFIG*`, `GIT_EXEC_PATH`, `GIT_TEMPLATE_DIR`, `HOME` and
 * `XDG_CONFIG_HOME` variables set for a command, or any variable of git's set by the shell with a
 * value the line does not show (`read GIT_DIR`: git-variables-set.ts),
 * and git's commands that write its settings without
 * `git config` (`remote set-url`, `lfs install`: git-settings-commands.ts); git's folder made or used under another name (`init
 * --bare`, `clone --mirror`, `worktree add`, `submodule add`, `GIT_DIR`);
 * or a program whose program is not read (programs-not-read.ts). `git`
 * counts wherever it is a word of its own, first in a command or after
 * any other word (`runsFromHere`), not inside another word (`grep "git
 * config" docs`). A name
 * that a program computes (`python -c …`, `tr`) is not read: see
 * docs/security-model.md.
 */
export function commandFinding(readings: readonly CommandReading[]): CommandFinding | null {
  let notRead: CommandFinding | null = null
  for (const reading of readings) {
    if (reading.runTime !== null) return { kind: 'built-at-run-time', what: reading.runTime }
    for (const command of simpleCommands(reading.words)) {
      const finding = commandWordsFinding(command)
      if (finding?.kind === 'unread-command') notRead ??= finding
      else if (finding !== null) return finding
    }
  }
  // What a command that cannot be read runs is read as far as it can be
  // first: a finding there says more.
  const unread = readings.find((reading) => reading.unread !== null)?.unread
  return unread == null ? notRead : { kind: 'unread-command', what: unread }
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
  if (settings !== null) return { kind: 'built-at-run-time', what: settings }
  const session = sessionHandleIn(command)
  if (session !== null) return { kind: 'person-session', what: session }
  const variable = gitVariableSetUnseen(command)
  if (variable !== null) return variable
  for (let i = 0; i < command.length; i += 1) {
    const word = command[i] ?? ''
    const name = path.basename(word)
    if (GIT_SETTING_VARIABLES.test(word)) return { kind: 'git-settings', what: word }
    if (GIT_FOLDER_VARIABLES.test(word) && !namesDotGit(word.slice(word.indexOf('=') + 1))) {
      return { kind: 'git-settings', what: word }
    }
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
    // Past a program not known to run its words: only a word that may be
    // a program the rules read, run from there (`ssh-agent git config`).
    if (!expectCommand && !wrapped && !runsFromHere(name)) continue
    if (name === 'eval') return { kind: 'built-at-run-time', what: 'eval' }
    // A name given to another program for the commands after it: an alias
    // (zsh expands one in a script, bash after `shopt -s expand_aliases`)
    // or `hash -p` (bash runs the program named for the name). Which
    // program a later command runs is then not its word (`alias g=git`,
    // then `g config …`).
    const after = command.slice(i + 1)
    if (
      (name === 'alias' && after.some((arg) => arg.includes('='))) ||
      (name === 'hash' && after.some((arg) => /^-[a-z]*p/.test(arg)))
    ) {
      return { kind: 'built-at-run-time', what: [word, ...after].slice(0, 4).join(' ') }
    }
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
    // git, or git's own dashed program (`/usr/lib/git-core/git-config`).
    const git = gitArguments(name, command, i + 1)
    // git's command read from input (`xargs git`): any of them. With its
    // command written out (`xargs git add`), the input gives its
    // arguments only, read as the command's own.
    if (git !== null && fromInput && !namesGitCommand(git)) {
      return { kind: 'git-settings', what: `xargs ${word}` }
    }
    if (git !== null) return gitFinding(git)
    if (name === 'find') {
      // `-exec`, `-execdir`, `-ok`, `-okdir` run a command of their own.
      const exec = command.slice(i + 1).findIndex((arg) => /^-(?:exec|ok)(?:dir)?$/.test(arg))
      return exec === -1 ? null : commandWordsFinding(command.slice(i + 2 + exec))
    }
    // A program whose own program is not among the words: a shell reading
    // its input (`curl … | sh`), PowerShell's text, ssh's command.
    const notRead = programNotRead({ name, words: command, from: i + 1, fromInput })
    if (notRead !== null) return { kind: 'unread-command', what: notRead }
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
    // git's folder under another name: the folder git runs in is taken
    // for a bare repository (`--bare`), or `--git-dir` names one.
    if (word === '--bare') return found(word)
    const gitDir = word === '--git-dir' ? args[i + 1] : /^--git-dir=(.*)$/.exec(word)?.[1]
    if (gitDir !== undefined && !namesDotGit(gitDir)) return found(`--git-dir ${gitDir}`)
    if (GIT_OPTIONS_WITH_VALUE.has(word)) {
      i += 1
      continue
    }
    if (word.startsWith('-')) continue
    // git's command.
    if (word === 'config') return found(word)
    const rest = args.slice(i + 1)
    const written = gitSettingsWrittenBy(word, rest)
    if (written !== null) return found(written)
    if (word === 'init' || word === 'clone') {
      const template = rest.find((arg) => longOf(arg, 'template'))
      if (template !== undefined) return found(`${word} ${template}`)
      const folder = rest.find(makesGitFolderElsewhere)
      if (folder !== undefined) return found(`${word} ${folder}`)
    }
    // A git folder, or a `.git` file pointing into one, made elsewhere: a
    // linked worktree, a submodule.
    const sub = rest.find((arg) => !arg.startsWith('-'))
    if (
      (word === 'worktree' && (sub === 'add' || sub === 'move')) ||
      (word === 'submodule' && sub === 'add')
    ) {
      return found(`${word} ${sub}`)
    }
    if (word === 'clone') {
      const setting = rest.find((arg) => shortOf(arg, 'c') || longOf(arg, 'config'))
      if (setting !== undefined) return found(`clone ${setting}`)
    }
    return null
  }
  return null
}
