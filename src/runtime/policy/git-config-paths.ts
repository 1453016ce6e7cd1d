import { execFileSync } from 'node:child_process'
import { homedir } from 'node:os'
import path from 'node:path'

// A git config value git reads as a path (`core.hooksPath`, `include.path`,
// `core.attributesFile`, `init.templateDir`) is expanded by git before it
// is used: `~/` and `~` are the person's home, `~user/` is that user's
// home as the system's user database says, and `%(prefix)/` is the folder
// git was installed under. Taken as written, `~me/hooks` or
// `%(prefix)/../home/me/hooks` name a folder under the repository's top
// that git never uses, and leave the one it runs hooks from to any door.

/** What git made of each value it was asked to expand, or null where it
 *  could not: a user's home and git's own prefix change seldom, and a
 *  config is read at every judgment. */
const EXPANDED = new Map<string, string | null>()

/** How long git may take to expand one value. */
const EXPAND_TIMEOUT_MS = 5000

/**
 * The places a path value names as git reads it, before a relative one is
 * taken from where its config says: absolute for a value git expands, the
 * value as written otherwise. A newer git reads a value starting with
 * `:(optional)` as the path after it, an older one as written: both are
 * named, which can only keep more.
 *
 * A `~user/` or `%(prefix)/` value is expanded by asking git itself, as
 * the person's git would expand it (Node can read no other user's home,
 * and git's prefix is known only to git). Where git refuses it (no such
 * user), nothing is named: git then stops at that config with an error
 * rather than use the value, and runs nothing it names. Where git gives
 * no answer at all (it cannot be started here, runs out of time or is
 * killed), this throws: the person's own git may well expand the value,
 * so naming nothing would leave the folder it names to every door, and a
 * judgment that cannot finish is refused (fails closed).
 */
export function configPathValues(value: string): string[] {
  const optional = /^:\(optional\)/.exec(value)
  const values = optional === null ? [value] : [value, value.slice(optional[0].length)]
  return values.flatMap((written) => expandedConfigPath(written) ?? [])
}

/** `value` as git expands a path value, or null when git refuses it;
 *  throws `GitPathNotExpanded` when git gives no answer. */
function expandedConfigPath(value: string): string | null {
  if (value === '~' || value.startsWith('~/')) {
    return path.join(homedir(), value.slice(1))
  }
  if (!value.startsWith('~') && !value.startsWith('%(prefix)/')) return value
  const known = EXPANDED.get(value)
  if (known !== undefined) return known
  const { expanded, settled } = askGit(value)
  // Kept only when git answered: one it could not start, or that ran out
  // of time, fails this judgment and is asked again at the next.
  if (!settled) throw new GitPathNotExpanded(value)
  EXPANDED.set(value, expanded)
  return expanded
}

/** git gave no answer for a path value a config holds: what it names is
 *  not known, so nothing judged against it may be answered. */
export class GitPathNotExpanded extends Error {
  readonly value: string
  constructor(value: string) {
    super(`git could not be asked what the config path ${JSON.stringify(value)} names`)
    this.name = 'GitPathNotExpanded'
    this.value = value
  }
}

/** What git prints for `value` read as a path, alone: no config of the
 *  machine's or the person's, and no repository, is read with it. */
function askGit(value: string): { expanded: string | null; settled: boolean } {
  const env: NodeJS.ProcessEnv = { ...process.env }
  for (const name of Object.keys(env)) if (name.startsWith('GIT_')) delete env[name]
  try {
    const printed = execFileSync(
      'git',
      ['-c', `assent.path=${value}`, 'config', '--path', '--get', 'assent.path'],
      {
        cwd: '/',
        env: {
          ...env,
          GIT_CONFIG_NOSYSTEM: '1',
          GIT_CONFIG_GLOBAL: '/dev/null',
          GIT_CEILING_DIRECTORIES: '/',
        },
        stdio: ['ignore', 'pipe', 'ignore'],
        timeout: EXPAND_TIMEOUT_MS,
      },
    ).toString()
    const expanded = printed.replace(/\n$/, '')
    // An expansion that is still relative is not one git made.
    return { expanded: path.isAbsolute(expanded) ? expanded : null, settled: true }
  } catch (error) {
    // git ended with its own error (no such user): it stops at the value.
    const status = (error as { status?: unknown }).status
    return { expanded: null, settled: typeof status === 'number' }
  }
}
