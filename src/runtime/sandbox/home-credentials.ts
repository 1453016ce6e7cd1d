import { readdir, realpath } from 'node:fs/promises'
import path from 'node:path'
import { sensitivePath, type SensitiveFinding } from '../policy/sensitive-paths.ts'

/** How many entries of the home folder one walk reads at most. */
export const HOME_WALK_ENTRIES = 50_000
/** How deep below the home folder the walk goes. */
export const HOME_WALK_DEPTH = 6
/** How long one walk's findings stand before the next command walks again. */
export const HOME_WALK_TTL_MS = 30_000

/** Folders no credential of the table lives in and that are large: not
 *  gone into (a package manager's install and cache folders). */
const NOT_WALKED = new Set(['node_modules', '.npm', '.cache', '.rustup', '.cargo/registry'])

/**
 * Whether the sandbox hides what the table says `finding` of: a place a
 * read of which asks at every door because it holds a secret. A
 * credential, and an AI agent's or editor's MCP and tool configuration
 * (`claude_desktop_config.json`, `.claude.json`, `~/.codex/config.toml`,
 * a gateway's `mcp.json`, `.envrc`): the servers it starts take their
 * tokens from it (`"env": { "GITHUB_PERSONAL_ACCESS_TOKEN": … }`), so a
 * command the person allowed for what it does would otherwise print them
 * to the agent. A contained command has no network, so no agent's client
 * runs in it to need them. The shell's start-up files, which a read asks
 * for too, stay readable: a shell started in the sandbox needs them.
 */
export function hiddenFromCommands(finding: SensitiveFinding | null): boolean {
  return (
    finding !== null &&
    finding.readAsks &&
    (finding.class === 'credentials' || finding.class === 'runs-later')
  )
}

/** How many folders the walk did not finish may be hidden one by one (a
 *  mount each); past it, the deepest are hidden by their parent. */
export const HOME_WALK_HIDDEN_AT_MOST = 512

/** What one walk of the home folder found. */
export interface HomeCredentials {
  /** Credential files and folders below the home folder's top, as the
   *  read rule names them (a read of each asks at every door). */
  paths: readonly string[]
  /** The walk stopped at `HOME_WALK_ENTRIES`: what lies past it is not
   *  known. */
  truncated: boolean
  /** The folders the walk did not finish when it stopped, or folders
   *  holding them; hidden whole like a credential folder, since what they
   *  hold is not known to hold none. Empty when the walk finished. */
  unwalked: readonly string[]
  /** The walk stopped where what it did not finish cannot be hidden: a
   *  folder it did not finish is or holds the workspace or a writable root
   *  (hidden, the command could not reach it), or there are more than
   *  `HOME_WALK_HIDDEN_AT_MOST` of them. The command must not start. */
  unhideable: boolean
}

/** The walk's limits; the constants above, except in tests. */
export interface HomeWalkLimits {
  entries: number
  hiddenAtMost: number
}

/**
 * The credentials a contained command must not read wherever they are in
 * the home folder, not only at its top: the read rule (sensitive-paths.ts)
 * asks for `credentials.toml` under `~/.cargo`, a browser profile under
 * `~/snap/firefox/common/.mozilla` or `~/.var/app/…/.mozilla`, and the
 * sandbox hides the same (sandbox-policy.ts), so what a door would ask the
 * person before reading, an allowed command cannot read unasked.
 *
 * The home folder is walked (no link followed, a credential folder not
 * gone into) at most once every `HOME_WALK_TTL_MS` for the same writable
 * roots, since a walk of a large home costs more than a command's start: a
 * credential made deeper than the top in the last half minute is not
 * hidden from a command started meanwhile. The top of the home folder is
 * read at every start (sandbox-policy.ts).
 *
 * The command's writable roots are neither walked nor counted: what a
 * credential there holds is the project's and stays readable anyway, and
 * a command could otherwise fill its workspace past `HOME_WALK_ENTRIES`
 * to stop the next walk short of another project's `.env`. A walk that
 * still stops (a large home, another room's workspace filled) fails
 * closed: what it did not finish is hidden whole (`unwalked`), or, where
 * that cannot be done, the command is refused (`unhideable`).
 */
export class HomeCredentialsIndex {
  private readonly home: string
  private readonly now: () => number
  private readonly limits: HomeWalkLimits
  /** By the writable roots each walk left out and the folders it kept
   *  shown: one walk's findings never stand for a command that may write
   *  elsewhere, for which a credential in a root left out is another
   *  project's. */
  private readonly found = new Map<string, { at: number; walk: Promise<HomeCredentials> }>()

  constructor(
    home: string,
    now: () => number = () => performance.now(),
    limits: HomeWalkLimits = { entries: HOME_WALK_ENTRIES, hiddenAtMost: HOME_WALK_HIDDEN_AT_MOST },
  ) {
    this.home = home
    this.now = now
    this.limits = limits
  }

