import path from 'node:path'
import {
  GIT_HOOK_NAMES,
  gitFolderPartPresent,
  gitFolderShaped,
  gitPlacesOf,
  personalGitPlaces,
  realPathAllowingMissing,
  type ConfigPlaces,
  type GitPlaces,
  type RealPathsSeen,
} from './git-hooks-folder.ts'
import { existsInTheMoment, realPathsOfTheMoment } from './judgment-moment.ts'
import { isInsideRoot } from './path-containment.ts'
import type { PersonOnly } from './person-only.ts'
import { toolConfigPrograms } from './tool-config-programs.ts'
import { personOnlyPathsIn, READ_ONLY_WALK_ENTRIES } from './read-only-walk.ts'

// The person-only rule's git half (person-only.ts): whether an action's
// real paths lie where git keeps or runs something under a name the
// table (sensitive-path-rules.ts) does not hold.

/** The first of `resolved` (real paths) in one of git's places for the
 *  repositories of `folders` (the workspace, and the folder an MCP server
 *  works in), or in a git folder known by its shape inside them; null if
 *  none is. */
export function inGitPlacesOf(
  folders: readonly string[],
  resolved: readonly string[],
  seen: RealPathsSeen = realPathsOfTheMoment(),
  namesFiles = false,
): PersonOnly | null {
  // Each folder's real path once: both halves below start from it.
  const reals = folders.map((folder) => ({ folder, real: realPathAllowingMissing(folder, seen) }))
  const repositories = reals.flatMap(({ folder, real }) =>
    repositoriesHolding(folder, real, resolved),
  )
  for (const git of repositories) {
    const inGit = inGitPlaces(git, resolved)
    if (inGit !== null) return inGit
  }
  // No repository here: the person's own configs still name places git
  // uses in every repository of theirs (a global `~/.githooks`). With a
  // repository, its places were read with those configs.
  if (repositories.length === 0) {
    const personal = inConfigPlaces(personalGitPlaces(), resolved)
    if (personal !== null) return personal
  }
  // A folder that is no repository's top (none at all, or one inside a
  // repository) may still be the one the person's editor opens or mise
  // enters: what its configs name runs as the top's would.
  const repositoryTops = new Set(repositories.map((git) => git.top))
  for (const { real } of reals) {
    if (real === null || repositoryTops.has(real)) continue
    const named = inConfigPlaces(
      {
        hooksFolders: [],
        templateFolders: [],
        configFiles: [],
        programs: toolConfigPrograms(real, [], seen),
      },
      resolved,
    )
    if (named !== null) return named
  }
  for (const { real } of reals) {
    if (real === null) continue
    const shaped = inGitFolderByShape(real, resolved)
    if (shaped !== null) return shaped
  }
  const elsewhere = inGitPlacesElsewhere(reals, resolved)
  if (elsewhere !== null) return elsewhere
  const tops = new Set(reals.flatMap(({ real }) => (real === null ? [] : [real])))
  if (!namesHook(resolved, tops, namesFiles)) return null
  for (const top of tops) {
    const walked = inWalkedGitPlaces(top, resolved)
    if (walked !== null) return walked
  }
  return null
}

/**
 * Whether one of `resolved` is a file by a hook's name (`pre-commit`).
 * Named anywhere: a hook copied in from outside (`cp ../pre-commit
 * shared-hooks/`) is named only where it comes from. Right in the
 * workspace (or the server's folder) too, since a nested repository's
 * config may name the workspace itself as its hooks folder
 * (`core.hooksPath = ../..`); except `update` as a word of a command or an
 * MCP argument (`apt-get update`, `{ "op": "update" }`), where an everyday
 * word lands and which git runs only in a repository that receives a push:
 * walking for it would cost most such actions a walk, and in a workspace
 * too large to walk, the person's answer. A tool that names the file it
 * writes in a field of its own (`namesFiles`: Assent's `write_file`) is
 * walked for whatever the name.
 */
function namesHook(
  resolved: readonly string[],
  tops: ReadonlySet<string>,
  namesFiles: boolean,
): boolean {
  return resolved.some((target) => {
    const name = path.basename(target).toLowerCase()
    if (!GIT_HOOK_NAMES.has(name)) return false
    return name !== EVERYDAY_HOOK_NAME || namesFiles || !tops.has(path.dirname(target))
  })
}

/** The one hook name that is also an everyday word (`namesHook`). */
const EVERYDAY_HOOK_NAME = 'update'

