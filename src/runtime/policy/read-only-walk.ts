import { accessSync, constants, readdirSync, realpathSync, type Dirent } from 'node:fs'
import path from 'node:path'
import {
  bareGitPlacesOf,
  commonFolderOf,
  GIT_FOLDER_SHAPES,
  GIT_HOOK_NAMES,
  gitFolderPartPresent,
  gitFolderShaped,
  gitPlacesOf,
  personalGitPlaces,
  type ConfigPlaces,
} from './git-hooks-folder.ts'
import { gitFoldersInInstallFolder } from './install-folder-repositories.ts'
import { statOfTheMoment } from './judgment-moment.ts'
import { carriesPackageHooks, isPackageManifest } from './package-hooks.ts'
import { isInsideRoot } from './path-containment.ts'
import { searchFoldersIn } from './programs-found-first.ts'
import { realPathAllowingMissing } from './real-paths.ts'
import { packageScriptsRun, toolConfigPrograms } from './tool-config-programs.ts'
import { LONGEST_FOLDER_RULE_SEGMENTS, sensitivePath } from './sensitive-paths.ts'
import { childFolder, followLink, type WalkedFolder } from './walk-links.ts'

/** How many folder entries `personOnlyPathsIn` reads at most. */
export const READ_ONLY_WALK_ENTRIES = 20_000

/** How many entries a walk after a call reads at most: a call may add many
 *  (a build, an install), and what it made past the limit is what the walk
 *  is for. The start's limit keeps the first walk quick; this one keeps a
 *  flood of entries from hiding a git folder made beside them. */
export const AFTER_CALL_WALK_ENTRIES = 10 * READ_ONLY_WALK_ENTRIES

/** Install folders, large and rebuilt at will: not walked, only their git
 *  folders looked for where git finds them (install-folder-repositories.ts). */
const NOT_WALKED = new Set(['node_modules'])

/** One of git's places a walk found: a repository's git folder, the
 *  folder its config names for hooks, a config file it reads, or a file
 *  a config names as a program git runs. */
interface GitPlace {
  path: string
  kind: 'git-folder' | 'hooks-folder' | 'config' | 'program'
}

/** What one walk of a folder found (`walkFolder`). */
interface FolderWalk {
  /** The folder's real path. */
  root: string
  /** Paths inside it that the table covers, and bare repositories. */
  table: string[]
  /** Git's places of every repository found: the one the folder is in,
   *  each nested one and each bare one, wherever those places are. */
  places: GitPlace[]
  truncated: boolean
  /** Folders whose entries could not be read: what is in them is not
   *  known. */
  unlistable: string[]
  /** The symbolic links the walk met, wherever they lead. */
  links: string[]
}

/** What the sandbox keeps read-only in writable roots, from their walks. */
export interface ReadOnlyWalk {
  /** Real paths inside the roots that stay read-only. */
  paths: string[]
  /** A root whose walk stopped at `READ_ONLY_WALK_ENTRIES` entries, or
   *  null: what lies past it is not kept read-only. */
  truncated: string | null
  /** A root that is a git folder or lies in one, or null: nothing inside
   *  it can be kept read-only without the whole root. */
  inGitFolder: string | null
  /** Folders in the roots whose entries could not be read (a command can
   *  take away a folder's listing, `chmod 111`, and git still goes in):
   *  what is in them is not kept read-only, nor known. */
  unlistable: string[]
  /** Git's places the walks found outside every root (a config, a hooks
   *  folder elsewhere): not writable in the sandbox by their names. */
  elsewhere: string[]
  /** The symbolic links in the roots, wherever they lead: a program that
   *  follows links (`grep -R`, `tar ch`) reads through one. */
  links: string[]
}

/**
 * The paths inside `workspace` that the command sandbox keeps read-only:
 * every file or folder the table covers, found at any depth by a walk of
 * the workspace (a match is not descended into, nor `node_modules`), and
 * what git keeps and runs for the repository, for every repository
 * nested in it (`gitPlacesOf`) and for every bare one (`bareGitPlacesOf`). Real paths,
 * so the sandbox binds what is really there. A link to a folder inside
 * the workspace is gone through, what is under it judged by the link's
 * name (`.vscode -> editor/vscode` holds `.vscode/tasks.json` to the
 * person's editor); one to a folder outside it is not, so the walk stays
 * inside (walk-links.ts). `truncated` says the walk stopped at
 * `READ_ONLY_WALK_ENTRIES` entries: what lies past it is not kept
 * read-only, so a command in such a workspace always needs the person
 * (`personOnlyReason`), who is told why. `elsewhere` holds git's places
 * those repositories have outside the workspace.
 */