  /** The latest walk's findings for a command that may write in
   *  `writableRoots` and must see `shown` (its workspace, also in a
   *  read-only room; real paths), walking again when they are older than
   *  `HOME_WALK_TTL_MS`; calls during a walk share it. */
  current(
    writableRoots: readonly string[] = [],
    shown: readonly string[] = writableRoots,
  ): Promise<HomeCredentials> {
    const at = this.now()
    for (const [key, each] of this.found) {
      if (at - each.at > HOME_WALK_TTL_MS) this.found.delete(key)
    }
    const roots = [...new Set(writableRoots)].sort()
    const kept = [...new Set([...roots, ...shown])].sort()
    const key = `${roots.join('\0')}\n${kept.join('\0')}`
    let found = this.found.get(key)
    if (found === undefined) {
      found = { at, walk: walkHome(this.home, roots, kept, this.limits) }
      this.found.set(key, found)
    }
    return found.walk
  }
}

async function walkHome(
  given: string,
  roots: readonly string[],
  shown: readonly string[],
  limits: HomeWalkLimits,
): Promise<HomeCredentials> {
  // By its real path, as the writable roots it is compared with are (a
  // home under a link, `/home -> var/home`, would never match them).
  const home = await realpath(given).catch(() => given)
  // A home folder inside a writable root is the command's to read whole.
  if (roots.some((root) => inside(home, root))) return finished([])
  const found: string[] = []
  let seen = 0
  let level = ['']
  for (let depth = 0; depth <= HOME_WALK_DEPTH && level.length > 0; depth += 1) {
    const next: string[] = []
    for (const [at, relative] of level.entries()) {
      let entries
      try {
        entries = await readdir(path.join(home, relative), { withFileTypes: true })
      } catch {
        continue
      }
      seen += entries.length
      for (const entry of entries) {
        const child = relative === '' ? entry.name : path.join(relative, entry.name)
        // The command's own: not gone into, so nothing it makes there
        // counts towards the limit.
        if (roots.includes(path.join(home, child))) continue
        if (hiddenFromCommands(sensitivePath(child))) {
          // The top is read at every start; below it, from this walk.
          if (relative !== '') found.push(path.join(home, child))
          continue
        }
        const walked = !NOT_WALKED.has(entry.name) && !NOT_WALKED.has(child)
        if (depth < HOME_WALK_DEPTH && entry.isDirectory() && walked) next.push(child)
      }
      // Checked once this folder's entries are looked at: every folder
      // not finished is then one whose listing was not read at all.
      if (seen > limits.entries) {
        return stopped(home, shown, found, [...level.slice(at + 1), ...next], limits)
      }
    }
    level = next
  }
  return finished(found)
}

function finished(paths: string[]): HomeCredentials {
  return { paths, truncated: false, unwalked: [], unhideable: false }
}

/**
 * What a walk that stopped says: the folders it did not finish
 * (`unfinished`, relative, each listed by its parent), to be hidden whole.
 * Too many for a mount each, the deepest are replaced by their parent,
 * level by level, which the walk listed; never by one that is or holds a
 * folder the command must see (`shown`), which hidden would take the
 * workspace from it. Fails closed: a folder not finished that is or holds
 * one, or still too many, and nothing hidden stands for what was not
 * read: `unhideable`.
 */
function stopped(
  home: string,
  shown: readonly string[],
  paths: string[],
  unfinished: readonly string[],
  limits: HomeWalkLimits,
): HomeCredentials {
  const holdsShown = (relative: string) =>
    shown.some((folder) => inside(folder, path.join(home, relative)))
  const refused = { paths, truncated: true, unwalked: [], unhideable: true }
  if (unfinished.some(holdsShown)) return refused
  let hide = outermost(unfinished)
  while (hide.length > limits.hiddenAtMost) {
    const widened = hide.filter((each) => {
      const parent = path.dirname(each)
      return parent !== '.' && !holdsShown(parent)
    })
    if (widened.length === 0) break
    const deepest = widened.reduce((most, each) => Math.max(most, depthOf(each)), 0)
    const widen = new Set(widened.filter((each) => depthOf(each) === deepest))
    hide = outermost(hide.map((each) => (widen.has(each) ? path.dirname(each) : each)))
  }
  if (hide.length > limits.hiddenAtMost) return refused
  const unwalked = hide.map((relative) => path.join(home, relative))
  return { paths, truncated: true, unwalked, unhideable: false }
}

/** `relatives` without any that lies in another of them, once each. */
function outermost(relatives: readonly string[]): string[] {
  const all = new Set(relatives)
  return [...all].filter((each) => {
    for (let up = path.dirname(each); up !== '.'; up = path.dirname(up)) {
      if (all.has(up)) return false
    }
    return true
  })
}

function depthOf(relative: string): number {
  return relative.split(path.sep).length
}

function inside(candidate: string, root: string): boolean {
  return candidate === root || candidate.startsWith(root === '/' ? root : root + path.sep)
}
