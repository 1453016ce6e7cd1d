import path from 'node:path'
import { SHELLS } from './hand-offs.ts'

// How a command changes the way the shell makes names from a pattern, for
// the person-only rule's reading of a command line (shell-commands.ts):
// patterns are matched as a shell with its default options does
// (shell-glob.ts), and with any of these a `*` may be `.git`.

/** The variables that change how a shell makes names from a pattern
 *  (`GLOBIGNORE` lets `*` match `.git`), or set its options or run a file
 *  of its own as it starts (`BASHOPTS=dotglob`, `BASH_ENV`, zsh's
 *  `ZDOTDIR`), or whose value it expands, command substitutions and all,
 *  or runs as a line, as it prompts or traces (`PS4='$(git config …)'
 *  bash -x`, `PROMPT_COMMAND`): what the command then touches or runs is
 *  not what the reading of its words says. */
const SHELL_SETTING_VARIABLES =
  /^(?:GLOBIGNORE|BASHOPTS|SHELLOPTS|BASH_ENV|ZDOTDIR|PS[0-4]|PROMPT_COMMAND)=/

/** The same variables named as a word (`read GLOBIGNORE`, `export
 *  GLOBIGNORE`): set by a command from what it reads. */
const SHELL_SETTING_NAMES =
  /^(?:GLOBIGNORE|BASHOPTS|SHELLOPTS|BASH_ENV|ZDOTDIR|PS[0-4]|PROMPT_COMMAND)$/

/** The commands that set a shell's options, and the options (bash's,
 *  zsh's, ksh's; zsh ignores case and underscores) that change which names
 *  a pattern matches: a leading dot, case, extended patterns. */
const SHELL_OPTION_COMMANDS = new Set(['shopt', 'setopt', 'unsetopt', 'set', 'emulate'])
/** The commands that take zsh's option letters. */
const ZSH_LETTERS_HEADS = new Set(['zsh', 'set', 'setopt', 'unsetopt'])
const PATTERN_OPTIONS = /glob|case|dot|ksh|extended|markdirs|magicequalsubst/

/** Whether a shell's option `name` changes how it matches patterns. */
function patternOption(name: string): boolean {
  return PATTERN_OPTIONS.test(name.toLowerCase().replaceAll('_', ''))
}

/**
 * A change to how the shell makes names that this reading assumes:
 * `shopt -s dotglob`, `setopt globdots`, `set -o …`, a shell started with
 * such an option (`bash -O extglob -c …`), or a variable that sets one
 * (`GLOBIGNORE`, `BASHOPTS`, `BASH_ENV`). Patterns are matched as a shell
 * with its default options does (shell-glob.ts); with any of these, a `*`
 * may be `.git`. The words that change it, to show, or null.
 */
export function shellSettingsFinding(command: readonly string[]): string | null {
  const found = (what: string): string => what
  for (const word of command) {
    if (SHELL_SETTING_VARIABLES.test(word) || SHELL_SETTING_NAMES.test(word)) return found(word)
  }
  const at = command.findIndex(
    (word) => SHELL_OPTION_COMMANDS.has(word) || SHELLS.has(path.basename(word)),
  )
  if (at === -1) return null
  const head = command[at] ?? ''
  const rest = command.slice(at + 1)
  // zsh's emulation of another shell sets its options of globs
  // (`emulate ksh`, `zsh --emulate sh`).
  if (head === 'emulate' && at === 0) return found(head)
  for (let i = 0; i < rest.length; i += 1) {
    const word = rest[i] ?? ''
    // A shell's options end at its first operand (a script's own `--x`).
    if (!/^[-+]/.test(word)) {
      if (!SHELLS.has(path.basename(head))) continue
      if (!/^[-+][A-Za-z]*[oO]$/.test(rest[i - 1] ?? '')) break
    }
    // An option by name (zsh's `--globdots`, `--extendedglob`), or by
    // zsh's letters: `-4` is GLOB_DOTS, `-8` MARK_DIRS.
    if (/^--./.test(word) && (patternOption(word.slice(2)) || word === '--emulate')) {
      return found(`${head} ${word}`)
    }
    if (ZSH_LETTERS_HEADS.has(path.basename(head)) && /^[-+][A-Za-z0-9]*[48]/.test(word)) {
      return found(`${head} ${word}`)
    }
  }
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