export function personOnlyPathsIn(workspace: string): {
  paths: string[]
  /** The walk stopped at its limit, or a folder could not be listed. */
  truncated: boolean
  inGitFolder: string | null
  elsewhere: string[]
} {
  const walk = walkFolder(workspace, READ_ONLY_WALK_ENTRIES)
  if (walk === null) return { paths: [], truncated: false, inGitFolder: null, elsewhere: [] }
  const { paths, inGitFolder } = keptReadOnly([walk])
  const elsewhere = walk.places
    .filter((place) => !isInsideRoot(walk.root, place.path))
    .map((place) => place.path)
  return {
    paths,
    truncated: walk.truncated || walk.unlistable.length > 0,
    inGitFolder,
    elsewhere,
  }
}

/**
 * What the sandbox keeps read-only in every one of `roots` (the folders a
 * command may write), each walked as `personOnlyPathsIn` walks one. A
 * repository found in one root may keep its places in another (a nested
 * repository whose hooks folder is a folder the person let the turn
 * write besides the workspace): each root keeps what any walk found in it.
 */
export function personOnlyPathsInRoots(
  roots: readonly string[],
  entries: number = READ_ONLY_WALK_ENTRIES,
): ReadOnlyWalk {
  const real = roots.flatMap((root) => realPathAllowingMissing(root) ?? [])
  const walks = roots.flatMap((root) => walkFolder(root, entries, real) ?? [])
  return keptReadOnly(walks)
}

/** What `walks` keep read-only in their roots. */
function keptReadOnly(walks: readonly FolderWalk[]): ReadOnlyWalk {
  const out = new Set<string>()
  let inGitFolder: string | null = null
  for (const walk of walks) for (const found of walk.table) out.add(found)
  const places = walks.flatMap((walk) => walk.places)
  for (const { root } of walks) {
    if (inGitFolder === null && gitFolderByShapeHolding(root)) inGitFolder = root
    for (const place of places) {
      if (place.path !== root) {
        if (isInsideRoot(root, place.path)) out.add(place.path)
        // A root inside a git folder (a workspace in `.git`, or in a
        // repository's git folder under any other name): all of it is
        // git's, and a command may write all of it.
        else if (place.kind === 'git-folder' && isInsideRoot(place.path, root)) {
          inGitFolder ??= root
        }
        continue
      }
      if (place.kind === 'git-folder') inGitFolder ??= root
      // A config naming the root itself as its hooks folder
      // (`core.hooksPath = ../..` in a nested repository): git runs the
      // files by hooks' names at its top, which stay read-only; the rest
      // of the root is the person's to let a command write.
      if (place.kind === 'hooks-folder') {
        for (const hook of GIT_HOOK_NAMES) out.add(path.join(root, hook))
      }
    }
  }
  const truncated = walks.find((walk) => walk.truncated)?.root ?? null
  const unlistable = walks.flatMap((walk) => walk.unlistable)
  const elsewhere = places
    .filter((place) => !walks.some(({ root }) => isInsideRoot(root, place.path)))
    .map((place) => place.path)
  return {
    paths: [...out].sort(),
    truncated,
    inGitFolder,
    unlistable,
    elsewhere: [...new Set(elsewhere)].sort(),
    links: walks.flatMap((walk) => walk.links),
  }
}

/**
 * One walk of `folder` (`personOnlyPathsIn`), reading at most `limit`
 * entries; null when it cannot be resolved. `roots`: the real folders a
 * command may write; a link in the walk to a folder in one of them is
 * gone through (walk-links.ts).
 *
 * Each entry is judged by the table with the folder's own last names
 * before its path (as many as a rule may span beside one name below the
 * folder), as the doors judge a path by where it is: a rule may span the
 * folder's name and what is in it. A folder a turn was widened to
 * (`~/.config`) holds `.config/git/config` and `.config/autostart`,
 * whose names below it are `git/config` and `autostart`; judged from it,
 * a contained command wrote the person's git settings and made a
 * program their desktop starts, and the walk after it found nothing.
 * Likewise a folder inside a workspace (`.github`) holds
 * `.github/workflows`. Not the whole path: that would cost every name
 * of every walk a longer match, and a folder that lies inside one of the
 * table's is the doors' already (every word of a command there resolves
 * inside it, so each asks).
 */
