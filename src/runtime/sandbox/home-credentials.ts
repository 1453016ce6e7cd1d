import { readdir, realpath } from 'node:fs/promises'
import path from 'node:path'
import { sensitivePath } from '../policy/sensitive-paths.ts'

/** How many entries of the home folder one walk reads at most. */
export const HOME_WALK_ENTRIES = 50_000
/** How deep below the home folder the walk goes. */
export const HOME_WALK_DEPTH = 6
/** How long one walk's findings stand before the next command walks again. */
export const HOME_WALK_TTL_MS = 30_000

/** Folders no credential of the table lives in and that are large: not
 *  gone into (a package manager's install and cache folders). */
const NOT_WALKED = new Set(['node_modules', '.npm', '.cache', '.rustup', '.cargo/registry'])

/** What one walk of the home folder found. */
export interface HomeCredentials {
  /** Credential files and folders below the home folder's top, as the
   *  read rule names them (a read of each asks at every door). */
  paths: readonly string[]
  /** The walk stopped at `HOME_WALK_ENTRIES`: what lies past it is not
   *  known. */
  truncated: boolean
}

/**
 * The credentials a contained command must not read wherever they are in
 * the home folder, not only at its top: the read rule (sensitive-paths.ts)
 * asks for `credentials.toml` under `~/.cargo`, a browser profile under
 * `~/snap/firefox/common/.mozilla` or `~/.var/app/…/.mozilla`, and the
 * sandbox hides the same (sandbox-policy.ts), so what a door would ask the
 * person before reading, an allowed command cannot read unasked.
 *
 * The home folder is walked (no link followed, the writable roots'
 * contents read as any other folder's and left out by the policy, a
 * credential folder not gone into) at most once every `HOME_WALK_TTL_MS`,
 * since a walk of a large home costs more than a command's start: a
 * credential made deeper than the top in the last half minute is not
 * hidden from a command started meanwhile. The top of the home folder is
 * read at every start (sandbox-policy.ts).
 */
export class HomeCredentialsIndex {
  private readonly home: string
  private readonly now: () => number
  private found: { at: number; walk: Promise<HomeCredentials> } | undefined

  constructor(home: string, now: () => number = () => performance.now()) {
    this.home = home
    this.now = now
  }

  /** The latest walk's findings, walking again when they are older than
   *  `HOME_WALK_TTL_MS`; calls during a walk share it. */
  current(): Promise<HomeCredentials> {
    const at = this.now()
    if (this.found === undefined || at - this.found.at > HOME_WALK_TTL_MS) {
      this.found = { at, walk: walkHome(this.home) }
    }
    return this.found.walk
  }
}

async function walkHome(given: string): Promise<HomeCredentials> {
  // By its real path, as the writable roots it is compared with are (a
  // home under a link, `/home -> var/home`, would never match them).
  const home = await realpath(given).catch(() => given)
  const found: string[] = []
  let seen = 0
  let level = ['']
  for (let depth = 0; depth <= HOME_WALK_DEPTH && level.length > 0; depth += 1) {
    const next: string[] = []
    for (const relative of level) {
      let entries
      try {
        entries = await readdir(path.join(home, relative), { withFileTypes: true })
      } catch {
        continue
      }
      seen += entries.length
      if (seen > HOME_WALK_ENTRIES) return { paths: found, truncated: true }
      for (const entry of entries) {
        const child = relative === '' ? entry.name : path.join(relative, entry.name)
        const rule = sensitivePath(child)
        if (rule !== null && rule.readAsks && rule.class === 'credentials') {
          // The top is read at every start; below it, from this walk.
          if (relative !== '') found.push(path.join(home, child))
          continue
        }
        if (entry.isDirectory() && !NOT_WALKED.has(entry.name) && !NOT_WALKED.has(child)) {
          next.push(child)
        }
      }
    }
    level = next
  }
  return { paths: found, truncated: false }
}
