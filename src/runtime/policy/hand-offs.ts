import path from 'node:path'
import { envSplitReading } from './env-split-string.ts'
import {
  GIT_COMMANDS_HANDING_ON,
  gitCommandOf,
  gitHandOffs,
  gitVariableLines,
} from './git-hand-offs.ts'
import { MAX_OPTION_WORDS, readOptions, type OptionSpec, type OptionsRead } from './option-words.ts'
import { readShell, type ShellReading } from './shell-words.ts'

// The command lines one simple command hands to another program to run,
// for the person-only rule: a shell's `-c` script, fish's and csh's,
// a `trap`'s action, `mapfile -C`'s callback, `su -c`, `script -c` and `flock -c`, the line `watch` hands to `sh -c`,
// `sg`'s command, nix-shell's `--run`, rsync's `-e`, the words `env -S`
// splits a string into, and what git runs (git-hand-offs.ts). A program
// whose program is not among its words (`curl … | sh`) is
// programs-not-read.ts's. shell-commands.ts reads each as a command line of
// its own. Each program's options are read as the program reads them, to
// find the word it runs (`bash -c -e 'script'` runs `script`, not `-e`);
// where they cannot be, the command is unread and needs the person.

/** Shells that take a `-c` script as POSIX shells do: options, `-c` among
 *  them, then the first operand is the script (`sh -e -c 'script'`,
 *  `bash -c -- 'script'`, `bash -xc 'script'`). */
export const POSIX_SHELLS = [
  ...['sh', 'bash', 'rbash', 'zsh', 'dash', 'ash', 'hush', 'yash', 'posh'],
  ...['ksh', 'ksh93', 'mksh', 'lksh', 'oksh', 'pdksh'],
]
/** Shells whose `-c` takes the next word as its script. */
export const FISH = 'fish'
export const CSH_SHELLS = ['csh', 'tcsh']
export const SHELLS = new Set([...POSIX_SHELLS, FISH, ...CSH_SHELLS])

/** Per shell, the letters of its options whose value is the next word
 *  (`-o pipefail`, bash's `-O extglob`, ksh93's `-R file`, mksh's `-T
 *  tty`); `o` for the others. */
const VALUE_LETTERS: Readonly<Record<string, string>> = {
  bash: 'oO',
  rbash: 'oO',
  ksh: 'oR',
  ksh93: 'oR',
  mksh: 'oT',
  lksh: 'oT',
}
/** Long options whose value is the next word: bash's `--rcfile` and
 *  `--init-file`, zsh's `--emulate`. */
const VALUE_LONG = new Set(['--rcfile', '--init-file', '--emulate'])

/** fish's options: its `-c`/`--command` and `-C`/`--init-command` each
 *  run a line. */
export const FISH_OPTIONS: OptionSpec = {
  flags: 'hPilNnv',
  withValue: 'cCpdfDo',
  long: {
    command: 'required',
    'init-command': 'required',
    debug: 'required',
    'debug-output': 'required',
    'debug-stack-frames': 'required',
    features: 'required',
    profile: 'required',
    'profile-startup': 'required',
    private: 'none',
    interactive: 'none',
    login: 'none',
    'no-execute': 'none',
    'no-config': 'none',
    'print-rusage-self': 'none',
    'print-debug-categories': 'none',
    help: 'none',
    version: 'none',
  },
  stopsAtOperand: true,
}
export const FISH_LINES = new Set(['c', 'C', 'command', 'init-command'])

/** csh's and tcsh's `-c`: the next word. */
export const CSH_OPTIONS: OptionSpec = {
  flags: 'bdDefFilmnqstvVxX',
  withValue: 'c',
  long: { help: 'none', version: 'none' },
  stopsAtOperand: true,
}

/** Programs whose `-c`/`--command` value is a line they hand to a shell:
 *  util-linux's `su`, `runuser`, `script` and `flock`. Each reads options
 *  past its operands (`su me -c …`, `flock /tmp/l -c …`). */
export const LINE_OPTION_PROGRAMS: Readonly<Record<string, OptionSpec>> = {
  su: lineOptions('fmplP', 'cgGsw', ['group', 'supp-group', 'shell', 'whitelist-environment']),
  runuser: lineOptions('fmplP', 'cgGswu', ['group', 'supp-group', 'shell', 'user']),
  script: lineOptions('aefqhV', 'cEIOBTmo', ['echo', 'log-in', 'log-out', 'log-io', 'log-timing']),
  flock: lineOptions('sexunoFhV', 'cwE', ['timeout', 'conflict-exit-code']),
}