function walkFolder(folder: string, limit: number, roots?: readonly string[]): FolderWalk | null {
  let real: string
  try {
    real = realpathSync.native(folder)
  } catch {
    return null
  }
  const writable = roots ?? [real]
  const names = real.split(path.sep).filter((name) => name !== '')
  const namesAbove = path.join(
    '.',
    ...names.slice(Math.max(0, names.length - (LONGEST_FOLDER_RULE_SEGMENTS - 1))),
  )
  const table: string[] = []
  const unlistable: string[] = []
  let seen = 0
  let truncated = false
  const nested = new Set<string>()
  const bare: string[] = []
  const manifests: string[] = []
  const links: string[] = []
  let level: WalkedFolder[] = [{ relative: '', at: real, above: [], levels: null }]
  while (level.length > 0 && !truncated) {
    const next: WalkedFolder[] = []
    for (const walked of level) {
      const { relative, at } = walked
      let entries: Dirent[]
      try {
        entries = readdirSync(at, { withFileTypes: true })
      } catch (error) {
        // Gone, or no longer a folder, since its parent was read: nothing
        // is there to check. Any other failure (no permission to list it)
        // leaves what it holds unknown, and git may still go in: said,
        // never taken as empty.
        const code = (error as NodeJS.ErrnoException).code
        if (code !== 'ENOENT' && code !== 'ENOTDIR' && enterable(at)) unlistable.push(at)
        continue
      }
      seen += entries.length
      if (seen > limit) {
        truncated = true
        break
      }
      // A git folder under a name the table does not know (a bare
      // repository): git run inside it runs what its config names. It is
      // kept whole, as `.git` is, and not gone into.
      if (relative !== '' && shapedLikeGitFolder(at, entries)) {
        table.push(at)
        bare.push(at)
        continue
      }
      for (const entry of entries) {
        const child = relative === '' ? entry.name : path.join(relative, entry.name)
        const judged = path.join(namesAbove, child)
        // Kept at its real path: under a link (`.vscode -> editor/vscode`)
        // that is where the file is, which a bind or a rename acts on.
        if (sensitivePath(judged) !== null) table.push(path.join(at, entry.name))
        // A package.json is looked at once the repositories are known
        // (package-hooks.ts).
        else if (isPackageManifest(entry.name)) manifests.push(path.join(at, entry.name))
        else if (!NOT_WALKED.has(entry.name)) {
          // A folder that is a link is read as the folder it leads to,
          // judged by the link's name: the person's editor, CI and git
          // read `.vscode/tasks.json` through it all the same.
          const link = entry.isSymbolicLink() ? path.join(at, entry.name) : null
          if (link !== null) links.push(link)
          const inner = entry.isDirectory()
            ? childFolder(walked, child, entry.name)
            : link !== null
              ? followLink(walked, child, link, writable)
              : null
          if (inner !== null) next.push(inner)
        } else if (entry.isDirectory()) {
          const gits = gitFoldersInInstallFolder(path.join(at, entry.name))
          truncated ||= gits === null
          table.push(...(gits ?? []))
          for (const git of gits ?? []) nested.add(path.dirname(git))
        }
        // A repository nested in the workspace has git places of its own
        // (a hooks folder its config names under an innocent name).
        // Lower-cased: a case-insensitive file system opens `.GIT` as `.git`.
        if (relative !== '' && entry.name.toLowerCase() === '.git') nested.add(at)
      }
    }
    level = next
  }
  // A bare repository's config may name a hooks folder (or include a file)
  // outside it, as a nested one's may; a worktree's git folder reads the
  // config (and runs the hooks) of the folder its `commondir` names.
  const commons = bare.flatMap((bareFolder) => commonFolderOf(bareFolder) ?? [])
  const repositories = [
    ...[real, ...nested].map((top) => gitPlacesOf(top)),
    ...[...bare, ...commons].map((bareFolder) => bareGitPlacesOf(bareFolder)),
  ]
  const found = repositories.filter((git) => git !== null)
  // A package.json whose keys say what hooks run, or holding a script a
  // hook of these repositories runs by name.
  const hooked = new Set(found.flatMap((git) => [...packageScriptsRun(git)]))
  for (const manifest of manifests) {
    if (carriesPackageHooks(manifest, hooked)) table.push(manifest)
  }
  const places: GitPlace[] = []
  for (const git of found) {
    places.push({ path: git.gitFolder, kind: 'git-folder' })
    if (git.commonFolder !== null) places.push({ path: git.commonFolder, kind: 'git-folder' })
    places.push(...configPlacesOf(git))
  }
  // No repository: the person's own configs still name places git uses in
  // every repository of theirs (a global `~/.githooks`), which a command
  // may reach through a folder the turn was widened to.
  if (found.length === 0) places.push(...configPlacesOf(personalGitPlaces()))
  // A folder that is no repository's top may still be the one the
  // person's editor opens or mise enters (tool-config-programs.ts).
  if (!found.some((git) => git.top === real)) {
    const programs = toolConfigPrograms(real, [])
    places.push(
      ...configPlacesOf({ hooksFolders: [], templateFolders: [], configFiles: [], programs }),
    )
  }
  // What the program search finds first (programs-found-first.ts).
  for (const folder of searchFoldersIn(real)) places.push({ path: folder, kind: 'program' })
  return { root: real, table, places, truncated, unlistable, links }
}

