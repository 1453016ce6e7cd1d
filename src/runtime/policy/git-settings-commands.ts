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
 *  tracks and pushes to (`push -u`, `branch --set-upstream-to`). */
const OPTIONS_WRITING: Readonly<Record<string, RegExp>> = {
  branch: /^(?:-[A-Za-z]*[ut]|--(?:set-upstream|unset-upstream|track))/,
  push: /^(?:-[A-Za-z]*u|--set-upstream)/,
  pull: /^--set-upstream/,
  checkout: /^(?:-[A-Za-z]*t|--track)/,
  switch: /^(?:-[A-Za-z]*t|--track)/,
}

/**
 * The words by which git's command `command`, with the words after it
 * (`rest`), writes git's settings, or null. A subcommand is the first word
 * after it that is no option; an abbreviation git does not take is not
 * looked for.
 */
export function gitSettingsWrittenBy(command: string, rest: readonly string[]): string | null {
  const subcommands = SUBCOMMANDS_WRITING[command]
  if (subcommands !== undefined) {
    const sub = rest.find((word) => !word.startsWith('-'))
    if (sub !== undefined && subcommands.has(sub)) return `${command} ${sub}`
  }
  const option = OPTIONS_WRITING[command]
  const written = option === undefined ? undefined : rest.find((word) => option.test(word))
  return written === undefined ? null : `${command} ${written}`
}