/**
 * For an action that names a file by a hook's name (`namesHook`), the
 * first of `resolved` in a place git keeps or runs for any repository in
 * `real`, found by the walk the command sandbox keeps read-only
 * (`personOnlyPathsIn`); null if none is. The cheaper checks above know
 * the repository the folder is in and those that hold a path; a nested or
 * bare repository elsewhere in it may name a hooks folder outside itself
 * (`core.hooksPath = ../shared-hooks`), which only a walk finds. A hook
 * file is what such a folder is for, so only an action naming one pays
 * for the walk, and every path it names is then checked (`cp pre-commit
 * shared-hooks/`, the hook named where it is copied from). A folder too
 * large to walk whole asks: what lies past the walk is unknown.
 */
function inWalkedGitPlaces(real: string, resolved: readonly string[]): PersonOnly | null {
  const inside = resolved.filter((target) => isInsideRoot(real, target))
  const walked = personOnlyPathsIn(real)
  if (walked.truncated) {
    return {
      path: real,
      class: 'unwalked',
      reason: `it holds more than ${READ_ONLY_WALK_ENTRIES} entries, more than are checked for a repository whose config names a hooks folder`,
    }
  }
  if (walked.inGitFolder !== null && inside.length > 0) {
    return {
      path: inside[0] ?? real,
      class: 'git',
      reason: `${walked.inGitFolder} is in a git folder, whose config and hooks git runs`,
    }
  }
  // Places outside the folder too: a nested repository's hooks folder
  // may lie anywhere its config names.
  const places = [...walked.paths, ...walked.elsewhere]
  for (const target of resolved) {
    // A hook's name in any case: a file system that ignores case (macOS,
    // Windows) opens `PRE-COMMIT` as the `pre-commit` git runs.
    const lowered = path.join(path.dirname(target), path.basename(target).toLowerCase())
    const place = places.find((each) => isInsideRoot(each, target) || each === lowered)
    if (place !== undefined) {
      return {
        path: target,
        class: 'git',
        reason: `git keeps or runs ${place} for a repository in the workspace (a hooks folder or a config its config names)`,
      }
    }
  }
  return null
}

/**
 * The first of `resolved` (real paths) inside `workspace` that lies in a
 * git folder under a name the table does not know, or that makes one of
 * a folder it is written in; null if none does. Git run inside a folder
 * holding `HEAD`, `objects/` and `refs/` takes it for a bare repository
 * and runs what its config names (`core.fsmonitor`, its hooks), whatever
 * the folder is called. A path counts as the part it is or is in, so the
 * write that would complete the three is the one that asks, in whatever
 * order they come. A path that is such a folder counts too.
 */
function inGitFolderByShape(real: string, resolved: readonly string[]): PersonOnly | null {
  // Targets in one folder share its ancestors: each part is looked at once
  // in this judgment.
  const partPresent = partPresentOnce()
  for (const target of resolved) {
    if (target === real || !isInsideRoot(real, target)) continue
    // The target itself may be the git folder (`tar -C mirror -x`).
    for (let folder = target; isInsideRoot(real, folder);) {
      if (gitFolderShaped(folder, target, partPresent)) {
        return {
          path: target,
          class: 'git',
          reason: `${folder} is a git folder with it (a bare repository): git run there reads its config and runs its hooks`,
        }
      }
      if (folder === real) break
      folder = path.dirname(folder)
    }
  }
  return null
}

/**
 * The first of `resolved` outside every one of `reals` that lies in one of
 * git's places for the repository holding it, or in a git folder known by
 * its shape; null if none does. A write tool may reach a folder the person
 * widened the turn to, a webhook may allow a write outside the workspace,
 * and a command or an MCP call may name any path: another checkout's hooks
 * folder (`~/src/app/tools/hooks`, named by its own config) is as much
 * git's as the workspace's own.
 */
function inGitPlacesElsewhere(
  reals: ReadonlyArray<{ real: string | null }>,
  resolved: readonly string[],
): PersonOnly | null {
  const tops = reals.flatMap(({ real }) => (real === null ? [] : [real]))
  const outside = resolved.filter((target) => !tops.some((top) => isInsideRoot(top, target)))
  if (outside.length === 0) return null
  // Targets in one folder share its repository and its ancestors: each is
  // looked up once in this judgment.
  const partPresent = partPresentOnce()
  const repositories = new Map<string, GitPlaces | null>()
  for (const target of outside) {
    const folder = path.dirname(target)
    let git = repositories.get(folder)
    if (git === undefined) {
      git = gitPlacesOf(folder)
      repositories.set(folder, git)
    }
    const inGit = git === null ? null : inGitPlaces(git, [target])
    if (inGit !== null) return inGit
    for (let above = folder; ; above = path.dirname(above)) {
      if (gitFolderShaped(above, target, partPresent)) {
        return {
          path: target,
          class: 'git',
          reason: `${above} is a git folder with it (a bare repository): git run there reads its config and runs its hooks`,
        }
      }
      if (path.dirname(above) === above) break
    }
  }
  return null
}

