/**
 * Which Playwright projects a command line asked for by name (`--project
 * electron`, `--project=electron`, several names after one flag, globs as
 * Playwright takes them), read from the runner's argv. None named means the
 * run takes every project as it comes.
 */
export function requestedProjects(argv: readonly string[]): string[] {
  const names: string[] = []
  for (let index = 0; index < argv.length; index += 1) {
    const arg = argv[index] ?? ''
    if (arg.startsWith('--project=')) {
      names.push(arg.slice('--project='.length))
      continue
    }
    if (arg !== '--project') continue
    // The flag takes every value up to the next option.
    while (index + 1 < argv.length && !(argv[index + 1] ?? '').startsWith('-')) {
      index += 1
      names.push(argv[index]!)
    }
  }
  return names
}

/** Whether a requested name (Playwright matches names case-insensitively,
 *  with `*` as a wildcard) selects `project`. */
export function namesProject(requested: string, project: string): boolean {
  const pattern = requested
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*')
  return new RegExp(`^${pattern}$`, 'i').test(project)
}

/**
 * A skipped project fails the run only when the person asked for it by name
 * and asked for every check (`ASSENT_REQUIRE_ALL=1`): `npx playwright test`
 * on a machine without Electron runs the cdp project and skips the electron
 * one with its reason; `--project=electron` there, under ASSENT_REQUIRE_ALL,
 * is a run that could not do what it was asked.
 */
export function skippedProjectFails(options: {
  project: string
  requested: readonly string[]
  requireAll: boolean
}): boolean {
  return options.requireAll && options.requested.some((name) => namesProject(name, options.project))
}