function lineOptions(flags: string, withValue: string, long: string[]): OptionSpec {
  const required = [...long, 'command', 'session-command'].map((name) => [name, 'required'])
  return { flags, withValue, long: Object.fromEntries(required), stopsAtOperand: false }
}

/** bash's `mapfile` (and `readarray`): `-C` takes a line to run. */
const MAPFILE_OPTIONS: OptionSpec = {
  flags: 't',
  withValue: 'CcdnOsu',
  long: {},
  stopsAtOperand: true,
}

/** procps' `watch`: its command's words, joined with spaces, are a line
 *  for `sh -c` (with `-x`, a command run as it is, read as a wrapper's
 *  by shell-commands.ts). */
const WATCH_OPTIONS: OptionSpec = {
  flags: 'bcCeghprtwvx',
  withValue: 'nq',
  optionalValue: 'd',
  long: {
    beep: 'none',
    color: 'none',
    'no-color': 'none',
    differences: 'optional',
    errexit: 'none',
    chgexit: 'none',
    equexit: 'required',
    interval: 'required',
    precise: 'none',
    'no-rerun': 'none',
    'no-title': 'none',
    'no-wrap': 'none',
    exec: 'none',
    help: 'none',
    version: 'none',
  },
  stopsAtOperand: true,
}

/** The programs that hand a line on here: what a word the shell makes
 *  (`e?v`, `$P`) may be for the command to need reading. */
export const HANDING_ON = [
  ...[...SHELLS, 'env', 'watch', 'sg', 'nix-shell', 'rsync', 'man'],
  ...Object.keys(LINE_OPTION_PROGRAMS),
]

/** What a simple command hands on: lines read as a shell reads them, and
 *  a command run that cannot be read here (null when there is none). */
export interface HandOffs {
  readings: ShellReading[]
  unread: string | null
}

/**
 * The command lines `command` (a simple command's words) hands on. A
 * program is looked for at every word, whatever comes before it (a
 * wrapper, or an argument: reading more can only make the action ask);
 * each text is read as a line once; the rest of the words are read as
 * `watch` joins them and as the first of `env -S` and `git bisect run`
 * (or `submodule foreach`) hands them on (any later one is among them,
 * word for word, for the next reading); and each program's options are
 * read up to `MAX_OPTION_WORDS`, past which it is unread. So what is read
 * is bounded by the command's length.
 */