/**
 * What git keeps and runs for the repository the workspace is in, and for
 * every repository nested inside the workspace that holds one of
 * `resolved` (a vendored checkout with a `.git` of its own, whose config
 * may name a hooks folder of its own): git runs those hooks when the
 * person commits there.
 */
function repositoriesHolding(
  workspace: string,
  real: string | null,
  resolved: readonly string[],
): GitPlaces[] {
  const out: GitPlaces[] = []
  const outer = gitPlacesOf(workspace)
  if (outer !== null) out.push(outer)
  if (real === null) return out
  const looked = new Set<string>()
  for (const target of resolved) {
    if (!isInsideRoot(real, target)) continue
    for (let folder = path.dirname(target); folder !== real; folder = path.dirname(folder)) {
      if (looked.has(folder) || !isInsideRoot(real, folder)) break
      looked.add(folder)
      if (!existsInTheMoment(path.join(folder, '.git'))) continue
      const nested = gitPlacesOf(folder)
      if (nested !== null) out.push(nested)
    }
  }
  return out
}

/** The first of `resolved` (real paths) that is one of git's places
 *  inside the repository git finds, with why; null if none is. */
function inGitPlaces(git: GitPlaces, resolved: readonly string[]): PersonOnly | null {
  const { gitFolder, commonFolder } = git
  const places: Array<[(real: string) => boolean, string]> = [
    // Named `.git`, the table has it already; under another name (a
    // `.git` file's `gitdir:`), only this finds it.
    [(real) => isInsideRoot(gitFolder, real), "it is in the repository's git folder"],
    [
      (real) => commonFolder !== null && isInsideRoot(commonFolder, real),
      "it is in the git folder the repository's worktrees share",
    ],
  ]
  for (const [holds, reason] of places) {
    const found = resolved.find(holds)
    if (found !== undefined) return { path: found, class: 'git', reason }
  }
  return inConfigPlaces(git, resolved)
}

/** The first of `resolved` (real paths) that is one of the places git's
 *  configs name (a hooks folder, a template folder, an included file, a
 *  program), with why; null if none is. */
function inConfigPlaces(places: ConfigPlaces, resolved: readonly string[]): PersonOnly | null {
  const { hooksFolders, templateFolders, programs, configFiles } = places
  const named: Array<[(real: string) => boolean, string]> = [
    [
      (real) => hooksFolders.some((folder) => isInsideRoot(folder, real)),
      'git runs the hooks in it (core.hooksPath)',
    ],
    [
      (real) => templateFolders.some((folder) => isInsideRoot(folder, real)),
      'git copies it, hooks and all, into every repository it makes (init.templateDir)',
    ],
    [
      (real) => configFiles.includes(real),
      'git reads it as configuration (an include, or core.attributesFile)',
    ],
  ]
  for (const [holds, reason] of named) {
    const found = resolved.find(holds)
    if (found !== undefined) return { path: found, class: 'git', reason }
  }
  // The file itself: a value also names folders (`!cd tools && make`,
  // `--file=~/.creds`), and everything in one is not what git runs.
  for (const program of programs) {
    const found = resolved.find((real) =>
      program.folder === true ? isInsideRoot(program.path, real) : real === program.path,
    )
    if (found === undefined) continue
    if (program.class === 'runs-later') {
      return {
        path: found,
        class: 'runs-later',
        reason: `${program.setting} names it as what runs without anyone being asked`,
      }
    }
    return { path: found, class: 'git', reason: `git runs it (${program.setting} names it)` }
  }
  return null
}

/** `gitFolderPartPresent`, each part looked at once in one judgment:
 *  targets in one folder share its ancestors. */
function partPresentOnce(): (part: string, isFolder: boolean) => boolean {
  const present = new Map<string, boolean>()
  return (part, isFolder) => {
    let found = present.get(part)
    if (found === undefined) {
      found = gitFolderPartPresent(part, isFolder)
      present.set(part, found)
    }
    return found
  }
}
