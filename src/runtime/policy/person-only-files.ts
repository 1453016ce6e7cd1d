import { lstatSync, readdirSync, realpathSync, type Dirent, type Stats } from 'node:fs'
import { homedir } from 'node:os'
import path from 'node:path'
import { BROWSER_PROFILES, HOME_SECRET_FOLDERS, WALLET_DATA } from './secret-folders.ts'
import { sensitivePath } from './sensitive-paths.ts'

// The files inside the person-only table's places: what a file's other
// names (hard links) are compared with (named-paths.ts), and what the
// command sandbox, which can keep read-only only the names it binds, must
// find no other name of (person-only.ts).

/** How many entries of the places' folders are read at most; past it the
 *  caller fails closed. */
export const MAX_PERSON_ONLY_ENTRIES = 4_000

/** A file found in a place, with its status. */
export interface PersonOnlyFile {
  path: string
  stats: Stats
}

/** What reading the places found: every file, or where the reading stopped
 *  (past `MAX_PERSON_ONLY_ENTRIES`, or a folder whose entries could not be
 *  read, which may hold anything). */
export type PersonOnlyFiles =
  | { files: PersonOnlyFile[]; stopped: null }
  | { files: PersonOnlyFile[]; stopped: { path: string; why: 'too-many' | 'unlistable' } }

/**
 * The files in `places` (files, and folders read to any depth, links not
 * followed), leaving out every entry named in `skipped` (git's objects, a
 * large repository has many, and they run nothing).
 */
export function personOnlyFiles(
  places: readonly string[],
  skipped: ReadonlySet<string>,
): PersonOnlyFiles {
  const files: PersonOnlyFile[] = []
  const pending = [...places]
  let budget = MAX_PERSON_ONLY_ENTRIES
  while (pending.length > 0) {
    const place = pending.pop() ?? ''
    const stats = lstatQuietly(place)
    if (stats === null) continue
    if (stats.isFile()) files.push({ path: place, stats })
    if (!stats.isDirectory()) continue
    const names = entriesOf(place)
    if (names === null) return { files, stopped: { path: place, why: 'unlistable' } }
    for (const name of names) {
      budget -= 1
      if (budget < 0) return { files, stopped: { path: place, why: 'too-many' } }
      if (!skipped.has(name)) pending.push(path.join(place, name))
    }
  }
  return { files, stopped: null }
}

/** The person-only files at the home folder's top (`.bashrc`,
 *  `.gitconfig`), not its person-only folders (an interpreter's versions,
 *  a browser profile), which can be large. */
export function homeTopPersonOnlyFiles(): PersonOnlyFile[] {
  const home = homedir()
  const files: PersonOnlyFile[] = []
  for (const name of entriesOf(home) ?? []) {
    if (sensitivePath(name) === null) continue
    const stats = lstatQuietly(path.join(home, name))
    if (stats?.isFile() === true) files.push({ path: path.join(home, name), stats })
  }
  return files
}

/** Credential folders whose files are not compared with other names: a
 *  browser's or mail client's profile and a wallet's chain data hold tens
 *  of thousands of files, which no bound on a judgment's reading covers. */
const NOT_COMPARED_SECRET_FOLDERS: ReadonlySet<string> = new Set([
  ...BROWSER_PROFILES,
  ...WALLET_DATA,
])

/** The person's credential folders and files in the home folder
 *  (HOME_SECRET_FOLDERS), but those `NOT_COMPARED_SECRET_FOLDERS` names. */
export function homeCredentialPlaces(): string[] {
  const home = homedir()
  return HOME_SECRET_FOLDERS.filter((folder) => !NOT_COMPARED_SECRET_FOLDERS.has(folder)).map(
    (folder) => path.join(home, ...folder.split('/')),
  )
}

/** How many entries `otherNameIn` reads at most in the writable roots. */
export const MAX_OTHER_NAME_ENTRIES = 20_000

/**
 * Which of `linked` (person-only files with more than one name) has another
 * name in `roots` outside `kept` (the names the sandbox binds read-only):
 * the first found, with that name; or where the search stopped (past
 * `MAX_OTHER_NAME_ENTRIES`, or a folder that cannot be listed), since what
 * lies past it is not known; or null when none has.
 */
export function otherNameIn(
  roots: readonly string[],
  linked: readonly PersonOnlyFile[],
  kept: readonly string[],
): { file: string; name: string } | { stopped: string } | null {
  const byIdentity = new Map(linked.map((file) => [identity(file.stats), file.path]))
  const keptNames = new Set(kept)
  let budget = MAX_OTHER_NAME_ENTRIES
  for (const root of roots) {
    // Real paths, as the walk's kept names are.
    let real: string
    try {
      real = realpathSync.native(root)
    } catch {
      continue
    }
    const pending = [real]
    while (pending.length > 0) {
      const folder = pending.pop() ?? ''
      let entries: Dirent[]
      try {
        entries = readdirSync(folder, { withFileTypes: true })
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code
        if (code === 'ENOENT' || code === 'ENOTDIR') continue
        return { stopped: folder }
      }
      budget -= entries.length
      if (budget < 0) return { stopped: folder }
      for (const entry of entries) {
        const child = path.join(folder, entry.name)
        // A kept name is bound read-only, and what is in a kept folder
        // with it: writing there fails in the sandbox.
        if (keptNames.has(child)) continue
        if (entry.isDirectory()) pending.push(child)
        else if (entry.isFile()) {
          const stats = lstatQuietly(child)
          const file = stats === null ? undefined : byIdentity.get(identity(stats))
          if (file !== undefined && file !== child) return { file, name: child }
        }
      }
    }
  }
  return null
}

function identity(stats: Stats): string {
  return `${stats.dev}:${stats.ino}`
}

function lstatQuietly(real: string): Stats | null {
  try {
    return lstatSync(real, { throwIfNoEntry: false }) ?? null
  } catch {
    return null
  }
}

/** A folder's entry names; none when it is gone or no longer a folder,
 *  null when they cannot be read (no permission): unknown, not empty. */
function entriesOf(folder: string): string[] | null {
  try {
    return readdirSync(folder)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    return code === 'ENOENT' || code === 'ENOTDIR' ? [] : null
  }
}