/** The places the configs git reads name, as the walk keeps them. */
function configPlacesOf(git: ConfigPlaces): GitPlace[] {
  const places: GitPlace[] = []
  for (const folder of git.hooksFolders) places.push({ path: folder, kind: 'hooks-folder' })
  // A template git copies into every git folder it makes is kept as one.
  for (const folder of git.templateFolders) places.push({ path: folder, kind: 'git-folder' })
  // A file git runs, or one not there yet; a folder a value names
  // (`!cd tools && make`) is not what git runs, and keeping it whole
  // would keep from the person's commands what is theirs.
  // A folder a tool runs every file of (lefthook's `source_dir`) is kept
  // whole, there or not yet.
  for (const program of git.programs) {
    if (program.folder === true || !isFolder(program.path)) {
      places.push({ path: program.path, kind: 'program' })
    }
  }
  for (const file of git.configFiles) places.push({ path: file, kind: 'config' })
  return places
}

/** Whether the folder `real` (a real path) is a git folder or lies in
 *  one: the git folder of the repository it is in, or a folder shaped
 *  like one (`gitFolderByShapeHolding`). */
export function inGitFolder(real: string): boolean {
  const outer = gitPlacesOf(real)
  const gitFolders = outer === null ? [] : [outer.gitFolder, outer.commonFolder ?? []].flat()
  return gitFolders.some((folder) => isInsideRoot(folder, real)) || gitFolderByShapeHolding(real)
}

/** Whether `root` or a folder above it is shaped like a git folder (a
 *  bare repository under any name, which no `.git` names): git run there
 *  takes it for one. */
function gitFolderByShapeHolding(root: string): boolean {
  for (let folder = root; ; folder = path.dirname(folder)) {
    if (gitFolderShaped(folder)) return true
    if (path.dirname(folder) === folder) return false
  }
}

/** Whether the folder `at`, whose entries are `entries`, is what git
 *  takes for a git folder (GIT_FOLDER_SHAPES): each part its shape names
 *  is looked at (`gitFolderPartPresent`) only where an entry has its
 *  name, so a folder without a `HEAD` costs no look-up. */
function shapedLikeGitFolder(at: string, entries: readonly Dirent[]): boolean {
  return GIT_FOLDER_SHAPES.some((parts) =>
    parts.every(
      ({ name, folder }) =>
        entries.some((entry) => entry.name === name) &&
        gitFolderPartPresent(path.join(at, name), folder),
    ),
  )
}

/** Whether the walk's process may go into `folder` though it cannot list
 *  it (`chmod 111`): git can too. One it cannot go into at all (another
 *  user's folder, mode 700) holds nothing git runs for this person. A
 *  failure of the check itself (a path too long to look at) counts as
 *  enterable: fails closed. */
function enterable(folder: string): boolean {
  try {
    accessSync(folder, constants.X_OK)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'EACCES'
  }
}

/** Whether `candidate` is a folder now (a link followed). One that
 *  cannot be looked at is not: it stays among what is kept. */
function isFolder(candidate: string): boolean {
  try {
    return statOfTheMoment(candidate)?.isDirectory() === true
  } catch {
    return false
  }
}
