// The variables git reads that change what it runs or where it keeps its
// folder, in one place: the rule for `NAME=value` in a line
// (shell-commands.ts), the rule for what git runs from a variable's value
// (git-hand-offs.ts) and the rule for a variable the shell sets unseen
// (git-variables-set.ts) read the same lists, so one added to a list is
// held by all three.

/** The variables that change what git runs or where it reads its
 *  settings: its own, and the folders its global config is read from
 *  (`HOME=. git status` reads `./.gitconfig`, a file of the workspace that
 *  no rule keeps, whose `core.fsmonitor` git runs; npm and others read
 *  their settings from there too). */
export const GIT_SETTING_NAMES = [
  'GIT_CONFIG\\w*',
  'GIT_EXEC_PATH',
  'GIT_TEMPLATE_DIR',
  'HOME',
  'XDG_CONFIG_HOME',
] as const

/** The variables that name git's folder (`GIT_DIR=docs git init`). */
export const GIT_FOLDER_NAMES = ['GIT_DIR', 'GIT_COMMON_DIR'] as const

/** Variables whose value git runs as a command line (each is a setting's
 *  value, as `git -c core.sshCommand=…` is). */
export const GIT_COMMAND_NAMES = [
  'GIT_SSH_COMMAND',
  'GIT_SSH',
  'GIT_EDITOR',
  'GIT_SEQUENCE_EDITOR',
  'GIT_PAGER',
  'GIT_EXTERNAL_DIFF',
  'GIT_ASKPASS',
  'GIT_PROXY_COMMAND',
] as const

/** A pattern matching `NAME=…` for one of `names` (`assignment`), or the
 *  name alone. Case is ignored, as the rules have always read these. */
export function variablePattern(names: readonly string[], form: 'assignment' | 'name'): RegExp {
  return new RegExp(`^(?:${names.join('|')})${form === 'assignment' ? '=' : '$'}`, 'i')
}
