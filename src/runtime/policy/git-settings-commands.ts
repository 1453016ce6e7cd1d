import { longOf, shortOf } from './option-words.ts'

/**
 * git's commands that write its settings without `git config`: where the
 * repository's pushes and fetches go (`git remote add`, `set-url`), a
 * submodule's address given on the line (`submodule set-url`), the hooks
 * and filters Git LFS installs, and the
 * scheduled runs `git maintenance` registers in the person's config and
 * their system's timers. Each changes what git does later, in every
 * command of the repository, as `git config` does: only a person may
 * allow it (shell-commands.ts, `git-settings`).
 */
const SUBCOMMANDS_WRITING: Readonly<Record<string, ReadonlySet<string>>> = {
  remote: new Set(['add', 'set-url', 'rename', 'rm', 'remove', 'set-head', 'set-branches']),
  // `init`, `sync` and `update --init` copy the addresses the repository's
  // own .gitmodules holds, which its history shows: they stay answerable.
  submodule: new Set(['set-url', 'set-branch']),
  lfs: new Set(['install', 'uninstall', 'update']),
  maintenance: new Set(['register', 'unregister', 'start', 'stop']),
}

/** Options by which these commands write a branch's settings: what it
 *  tracks and pushes to (`push -u`, `branch --set-upstream-to`), by their
 *  short letters (bundled, `-fu`) and long names (any start git may take
 *  for one, `--set-up`). */
const OPTIONS_WRITING: Readonly<Record<string, { letters: string; long: readonly string[] }>> = {
  branch: { letters: 'ut', long: ['set-upstream-to', 'set-upstream', 'unset-upstream', 'track'] },
  push: { letters: 'u', long: ['set-upstream'] },
  pull: { letters: '', long: ['set-upstream'] },
  fetch: { letters: '', long: ['set-upstream'] },
  checkout: { letters: 't', long: ['track'] },
  switch: { letters: 't', long: ['track'] },
}

/**
 * The words by which git's command `command`, with the words after it
 * (`rest`), writes git's settings, or null. A subcommand is the first word
 * after it that is no option (git takes no start of one). An option is
 * found as git's parse-options reads it (option-words.ts): every letter of
 * a bundle and every start of a long name counts, whether or not git
 * would find it ambiguous, so a spelling git takes is never missed.
 */
export function gitSettingsWrittenBy(command: string, rest: readonly string[]): string | null {
  const subcommands = Object.hasOwn(SUBCOMMANDS_WRITING, command)
    ? SUBCOMMANDS_WRITING[command]
    : undefined
  if (subcommands !== undefined) {
    const sub = rest.find((word) => !word.startsWith('-'))
    if (sub !== undefined && subcommands.has(sub)) return `${command} ${sub}`
  }
  const option = Object.hasOwn(OPTIONS_WRITING, command) ? OPTIONS_WRITING[command] : undefined
  const written =
    option === undefined
      ? undefined
      : rest.find(
          (word) => shortOf(word, option.letters) || option.long.some((long) => longOf(word, long)),
        )
  return written === undefined ? null : `${command} ${written}`
}
