import {
  GIT_COMMAND_NAMES,
  GIT_FOLDER_NAMES,
  GIT_SETTING_NAMES,
  variablePattern,
} from './git-variable-names.ts'
import { KEYWORDS } from './programs-run.ts'

// A variable that changes what git runs or where its folder is, set by
// the shell without `NAME=value` in the line: `read` (or `mapfile`,
// `getopts`) gives it a value from input or a file, a `for` or `select`
// loop gives it the loop's words, a name reference (`declare -n v=GIT_DIR;
// v=docs`) gives it another name's assignment, and `export NAME` hands
// git whichever value it came by. `GIT_CONFIG_COUNT=1 … git status` needs
// the person (shell-commands.ts); `read GIT_CONFIG_COUNT … <<< "1
// core.fsmonitor ./x.sh"; export GIT_CONFIG_COUNT …; git status` has git
// run the same program, and read only by its `NAME=value` words, it went
// to any door.

/** The variables git reads that change what it runs or where it keeps its
 *  folder: its settings and exec path, and the folders its global config
 *  is read from, its folder, and those whose value it runs as a command
 *  line (git-variable-names.ts). */
const GIT_VARIABLE = variablePattern(
  [...GIT_SETTING_NAMES, ...GIT_FOLDER_NAMES, ...GIT_COMMAND_NAMES],
  'name',
)

/** The shell's built-in commands that set or export a variable each of
 *  their words names (bash's, zsh's and ksh's). */
const SETTERS = new Set([
  ...['read', 'mapfile', 'readarray', 'getopts', 'vared'],
  ...['export', 'declare', 'typeset', 'local', 'readonly', 'integer', 'float'],
])

/** Per setter, its options whose value is a word of its own that names
 *  no variable (`read -p prompt`, `mapfile -n count`); `-a` names one. */
const VALUE_LETTERS: Readonly<Record<string, string>> = {
  read: 'dinNptu',
  mapfile: 'CcdnOsu',
  readarray: 'CcdnOsu',
}

/** The keywords whose next word is a loop's variable. */
const LOOPS = new Set(['for', 'select'])

/** Words before a command that leave it the shell's own. */
const BEFORE_BUILTIN = new Set(['builtin', 'command'])

/** A variable set as `gitVariableSetUnseen` finds it: one of git's, or
 *  one whose name is made when the line runs. */
export interface VariableSetUnseen {
  kind: 'git-settings' | 'built-at-run-time'
  what: string
}

/**
 * What in a simple command (its words) sets or exports one of git's
 * variables with a value the line does not show, or null: a bare name
 * (`read GIT_DIR`, `export GIT_PAGER`, `for GIT_DIR in docs`), a name
 * reference to one (`declare -n v=GIT_DIR`), or a name the shell makes
 * when it runs (`export "$name=$value"`, `read "$n"`). A `NAME=value` word
 * is left to the rules that read its value.
 */
export function gitVariableSetUnseen(command: readonly string[]): VariableSetUnseen | null {
  let i = 0
  while (i < command.length) {
    const word = command[i] ?? ''
    if (/^[A-Za-z_]\w*=/.test(word) || KEYWORDS.has(word) || BEFORE_BUILTIN.has(word)) i += 1
    else break
  }
  const program = command[i] ?? ''
  if (LOOPS.has(program)) {
    const variable = command[i + 1] ?? ''
    const what = `${program} ${variable}`
    if (variable.includes('$')) return { kind: 'built-at-run-time', what }
    return GIT_VARIABLE.test(variable) ? { kind: 'git-settings', what } : null
  }
  if (!SETTERS.has(program)) return null
  const letters = VALUE_LETTERS[program] ?? ''
  for (let j = i + 1; j < command.length; j += 1) {
    const word = command[j] ?? ''
    if (word.startsWith('-') || word.startsWith('+')) {
      // An option whose value is the next word (`read -p "$prompt" x`):
      // a prompt or a count, not a name.
      const taking = [...word.slice(1)].findIndex((letter) => letters.includes(letter))
      if (taking === word.length - 2) j += 1
      continue
    }
    const at = word.indexOf('=')
    const name = at === -1 ? word : word.slice(0, at)
    const value = at === -1 ? '' : word.slice(at + 1)
    // A name the shell makes: which variable it sets is not known here.
    const what = `${program} ${word}`
    if (name.includes('$') || name.includes('`')) return { kind: 'built-at-run-time', what }
    if ((at === -1 && GIT_VARIABLE.test(name)) || GIT_VARIABLE.test(value)) {
      return { kind: 'git-settings', what }
    }
  }
  return null
}
