import { readdirSync, realpathSync, type Dirent } from 'node:fs'
import path from 'node:path'
import { bareGitPlacesOf, GIT_FOLDER_PARTS, gitPlacesOf } from './git-hooks-folder.ts'
import { isInsideRoot } from './path-containment.ts'
import { sensitivePath } from './sensitive-paths.ts'

/** How many folder entries `personOnlyPathsIn` reads at most. */
export const READ_ONLY_WALK_ENTRIES = 20_000

/** Folders the walk does not go into: package managers' install folders,
 *  large, rebuilt at will, and never given a git folder of their own (a
 *  dependency from git is installed packed). A `.git` an agent makes in
 *  one is not one the person runs git in. */
const NOT_WALKED = new Set(['node_modules'])

/**
 * The paths inside `workspace` that the command sandbox keeps read-only:
 * every file or folder the table covers, found at any depth by a walk of
 * the workspace (a match is not descended into, nor `node_modules`), and
 * what git keeps and runs for the repository, for every repository
 * nested in it (`gitPlacesOf`) and for every bare one (`bareGitPlacesOf`). Real paths,
 * so the sandbox binds what is really there; links are not followed, so
 * the walk stays inside. `truncated` says the walk stopped at
 * `READ_ONLY_WALK_ENTRIES` entries: what lies past it is not kept
 * read-only, so a command in such a workspace always needs the person
 * (`personOnlyReason`), who is told why.
 */
export function personOnlyPathsIn(workspace: string): { paths: string[]; truncated: boolean } {
  let real: string
  try {
    real = realpathSync.native(workspace)
  } catch {
    return { paths: [], truncated: false }
  }
  const out = new Set<string>()
  let seen = 0
  let truncated = false
  const nested: string[] = []
  const bare: string[] = []
  let level: string[] = ['']
  while (level.length > 0 && !truncated) {
    const next: string[] = []
    for (const relative of level) {
      let entries: Dirent[]
      try {
        entries = readdirSync(path.join(real, relative), { withFileTypes: true })
      } catch {
        continue
      }
      seen += entries.length
      if (seen > READ_ONLY_WALK_ENTRIES) {
        truncated = true
        break
      }
      // A git folder under a name the table does not know (a bare
      // repository): git run inside it runs what its config names. It is
      // kept whole, as `.git` is, and not gone into.
      if (relative !== '' && shapedLikeGitFolder(entries)) {
        out.add(path.join(real, relative))
        bare.push(path.join(real, relative))
        continue
      }
      for (const entry of entries) {
        const child = relative === '' ? entry.name : path.join(relative, entry.name)
        if (sensitivePath(child) !== null) out.add(path.join(real, child))
        else if (entry.isDirectory() && !NOT_WALKED.has(entry.name)) next.push(child)
        // A repository nested in the workspace has git places of its own
        // (a hooks folder its config names under an innocent name).
        // Lower-cased: a case-insensitive file system opens `.GIT` as `.git`.
        if (relative !== '' && entry.name.toLowerCase() === '.git') {
          nested.push(path.join(real, relative))
        }
      }
    }
    level = next
  }
  // A bare repository's config may name a hooks folder (or include a
  // file) outside it, as a nested repository's may.
  const repositories = [
    ...[real, ...nested].map((top) => gitPlacesOf(top)),
    ...bare.map((folder) => bareGitPlacesOf(folder)),
  ]
  for (const git of repositories) {
    if (git === null) continue
    const places = [git.gitFolder, git.hooksFolder, ...git.configFiles]
    for (const place of places) {
      if (place !== null && place !== real && isInsideRoot(real, place)) out.add(place)
    }
  }
  return { paths: [...out].sort(), truncated }
}

/** Whether a folder's entries are what git takes for a git folder
 *  (GIT_FOLDER_PARTS); a link counts as whatever it may point to. */
function shapedLikeGitFolder(entries: readonly Dirent[]): boolean {
  return GIT_FOLDER_PARTS.every(({ name, folder }) =>
    entries.some(
      (entry) => entry.name === name && (entry.isSymbolicLink() || entry.isDirectory() === folder),
    ),
  )
}
