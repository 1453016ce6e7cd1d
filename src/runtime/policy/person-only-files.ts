import { readdirSync, realpathSync, type Dirent, type Stats } from 'node:fs'
import { homedir } from 'node:os'
import path from 'node:path'
import {
  BROWSER_PROFILES,
  CHAT_SESSIONS,
  EDITOR_STORES,
  HOME_SECRET_FOLDERS,
  WALLET_DATA,
} from './secret-folders.ts'
import { lstatOfTheMoment } from './judgment-moment.ts'
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

/** What reading the places found: every file that could be read, the
 *  first folder whose entries could not be read (it may hold anything),
 *  and where the reading stopped past `MAX_PERSON_ONLY_ENTRIES`. */
export interface PersonOnlyFiles {
  files: PersonOnlyFile[]
  unlistable: string | null
  tooMany: string | null
}

/**
 * The files in `places` (files, and folders read to any depth, links not
 * followed), leaving out every entry named in `skipped` (git's objects, a
 * large repository has many, and they run nothing). A folder that cannot
 * be listed is noted and the others are read still.
 */
export function personOnlyFiles(
  places: readonly string[],
  skipped: ReadonlySet<string>,
): PersonOnlyFiles {
  const files: PersonOnlyFile[] = []
  let unlistable: string | null = null
  const pending = [...places]
  let budget = MAX_PERSON_ONLY_ENTRIES
  while (pending.length > 0) {
    const place = pending.pop() ?? ''
    const stats = lstatQuietly(place)
    if (stats === null) continue
    if (stats.isFile()) files.push({ path: place, stats })
    if (!stats.isDirectory()) continue
    const names = entriesOf(place)
    if (names === null) {
      unlistable ??= place
      continue
    }
    for (const name of names) {
      budget -= 1
      if (budget < 0) return { files, unlistable, tooMany: place }
      if (!skipped.has(name)) pending.push(path.join(place, name))
    }
  }
  return { files, unlistable, tooMany: null }
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
 *  browser's or mail client's profile, a chat app's store, an editor's
 *  extensions' store and a wallet's chain data hold thousands of files,
 *  which no bound on a judgment's reading covers. */
const NOT_COMPARED_SECRET_FOLDERS: ReadonlySet<string> = new Set([
  ...BROWSER_PROFILES,
  ...CHAT_SESSIONS,
  ...EDITOR_STORES,
  ...WALLET_DATA,
])

/** Entries of the person-only places whose files are not compared with
 *  other names: git's objects run nothing, and a large repository has
 *  many; a cache or a log (`~/.kube/cache`, `~/.config/gcloud/logs`)
 *  keeps no key. */
export const NOT_COMPARED_NAMES: ReadonlySet<string> = new Set(['objects', 'cache', 'logs'])

/**
 * The files in the person's credential folders and their credential files
 * in the home folder (HOME_SECRET_FOLDERS), but those
 * `NOT_COMPARED_SECRET_FOLDERS` names, and their caches and logs; with
 * `tooMany` where the reading stopped past `MAX_PERSON_ONLY_ENTRIES`. A
 * folder this process cannot list (root's, left by `sudo`) holds no file
 * the person's programs could reach under another name either: the
 * file's own permissions hold under every name, so it is passed over.
 */
export function homeCredentialFiles(): Pick<PersonOnlyFiles, 'files' | 'tooMany'> {
  const home = homedir()
  const places = HOME_SECRET_FOLDERS.filter(
    (folder) => !NOT_COMPARED_SECRET_FOLDERS.has(folder),
  ).map((folder) => path.join(home, ...folder.split('/')))
  const { files, tooMany } = personOnlyFiles(places, NOT_COMPARED_NAMES)
  return { files, tooMany }
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
    return lstatOfTheMoment(real) ?? null
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
