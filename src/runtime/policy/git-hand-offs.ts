import { GIT_COMMAND_NAMES, variablePattern } from './git-variable-names.ts'
import path from 'node:path'
import { quotedCommandLine } from '../../contracts/shell-quoting.ts'
import { longOf } from './option-words.ts'

// The command lines git runs that a git command is given as arguments,
// for the person-only rule's reading of a command line (hand-offs.ts):
// `git rebase -x 'git config …'` changes git's settings as `git config`
// does, and `git fetch --upload-pack='cp x .g""it/config; …' .` writes
// `.git/config`. git hands each to a shell, so each is read as a command
// line of its own.

/** git's options before its command that take their value as the next
 *  word. */
export const GIT_OPTIONS_WITH_VALUE = new Set(['-C', '--git-dir', '--work-tree', '--namespace'])

/** git's long options whose value git runs as a command line: fetch's,
 *  pull's, clone's, ls-remote's and fetch-pack's `--upload-pack`, push's
 *  and send-pack's `--receive-pack` (or `--exec`), archive's and rebase's
 *  `--exec`, difftool's `--extcmd`, send-email's commands,
 *  filter-branch's filters and grep's pager. git takes any unambiguous abbreviation of a
 *  long option (`--upload=…`): any word that may be one is read, whatever
 *  git's command, which can only make the action ask. */
const GIT_COMMAND_OPTIONS = [
  'upload-pack',
  'receive-pack',
  'exec',
  'extcmd',
  'to-cmd',
  'cc-cmd',
  'sendmail-cmd',
  'tree-filter',
  'index-filter',
  'env-filter',
  'msg-filter',
  'commit-filter',
  'parent-filter',
  'tag-name-filter',
  // grep's pager for the files it found (`--open-files-in-pager=…`).
  'open-files-in-pager',
]

/** Per git command, its short options whose value it runs as a command
 *  line. */
const GIT_COMMAND_LETTERS: Readonly<Record<string, string>> = {
  rebase: 'x',
  difftool: 'x',
  clone: 'u',
  'ls-remote': 'u',
  // `git grep -O'…'`: the pager it opens the files found in.
  grep: 'O',
}

/** Variables set for git whose value git runs as a command line (each is
 *  a setting's value, as `git -c core.sshCommand=…` is). */
const GIT_COMMAND_VARIABLES = variablePattern(GIT_COMMAND_NAMES, 'assignment')

/** What a git command hands on. */
export interface GitHandOffs {
  /** Command lines git runs, as a shell reads them. */
  lines: string[]
  /** The command line `bisect run …` or `submodule foreach …` runs, or
   *  null. */
  rest: string | null
  /** A command git runs that is not read here, or null: one run in
   *  folders relative paths are not taken from (each submodule's,
   *  filter-branch's scratch tree), or the tool `mergetool` (and
   *  `difftool` without `-x`) runs, which its settings name and which may
   *  be a command line of any kind. */
  elsewhere: string | null
}

/** git's commands whose hand-offs are read (`gitHandOffs`) besides the
 *  long options every command's words are read for. */
export const GIT_COMMANDS_HANDING_ON = new Set([
  ...Object.keys(GIT_COMMAND_LETTERS),
  'bisect',
  'submodule',
  'filter-branch',
  'mergetool',
])

/** Programs that are git to the rules: git, and hub, which hands git
 *  every command it does not know as its own (`hub config …` is `git
 *  config …`, `hub checkout <pull request>` fetches and checks it out). */
const GIT_PROGRAMS = new Set(['git', 'hub'])

/** Whether a program named `name` (a basename) is git: one of
 *  `GIT_PROGRAMS`, or git's own dashed program (`git-config`). */
export function isGitProgram(name: string): boolean {
  return GIT_PROGRAMS.has(name) || /^git-./.test(name)
}

/** The words after `git` of a command whose name is `name` (a basename)
 *  and whose words after it start at `words[from]`: `git …` (or `hub …`),
 *  or git's own dashed program (`/usr/lib/git-core/git-config …`), which
 *  is `git config …`. Null for any other command. */
export function gitArguments(
  name: string,
  words: readonly string[],
  from: number,
): string[] | null {
  if (GIT_PROGRAMS.has(name)) return words.slice(from)
  if (/^git-./.test(name)) return [name.slice('git-'.length), ...words.slice(from)]
  return null
}

/** git's command (a word or the name of a dashed program, `git-config`)
 *  of a command whose name is `name` (a basename) and whose words after it
 *  start at `words[from]`: the command and where its own words start. Null
 *  for a command that is not git, or a `git` without a command. */
