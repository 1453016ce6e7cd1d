import type { Stats } from 'node:fs'
import path from 'node:path'
import { configPlaces, personalConfigFiles, type ConfigPlaces } from './git-config-places.ts'
import { placesLinkedOut } from './git-folder-links.ts'
import { commonDirFolder, gitFileFolder } from './git-pointers.ts'
import {
  existsInTheMoment,
  keptForTheMoment,
  lstatOfTheMoment,
  realPathsOfTheMoment,
  statOfTheMoment,
} from './judgment-moment.ts'
import { realPathAllowingMissing, type RealPathsSeen } from './real-paths.ts'
import { regularFileText } from './regular-file-text.ts'
import { toolConfigPrograms } from './tool-config-programs.ts'

export { coreHooksPath, personalGitPlaces, type ConfigPlaces } from './git-config-places.ts'
export { GIT_HOOK_NAMES } from './git-hook-names.ts'
export { realPathAllowingMissing, type RealPathsSeen } from './real-paths.ts'

// What git keeps and runs for a repository, wherever it really is: its git
// folder (which a `.git` file may name under any other name), the folder
// its config moves the hooks to (`core.hooksPath`), the config files
// that config includes, and what links in the git folder lead to
// (git-folder-links.ts). No grant or automatic allow may write to any of
// them (person-only.ts), and the command sandbox keeps them read-only.

export interface GitPlaces extends ConfigPlaces {
  /** The real folder git runs the hooks in: a repository's top, a bare
   *  repository's git folder. */
  top: string
  /** The repository's real git folder: `.git`, or where a `.git` file
   *  points (`git init --separate-git-dir`, a worktree, a submodule). */
  gitFolder: string
  /** For a linked worktree (`git worktree add`), the real folder its git
   *  folder's `commondir` names: the main checkout's git folder, whose
   *  config, hooks, objects and refs every worktree shares; null for a
   *  git folder that names none. */
  commonFolder: string | null
}

/**
 * What git keeps and runs for the repository git finds from `workspace`
 * (the nearest `.git` at the workspace or above it: a workspace may be a
 * folder inside a repository), or null when there is none or its `.git`
 * cannot be read. The hooks folders are read from the configs git reads:
 * the system's (`/etc/gitconfig`, or `$GIT_CONFIG_SYSTEM`), the person's
 * own (`~/.gitconfig`, `$XDG_CONFIG_HOME/git/config`, or
 * `$GIT_CONFIG_GLOBAL`), then
 * the repository's (`config`, in a linked worktree the main checkout's,
 * and `config.worktree`), each with what it includes. A relative value is
 * taken from the repository's top (a worktree's own), where git runs its
 * hooks. A config that cannot be read names nothing: the default hooks
 * folder is inside the git folder, which is covered anyway, unless it is
 * a link out of it, which is given too (`placesLinkedOut`), as are the
 * repository's own configs and hooks reached through links.
 */
export function gitPlacesOf(workspace: string): GitPlaces | null {
  // Asked by each rule that judges an action: found once in its moment.
  return keptForTheMoment('git-places', workspace, (folder) => {
    const repository = repositoryOf(folder)
    return repository === null ? null : placesOf(repository)
  })
}

/** What git keeps and runs for a bare repository, a git folder known by
 *  its shape (`gitFolderShaped`): git runs its hooks there, so a relative
 *  `core.hooksPath` in its config is taken from the folder itself. */
export function bareGitPlacesOf(folder: string): GitPlaces {
  return placesOf({ top: folder, gitFolder: folder })
}

/** The git places of a repository whose hooks run in `top` and whose git
 *  folder is `gitFolder`. */
