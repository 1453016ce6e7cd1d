import { readdirSync, type Dirent } from 'node:fs'
import path from 'node:path'
import { ASSENT_OWN_WHY, assentOwnPathIn } from './assent-own-paths.ts'
import { keptForTheMoment } from './judgment-moment.ts'
import { isInsideRoot } from './path-containment.ts'
import { READ_ONLY_WALK_ENTRIES } from './read-only-walk.ts'
import { isFolderNow, linkTarget } from './real-paths.ts'
import { childFolder, followLink, type WalkedFolder } from './walk-links.ts'

// The walk every door makes of a folder a read may take whole: a server's
// `search_files` or `directory_tree`, `grep -R`, `tar ch`. Such a read goes
// through every symbolic link in the folder, wherever the link is
// (`node_modules` too: `npm link` and pnpm leave links there, and a cloned
// repository may carry one), so each is found and told where it leads.
// The walk of the sandbox (read-only-walk.ts) looks for what a command may
// write and leaves `node_modules` out; this one looks only for links, and
// leaves nothing out.

/** How many folder entries one walk reads at most. */
export const FOLDER_LINKS_ENTRIES = READ_ONLY_WALK_ENTRIES

/** What a walk of folders found. */
export interface FolderLinks {
  /** Each symbolic link met, and the real path it leads to (where its end
   *  would be, when missing), or null when that cannot be found. */
  links: { link: string; target: string | null }[]
  /** The folders walked, when the walk stopped at its limit, or null:
   *  what lies past it is not known. */
  truncated: string | null
  /** A folder whose entries could not be read, or null: what is in it is
   *  not known, and a program run by the person's user may still go in. */
  unlistable: string | null
}

/**
 * The symbolic links in `folders` (real paths of folders) and in every
 * folder a link among them leads to inside `roots` (real paths): a link to
 * a folder inside is followed (`reports -> ../build` holding `k ->
 * ~/.ssh`), a loop read only as deep as walk-links.ts allows, so the walk
 * ends. Shared by the rules of one judgment (`keptForTheMoment`).
 */
export function linksInFolders(
  folders: readonly string[],
  roots: readonly string[],
  limit: number = FOLDER_LINKS_ENTRIES,
): FolderLinks {
  const key = JSON.stringify([[...folders].sort(), [...roots].sort(), limit])
  return keptForTheMoment('folder-links', key, () => walk(folders, roots, limit))
}

function walk(folders: readonly string[], roots: readonly string[], limit: number): FolderLinks {
  const links: FolderLinks['links'] = []
  let seen = 0
  let level: WalkedFolder[] = folders.map((at) => ({ relative: '', at, above: [], levels: null }))
  const read = new Set<string>()
  while (level.length > 0) {
    const next: WalkedFolder[] = []
    for (const walked of level) {
      // A folder two of `folders` share, or one a link leads back to
      // without a loop (two links to one folder), is read once.
      if (walked.levels === null && read.has(walked.at)) continue
      read.add(walked.at)
      let entries: Dirent[]
      try {
        entries = readdirSync(walked.at, { withFileTypes: true })
      } catch (error) {
        // Gone, or no longer a folder, since it was found: nothing is
        // there. Any other failure leaves what it holds unknown.
        const code = (error as NodeJS.ErrnoException).code
        if (code === 'ENOENT' || code === 'ENOTDIR') continue
        return { links, truncated: null, unlistable: walked.at }
      }
      seen += entries.length
      if (seen > limit) return { links, truncated: folders.join(', '), unlistable: null }
      for (const entry of entries) {
        const child = path.join(walked.relative, entry.name)
        if (entry.isDirectory()) {
          const inner = childFolder(walked, child, entry.name)
          if (inner !== null) next.push(inner)
          continue
        }
        if (!entry.isSymbolicLink()) continue
        const link = path.join(walked.at, entry.name)
        links.push({ link, target: linkTarget(link) })
        const inner = followLink(walked, child, link, roots)
        if (inner !== null) next.push(inner)
      }
    }
    level = next
  }
  return { links, truncated: null, unlistable: null }
}

/**
 * Why a read that may take the folders among `resolved` whole reaches
 * past `roots` (real paths: the workspace, and a server's own folder
 * counted inside), or null: a link in one leads outside them, or to
 * nothing that can be resolved, or the folder is too large, or holds a
 * folder that cannot be listed, for the walk to tell. Fails closed: what
 * the walk could not see counts as reaching out, so the person is asked.
 */
export function folderReadReachesOut(
  resolved: readonly string[],
  roots: readonly string[],
): string | null {
  const folders = [...new Set(resolved)].filter(isFolderNow)
  if (folders.length === 0) return null
  const found = linksInFolders(folders, roots)
  for (const { link, target } of found.links) {
    if (target === null) return `${link} is a symbolic link whose end cannot be resolved`
    if (!roots.some((root) => isInsideRoot(root, target))) {
      return `${link} leads outside the workspace, to ${target}; a read of the folder that follows links reads it`
    }
    // Assent's data kept inside the workspace is no more the agent's.
    if (assentOwnPathIn([target]) !== null) return `${link} leads to ${target}: ${ASSENT_OWN_WHY}`
  }
  if (found.truncated !== null) {
    return `${found.truncated} holds more than ${FOLDER_LINKS_ENTRIES} entries, more than are checked for links leading outside the workspace`
  }
  if (found.unlistable !== null) {
    return `${found.unlistable} cannot be listed, so it cannot be checked for links leading outside the workspace`
  }
  return null
}
