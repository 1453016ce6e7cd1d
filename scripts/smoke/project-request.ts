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
 * Why a skipped project fails the run, or undefined when it may be
 * skipped. Under ASSENT_REQUIRE_ALL=1 nothing may be skipped: a run asked
 * for every check that leaves a project out did not do what it was asked,
 * whether it named the project (`--project=electron`) or took every
 * project (`npx playwright test` on a machine without Electron). A run
 * that wants only the cdp project names it (`--host cdp`, as `npm test`
 * does), and then the electron project is not skipped but not run.
 * Without the variable a skip is allowed, and its reason is printed.
 */
export function skippedProjectFailure(options: {
  project: string
  requested: readonly string[]
  requireAll: boolean
}): string | undefined {
  if (!options.requireAll) return undefined
  const named = options.requested.some((name) => namesProject(name, options.project))
  return named
    ? `the ${options.project} project was requested by name and ASSENT_REQUIRE_ALL=1 forbids skipping it`
    : `ASSENT_REQUIRE_ALL=1 forbids skipping the ${options.project} project; name the projects to run (--host cdp) to leave it out`
}

/** The patterns of `--grep`/`-g` on the runner's argv (Playwright keeps
 *  the last one); none when the run takes every case. */
export function requestedGrep(argv: readonly string[]): RegExp | undefined {
  let pattern: string | undefined
  for (let index = 0; index < argv.length; index += 1) {
    const arg = argv[index] ?? ''
    if (arg.startsWith('--grep=')) pattern = arg.slice('--grep='.length)
    else if ((arg === '--grep' || arg === '-g') && index + 1 < argv.length) pattern = argv[++index]
  }
  return pattern === undefined ? undefined : new RegExp(pattern)
}

/** Whether a run selects a case that needs the real agents: then the
 *  smoke installs them before the host starts. */
export function runNeedsRealAgents(
  argv: readonly string[],
  cases: ReadonlyArray<{ id: string; title: string; needs?: 'real-agents' }>,
): boolean {
  const grep = requestedGrep(argv)
  return cases.some(
    (definition) =>
      definition.needs === 'real-agents' &&
      (grep === undefined || grep.test(`${definition.id}: ${definition.title}`)),
  )
}