function placesOf(repository: { top: string; gitFolder: string }): GitPlaces {
  // Every real path below is looked up in the same few folders (the git
  // folder and its parents): each is looked up once.
  const seen: RealPathsSeen = realPathsOfTheMoment()
  const gitFolder = realPathAllowingMissing(repository.gitFolder, seen) ?? repository.gitFolder
  // A linked worktree's git folder holds its own HEAD and index; git reads
  // the repository's config (and runs its hooks) from the folder its
  // `commondir` names. A worktree is where agents are commonly run, and
  // the main checkout's `core.hooksPath` applies in it, from its own top.
  const common = commonFolderOf(gitFolder)
  const commonFolder = common === null ? null : (realPathAllowingMissing(common, seen) ?? common)
  const files = [
    ...personalConfigFiles(),
    path.join(commonFolder ?? gitFolder, 'config'),
    path.join(gitFolder, 'config.worktree'),
  ]
  const named = configPlaces(files, repository.top, [gitFolder, commonFolder ?? []].flat())
  // Every caller (the sandbox's binds, the made-files watch, the doors)
  // reads a repository's places from here: what git reaches through a
  // link out of its git folder is added here once, so none can miss it.
  const linked = placesLinkedOut(gitFolder, commonFolder, named.hooksFolders, seen)
  const hooksFolders = [...new Set([...named.hooksFolders, ...linked.hooksFolders])]
  // What the hook managers' configs at the top, and the hooks git runs,
  // name as what they run (tool-config-programs.ts). A bare repository
  // has no top of its own: its hooks folder is in its git folder.
  const top = realPathAllowingMissing(repository.top, seen) ?? repository.top
  const tools =
    repository.top === repository.gitFolder
      ? []
      : [top, ...named.worktreeTops].flatMap((from) =>
          toolConfigPrograms(
            from,
            [path.join(commonFolder ?? gitFolder, 'hooks'), ...hooksFolders],
            seen,
          ),
        )
  return {
    top,
    gitFolder,
    commonFolder,
    hooksFolders,
    templateFolders: named.templateFolders,
    programs: [...named.programs, ...linked.programs, ...tools],
    configFiles: [...new Set([...named.configFiles, ...linked.configFiles])],
  }
}

/** The repository git would find from `workspace`: the nearest folder at
 *  or above it holding `.git`, and its git folder; null if none, or if the
 *  nearest `.git` cannot be read.
 *
 *  A `.git` folder git does not take for a git folder (no `HEAD`, or no
 *  `objects` or `refs`) git passes by for the repository above, whose
 *  config may move the hooks into the workspace: taken for the
 *  repository here, that config named nothing any door kept. Such a
 *  folder stands only where nothing is found above (what is in it is the
 *  person's by its name anyway). */
function repositoryOf(workspace: string): { top: string; gitFolder: string } | null {
  let top = path.resolve(workspace)
  let passedBy: { top: string; gitFolder: string } | null = null
  for (;;) {
    const gitFolder = gitFolderAt(top)
    if (gitFolder === null) return null
    if (gitFolder !== undefined) {
      const unshaped = gitFolder === path.join(top, '.git') && !gitFolderShaped(gitFolder)
      if (!unshaped) return { top, gitFolder }
      passedBy ??= { top, gitFolder }
    }
    const parent = path.dirname(top)
    if (parent === top) return passedBy
    top = parent
  }
}

/** The git folder of a repository whose top is `top`; undefined when there
 *  is no `.git` there, null when there is one that cannot be read. */
function gitFolderAt(top: string): string | null | undefined {
  const dotGit = path.join(top, '.git')
  // Every door asks this on every action, for each folder up to the root,
  // and most have no .git: a stat that reports "none" without throwing
  // costs a fraction of a read that fails.
  let found: Stats | undefined
  try {
    found = statOfTheMoment(dotGit)
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOTDIR' ? undefined : null
  }
  if (found === undefined) return undefined
  if (found.isDirectory()) return dotGit
  // Neither a folder nor a file (a link to /dev/null, a FIFO): git passes
  // it by and goes on to the folders above, whose repository it then
  // uses, its config's hooks folder in the workspace included. Taken for
  // "no repository" here, that config named nothing any door kept.
  if (!found.isFile()) return undefined
  try {
    return gitFileFolder(top, regularFileText(dotGit))
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    // EISDIR: a .git folder made since the stat.
    if (code === 'EISDIR') return dotGit
    return code === 'ENOENT' || code === 'ENOTDIR' ? undefined : null
  }
}

