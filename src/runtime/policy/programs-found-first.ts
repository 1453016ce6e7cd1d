import { statSync } from 'node:fs'
import path from 'node:path'
import { isInsideRoot } from './path-containment.ts'
import type { ActionTouch, PersonOnly } from './person-only.ts'
import { realPathAllowingMissing } from './real-paths.ts'

// A file made where the program search finds it before an installed
// program of the same name (`bin/git`, with the workspace's `bin` first on
// PATH) runs in place of that program at the next command that calls it
// by name: the external agent's `git status` a grant, the reviewer or the
// webhook allows, run outside any sandbox of Assent's, a hook, or the
// person's own terminal in the same environment. The person allowed git,
// and what ran was the agent's file. The PATH read is the one Assent was
// started with, which every agent, MCP server and command it starts
// inherits (the home folder's own program folders, `~/.local/bin` and the
// like, are in the person-only table whatever the PATH).

/** How many PATH entries are read; past it, the rest are not, and a file
 *  in one of them is found only after this many folders were searched. */
const MAX_PATH_ENTRIES = 64

/** One PATH entry: an absolute folder as a real path, or a relative one
 *  as written (`.`, `bin`, or empty, which is the current folder), taken
 *  from whatever folder a later command runs in. */
interface SearchFolder {
  absolute: boolean
  folder: string
}

/** The PATH's entries, in order, as many as are read. */
function pathEntries(searchPath: string): string[] {
  return searchPath.split(path.delimiter).slice(0, MAX_PATH_ENTRIES)
}

/** The PATH as search folders, in order. */
function searchFolders(searchPath: string): SearchFolder[] {
  return pathEntries(searchPath).map((entry) => {
    if (!path.isAbsolute(entry)) return relativeEntry(entry)
    return { absolute: true, folder: realPathAllowingMissing(entry) ?? path.resolve(entry) }
  })
}

/** Whether `folder` (a real path) is the search folder `entry`: itself,
 *  or for a relative entry, any folder it names from some other folder
 *  (every folder, for `.`). */
function isSearchFolder(folder: string, entry: SearchFolder): boolean {
  if (entry.absolute) return folder === entry.folder
  if (entry.folder === '.') return true
  return folder === entry.folder || folder.endsWith(`${path.sep}${entry.folder}`)
}

/** A folder's identity (device and inode, links followed), or null when
 *  nothing is there. */
function folderIdentity(folder: string): string | null {
  const stats = statSync(folder, { throwIfNoEntry: false })
  return stats === undefined ? null : `${stats.dev}:${stats.ino}`
}

/**
 * The index of the first PATH entry that is `folder` (a real path), or -1.
 * Asked at every judgment, for the few folders of the files it names: an
 * absolute entry is compared by identity, one `stat` each, looked at only
 * once per judgment (`identities`), where resolving each entry's real
 * path reads every link on its way. Two names of one folder have one
 * identity (a link, or a bind mount, which can only find more). A folder
 * that is not there yet is found as before, by the entries' real paths.
 */
function searchIndexOf(
  folder: string,
  entries: readonly string[],
  identities: Map<number, string | null>,
): number {
  const identity = folderIdentity(folder)
  return entries.findIndex((entry, at) => {
    if (!path.isAbsolute(entry)) return isSearchFolder(folder, relativeEntry(entry))
    if (identity === null) {
      return folder === (realPathAllowingMissing(entry) ?? path.resolve(entry))
    }
    if (!identities.has(at)) identities.set(at, folderIdentity(entry))
    return identities.get(at) === identity
  })
}

function relativeEntry(entry: string): SearchFolder {
  return { absolute: false, folder: path.normalize(entry || '.') }
}

/** The program called `name` in an absolute folder of `later`, or null:
 *  a file anyone may run (a link to one counts, as the search follows it). */
function installedProgram(name: string, later: readonly string[]): string | null {
  for (const entry of later) {
    if (!path.isAbsolute(entry)) continue
    const candidate = path.join(entry, name)
    try {
      const stats = statSync(candidate)
      if (stats.isFile() && (stats.mode & 0o111) !== 0) return candidate
    } catch {
      // Not there, or cannot be looked at: then it is not what runs.
    }
  }
  return null
}

function exists(file: string): boolean {
  try {
    statSync(file)
    return true
  } catch {
    return false
  }
}

/**
 * The first of `resolved` (real paths) in the action's folders (the
 * workspace, an MCP server's own) that the program search of `searchPath`
 * finds before an installed program of its name, with why, or null.
 * Outside them, a program found first is the person's own (a version
 * manager's shim, `/usr/local/bin`), or in a folder the person-only table
 * holds already (`~/.local/bin`), or one only the system's owner may write.
 */
export function programFoundFirst(
  touch: Pick<ActionTouch, 'workspace' | 'serverFolder'>,
  resolved: readonly string[],
  searchPath: string | undefined = process.env.PATH,
): PersonOnly | null {
  if (searchPath === undefined || searchPath === '') return null
  const entries = pathEntries(searchPath)
  const identities = new Map<number, string | null>()
  const roots = [touch.workspace, touch.serverFolder ?? touch.workspace].map(
    (root) => realPathAllowingMissing(root) ?? path.resolve(root),
  )
  for (const file of new Set(resolved)) {
    if (!roots.some((root) => isInsideRoot(root, file))) continue
    const name = path.basename(file)
    const folder = path.dirname(file)
    const at = searchIndexOf(folder, entries, identities)
    if (at === -1) continue
    // The current folder on PATH (`.`, or an empty entry) makes every
    // word of every command a file the search may find (`git status`
    // names `./git`): there, one that is there is what a command calling
    // it by name runs, and a command naming it needs the person; one not
    // there yet is not read as made (every command would need the person).
    const entry = entries[at] ?? ''
    if (!path.isAbsolute(entry) && relativeEntry(entry).folder === '.' && !exists(file)) continue
    const shadowed = installedProgram(name, entries.slice(at + 1))
    if (shadowed === null) continue
    return {
      path: file,
      class: 'runs-later',
      reason: `the program search (PATH) finds it before ${shadowed}, so a command that calls ${name} runs it instead, without anyone being asked`,
    }
  }
  return null
}

/**
 * The folders in `root` (a real path) the program search of `searchPath`
 * looks in, for the sandbox to keep read-only whole: a command it
 * contains would otherwise make `bin/git` there, which the doors leave to
 * the person. An absolute one inside the root, and a relative one taken
 * from the root, where commands start; not the current folder (`.`), nor
 * the root itself, which would keep the whole of it (the doors still ask
 * for a command calling a program beside a file of its name there).
 */
export function searchFoldersIn(
  root: string,
  searchPath: string | undefined = process.env.PATH,
): string[] {
  if (searchPath === undefined || searchPath === '') return []
  const inside = searchFolders(searchPath).flatMap(({ absolute, folder }) => {
    if (folder === '.' || folder.startsWith('..')) return []
    const at = absolute ? folder : path.join(root, folder)
    return at !== root && isInsideRoot(root, at) ? [at] : []
  })
  return [...new Set(inside)]
}