export function handOffs(command: readonly string[]): HandOffs {
  const readings: ShellReading[] = []
  let unread: string | null = null
  // Each text is read once, however many programs hand it on.
  const read = new Set<string>()
  const line = (text: string | null, dialect?: 'fish') => {
    const key = `${dialect ?? ''}:${text}`
    if (text === null || read.has(key)) return
    read.add(key)
    readings.push(readShell(text, dialect))
  }
  // The rest of the words, read at most twice: as `watch` joins them (which
  // loses their quotes), and as the first of the others hands them on
  // (each of which keeps every later word as it is, for the next reading).
  let watchRead = false
  let restRead = false
  const rest = (reading: ShellReading) => {
    restRead = true
    readings.push(reading)
  }
  const seen = new Set<string>()
  // git's long options are read in every word after the first git; its
  // commands that hand on in other ways, once each.
  let gitRead = false
  const gitCommandsRead = new Set<string>()
  for (let i = 0; i < command.length; i += 1) {
    const name = path.basename(command[i] ?? '')
    const first = !seen.has(name)
    seen.add(name)
    // A program given more options than are read hands on what is not.
    const tooMany = (read: OptionsRead) => {
      if (read.stopped !== null) unread ??= `${name} … ${read.stopped}`
    }
    if (POSIX_SHELLS.includes(name)) {
      const read = posixShellOptions(command, i + 1, name)
      if (read === 'too-many') unread ??= `${name} … ${command[i + 1 + MAX_OPTION_WORDS] ?? ''}`
      else if (read.script && read.operand !== null) line(command[read.operand] ?? '')
    } else if (name === FISH || CSH_SHELLS.includes(name)) {
      const fish = name === FISH
      const read = readOptions(command, i + 1, fish ? FISH_OPTIONS : CSH_OPTIONS)
      tooMany(read)
      for (const option of read.options) {
        if (fish ? FISH_LINES.has(option.name) : option.name === 'c') {
          line(option.value, fish ? 'fish' : undefined)
        }
      }
    } else if (first && Object.hasOwn(LINE_OPTION_PROGRAMS, name)) {
      const read = readOptions(command, i + 1, LINE_OPTION_PROGRAMS[name] as OptionSpec)
      tooMany(read)
      for (const option of read.options) {
        if (/^(?:c|command|session-command)$/.test(option.name)) line(option.value)
      }
    } else if (name === 'env' && !restRead) {
      const split = envSplitReading(command, i + 1)
      if (split !== null && 'unread' in split) unread ??= split.unread
      else if (split !== null) rest(split.reading)
    } else if (first && name === 'trap') {
      // trap's action: a line the shell runs at the signal, or as it
      // exits (`trap 'git config …' EXIT`), read as eval's would be.
      let at = i + 1
      while (/^-[lp]+$/.test(command[at] ?? '')) at += 1
      if (command[at] === '--') at += 1
      line(command[at] ?? null)
    } else if (first && (name === 'mapfile' || name === 'readarray')) {
      // `-C`'s callback: a line bash runs for each group of lines read.
      const read = readOptions(command, i + 1, MAPFILE_OPTIONS)
      for (const option of read.options) if (option.name === 'C') line(option.value)
    } else if (first && name === 'man') {
      // man's pager and browser (`-P`, `--pager`, `-H`, `--html`): a line
      // man hands to a shell with the page.
      for (const text of manLines(command, i + 1)) line(text)
    } else if (first && name === 'sg') {
      line(sgLine(command, i + 1))
    } else if (first && (name === 'nix-shell' || name === 'rsync')) {
      for (const text of optionLines(name, command, i + 1)) line(text)
    } else if (name === 'watch' && !watchRead) {
      watchRead = true
      const options = readOptions(command, i + 1, WATCH_OPTIONS)
      const unknown = options.unknown ?? options.stopped
      if (unknown !== null) unread ??= `watch ${unknown}`
      else if (options.firstOperand < command.length) {
        readings.push(readShell(command.slice(options.firstOperand).join(' ')))
      }
    }
    const git = gitCommandOf(name, command, i + 1)
    const gitHandsOn = git !== null && GIT_COMMANDS_HANDING_ON.has(git.command)
    if (git === null || (gitRead && (!gitHandsOn || gitCommandsRead.has(git.command)))) continue
    gitRead = true
    gitCommandsRead.add(git.command)
    const handed = gitHandOffs(git.command, command, git.from)
    for (const text of handed.lines) line(text)
    if (handed.rest !== null && !restRead) rest(readShell(handed.rest))
    unread ??= handed.elsewhere
  }
  for (const text of gitVariableLines(command)) line(text)
  for (const text of commandVariableLines(command)) line(text)
  return { readings, unread }
}

/** Variables whose value a program runs as a command line: the pager
 *  (`PAGER='…' git log`, man's, systemd's), less's input filters
 *  (`LESSOPEN='|… %s'`), the editor and the browser programs start, and
 *  the askpass programs ssh and sudo run. Set before a command, or by
 *  `export`, each is read as a line. */
const COMMAND_VARIABLES =
  /^(?:PAGER|MANPAGER|SYSTEMD_PAGER|LESSOPEN|LESSCLOSE|EDITOR|VISUAL|FCEDIT|BROWSER|SSH_ASKPASS|SUDO_ASKPASS)=/

function commandVariableLines(words: readonly string[]): string[] {
  return words.flatMap((word) => {
    const name = COMMAND_VARIABLES.exec(word)
    // less's filters start with `|` (or `||`, or `-|`): the rest is the line.
    return name === null ? [] : [word.slice(name[0].length).replace(/^-?\|{1,2}/, '')]
  })
}

/** The values of man's options that name a program it hands a line to:
 *  `-P`/`--pager` and `-H`/`--html` (each `-Pvalue`, `-P value` or
 *  `--pager=value`). */