/** What git looks for in a folder to take it for a git folder
 *  (`is_git_directory`): `HEAD`, and the `objects` and `refs` folders
 *  (`folder`: a part git only checks it may go into, which an executable
 *  file passes too, `gitFolderPartPresent`). */
export const GIT_FOLDER_PARTS: ReadonlyArray<{ name: string; folder: boolean }> = [
  { name: 'HEAD', folder: false },
  { name: 'objects', folder: true },
  { name: 'refs', folder: true },
]

/** A worktree's git folder: `HEAD` and a `commondir` file naming the
 *  folder that holds the objects, the refs and the config. git looks for
 *  `objects` and `refs` there, wherever it is, so a folder with these two
 *  is taken for a git folder whatever the one it names holds. */
export const WORKTREE_GIT_FOLDER_PARTS: ReadonlyArray<{ name: string; folder: boolean }> = [
  { name: 'HEAD', folder: false },
  { name: 'commondir', folder: false },
]

/** Either set of parts makes a git folder. */
export const GIT_FOLDER_SHAPES = [GIT_FOLDER_PARTS, WORKTREE_GIT_FOLDER_PARTS] as const

/** Whether `folder` holds what makes git take it for a git folder, with
 *  `target` (a path about to be written) counted as there. A link counts
 *  as whatever it may point to. */
export function gitFolderShaped(
  folder: string,
  target: string | null = null,
  present: (part: string, isFolder: boolean) => boolean = gitFolderPartPresent,
): boolean {
  // Both shapes start with `HEAD`: each part is looked at once.
  const looked = new Map<string, boolean>()
  return GIT_FOLDER_SHAPES.some((parts) =>
    parts.every(({ name, folder: isFolder }) => {
      const part = path.join(folder, name)
      if (target !== null && (target === part || target.startsWith(part + path.sep))) return true
      let found = looked.get(name)
      if (found === undefined) {
        found = present(part, isFolder)
        looked.set(name, found)
      }
      return found
    }),
  )
}

/** The folder a worktree's git folder names in its `commondir` (its
 *  config, hooks, objects and refs), or null when it names none. */
export function commonFolderOf(folder: string): string | null {
  const file = path.join(folder, 'commondir')
  if (!existsInTheMoment(file)) return null
  try {
    return commonDirFolder(folder, regularFileText(file))
  } catch {
    return null
  }
}

/**
 * Whether one part of a git folder's shape is there, as git would take
 * it. `HEAD` and `commondir` git reads, so a folder there is none.
 * `objects` and `refs` (`isFolder`) it only checks it may go into
 * (`access(X_OK)`), which a file with an execute bit passes as well as a
 * folder (checked: git 2.39 takes a folder whose `objects` and `refs` are
 * two scripts for a bare repository, and runs its config's aliases and
 * pager): a command may make those two files and set that bit. Any
 * execute bit counts, whoever's it is, so the person's account and root
 * are both covered. A link counts as whatever it may point to.
 */
export function gitFolderPartPresent(part: string, isFolder: boolean): boolean {
  let found: Stats | undefined
  try {
    found = lstatOfTheMoment(part)
  } catch {
    // Not there for git either (a file where a folder would be, no
    // permission to look).
    return false
  }
  if (found === undefined) return false
  if (found.isSymbolicLink()) return true
  if (!isFolder) return !found.isDirectory()
  return found.isDirectory() || (found.mode & ANY_EXECUTE_BIT) !== 0
}

/** S_IXUSR | S_IXGRP | S_IXOTH. */
const ANY_EXECUTE_BIT = 0o111