export function gitCommandOf(
  name: string,
  words: readonly string[],
  from: number,
): { command: string; from: number } | null {
  if (/^git-./.test(name)) return { command: name.slice('git-'.length), from }
  if (!GIT_PROGRAMS.has(name)) return null
  for (let i = from; i < words.length; i += 1) {
    const word = words[i] ?? ''
    // `-c` and `--config-env` need the person whatever follows
    // (shell-commands.ts); here they only must not be taken for the command.
    if (GIT_OPTIONS_WITH_VALUE.has(word) || word === '-c' || word === '--config-env') i += 1
    else if (!word.startsWith('-')) return { command: word, from: i + 1 }
  }
  return null
}

/** The command lines git's `command`, whose own words start at
 *  `words[from]`, runs. */
export function gitHandOffs(command: string, words: readonly string[], from: number): GitHandOffs {
  const out: GitHandOffs = { lines: [], rest: null, elsewhere: null }
  const letters = Object.hasOwn(GIT_COMMAND_LETTERS, command) ? GIT_COMMAND_LETTERS[command] : ''
  for (let i = from; i < words.length; i += 1) {
    const value = commandOptionValue(words, i, letters ?? '')
    if (value !== null) out.lines.push(value)
  }
  // `git bisect run <cmd> <args>…`, `git submodule foreach <cmd> <args>…`:
  // git hands the first word to a shell, the rest as its arguments.
  let sub = from
  while ((words[sub] ?? '').startsWith('-')) sub += 1
  const run = () => {
    // foreach's own options (`--recursive`) come first.
    let first = sub + 1
    while ((words[first] ?? '').startsWith('-')) first += 1
    const rest = words.slice(first)
    if (rest.length > 0) out.rest = `${rest[0] ?? ''} ${quotedCommandLine(rest.slice(1))}`
  }
  if (command === 'bisect' && words[sub] === 'run') run()
  if (command === 'submodule' && words[sub] === 'foreach') {
    out.elsewhere = 'git submodule foreach'
    run()
  }
  if (command === 'filter-branch') out.elsewhere = 'git filter-branch'
  // The tool git runs for a merge or a diff: its own command line (its
  // `cmd` setting), or a program found by the tool's name. difftool's
  // `-x` (`--extcmd`) runs its line instead, read above.
  if (command === 'mergetool') out.elsewhere = 'git mergetool'
  if (command === 'difftool' && out.lines.length === 0) out.elsewhere = 'git difftool'
  return out
}

/** The command line the option at `words[i]` gives, or null: a long one
 *  of `GIT_COMMAND_OPTIONS` or an abbreviation of one (`--exec=cmd`,
 *  `--exec cmd`), or a short one of `letters` (`-xcmd`, `-x cmd`, `-ix
 *  cmd`). */
function commandOptionValue(words: readonly string[], i: number, letters: string): string | null {
  const word = words[i] ?? ''
  const long = /^--([a-z][a-z-]*)(=.*)?$/.exec(word)
  if (long !== null) {
    const [, , value] = long
    if (!GIT_COMMAND_OPTIONS.some((option) => longOf(word, option))) return null
    return value === undefined ? (words[i + 1] ?? null) : value.slice(1)
  }
  if (letters === '' || !/^-[A-Za-z]/.test(word)) return null
  for (let j = 1; j < word.length; j += 1) {
    if (!letters.includes(word[j] ?? '')) continue
    const rest = word.slice(j + 1)
    return rest === '' ? (words[i + 1] ?? null) : rest
  }
  return null
}

/** The command lines the variables set among `words` (`GIT_SSH_COMMAND=…
 *  git fetch`, `env GIT_EDITOR=… git commit`) have git run. */
export function gitVariableLines(words: readonly string[]): string[] {
  return words.flatMap((word) => {
    const name = GIT_COMMAND_VARIABLES.exec(word)
    return name === null ? [] : [word.slice(name[0].length)]
  })
}

/** Whether `value` names a folder called `.git`. */
export function namesDotGit(value: string): boolean {
  return path.basename(value.replace(/\/+$/, '')) === '.git'
}

/** init's and clone's options that make the git folder under a name that
 *  is not `.git` (`--bare`, `--mirror`, `--separate-git-dir`), or any
 *  start of one git may take for it (`--separate=…`, `init --b`). */
export function makesGitFolderElsewhere(arg: string): boolean {
  return ['bare', 'mirror', 'separate-git-dir'].some((option) => longOf(arg, option))
}