function manLines(words: readonly string[], from: number): string[] {
  const out: string[] = []
  for (let i = from; i < words.length; i += 1) {
    const word = words[i] ?? ''
    const long = /^--(pager|html)(?:=(.*))?$/.exec(word)
    const short = /^-[^-]*?([PH])(.*)$/.exec(word)
    if (long !== null) out.push(long[2] ?? words[i + 1] ?? '')
    else if (short !== null) out.push(short[2] === '' ? (words[i + 1] ?? '') : (short[2] ?? ''))
  }
  return out
}

/** How a POSIX shell is started: whether it has `-c` (its first operand
 *  is then its script), whether it reads its program from its input
 *  (`-s`, or `-i`), its first operand (a script file, without `-c`), and
 *  whether it only prints something and runs nothing (`--version`). */
export interface PosixShellStart {
  script: boolean
  input: boolean
  operand: number | null
  printsOnly: boolean
}

/**
 * How a POSIX shell whose own words start at `words[from]` is started, as
 * bash and dash read their options: every option is read first, wherever
 * `-c` is among them (`-c -e`, `-e -c`, `-xc`, `+c`); each of the shell's
 * value letters in a word takes the next word (`-o pipefail`, `-co
 * pipefail`); `--` or `-` ends them (zsh's `-b` too); the first word after
 * them is the operand. `too-many` past `MAX_OPTION_WORDS`.
 */
export function posixShellOptions(
  words: readonly string[],
  from: number,
  shell: string,
): PosixShellStart | 'too-many' {
  const letters = VALUE_LETTERS[shell] ?? 'o'
  const start = { script: false, input: false, operand: null as number | null, printsOnly: false }
  const operandAt = (at: number) => ({ ...start, operand: at < words.length ? at : null })
  for (let i = from; i < words.length; i += 1) {
    if (i - from >= MAX_OPTION_WORDS) return 'too-many'
    const word = words[i] ?? ''
    if (word === '--' || word === '-') return operandAt(i + 1)
    if (word.startsWith('--')) {
      if (VALUE_LONG.has(word)) i += 1
      if (word === '--version' || word === '--help') start.printsOnly = true
      continue
    }
    if (!/^[-+]./.test(word)) return operandAt(i)
    let ends = false
    for (const letter of word.slice(1)) {
      if (letter === 'c') start.script = true
      else if (letter === 's' || letter === 'i') start.input = true
      else if (letters.includes(letter)) i += 1
      else if (letter === 'b' && shell === 'zsh') ends = true
    }
    if (ends) return operandAt(i + 1)
  }
  return operandAt(words.length)
}

/** The line `sg group [-c] command…` hands to `/bin/sh -c` (its words
 *  joined, as sg joins them), its own words starting at `words[from]`;
 *  null when it is given none (it then starts a shell: programs-not-read.ts). */
export function sgLine(words: readonly string[], from: number): string | null {
  let at = from
  if (words[at] === '-') at += 1
  // The group, then `-c` if it is there.
  at += 1
  if (words[at] === '-c') at += 1
  return at < words.length ? words.slice(at).join(' ') : null
}

/** The lines a program's option hands to a shell: nix-shell's `--run` and
 *  `--command` (run by bash in the shell it makes), rsync's `-e`/`--rsh`
 *  (the remote shell it starts, `rsync -e 'sh -c …'`). Any word that is
 *  such an option counts, wherever it is. */
function optionLines(name: string, words: readonly string[], from: number): string[] {
  const long = name === 'rsync' ? ['rsh'] : ['run', 'command']
  const out: string[] = []
  for (let i = from; i < words.length; i += 1) {
    const word = words[i] ?? ''
    const match = /^--([a-z-]+)(=.*)?$/.exec(word)
    if (match !== null && long.includes(match[1] ?? '')) {
      const value = match[2] === undefined ? words[i + 1] : match[2].slice(1)
      if (value !== undefined) out.push(value)
      continue
    }
    if (name !== 'rsync' || !/^-[^-]/.test(word)) continue
    // rsync's short options in one word: `-avze ssh`, `-e'ssh -p 2'`; a
    // letter with a value of its own before `e` takes the rest.
    for (let j = 1; j < word.length; j += 1) {
      const letter = word[j] ?? ''
      if ('fTMB@'.includes(letter)) break
      if (letter !== 'e') continue
      const value = word.slice(j + 1) === '' ? words[i + 1] : word.slice(j + 1)
      if (value !== undefined) out.push(value)
      break
    }
  }
  return out
}
