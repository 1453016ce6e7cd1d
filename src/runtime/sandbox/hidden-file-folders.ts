import { readdirSync, readlinkSync } from 'node:fs'
import path from 'node:path'

/** How many entries a folder holding a hidden file may have for each to be
 *  shown to the command; one with more is hidden whole. A home folder has
 *  a few hundred at most; each entry costs bubblewrap one mount. */
export const MAX_SHOWN_ENTRIES = 4096

/** One entry of a folder the command sees a copy of: bound read-only from
 *  the real one, a link as it reads, or empty in place of a hidden one. */
export type ShownEntry =
  | { name: string; as: 'bound' }
  | { name: string; as: 'link'; target: string }
  | { name: string; as: 'empty-file' }
  | { name: string; as: 'empty-folder' }

/**
 * A folder that holds a hidden file, as the command sees it: a read-only
 * folder of its own, with the real one's entries each in it (`entries`),
 * or with none (`entries: null`, hidden whole).
 *
 * Why not a mount over the hidden file alone: a mount sits on the folder's
 * entry for the file, and when something outside the sandbox replaces the
 * file the usual safe way (a new file renamed over it: git's lock files,
 * an editor's save, Assent's own private writes), the kernel takes that
 * mount away in the command's namespace, and a command still running reads
 * the new file, secret and all. In a folder of the command's own, the
 * empty file stands on an entry no one outside can rename over.
 */
export interface HiddenFileFolder {
  path: string
  entries: ShownEntry[] | null
}

/**
 * The folders of the hidden files (`hidden`, real paths) to show as
 * copies, parents before what they hold. Left out: a folder inside a
 * writable root or a private scratch folder, which the command's own
 * mounts provide (a hidden file there stays hidden by a mount over it:
 * docs/security-model.md, the sandbox's limits). A folder that cannot be
 * listed, or that holds more than `MAX_SHOWN_ENTRIES`, is hidden whole:
 * what is not known to be safe to show is not shown.
 */
export function hiddenFileFolders(
  hidden: ReadonlyArray<{ path: string; kind: 'folder' | 'file' }>,
  keptOut: readonly string[],
): HiddenFileFolder[] {
  const inside = (folder: string, root: string) =>
    folder === root || folder.startsWith(root === '/' ? root : root + path.sep)
  const folders = [
    ...new Set(
      hidden.filter((entry) => entry.kind === 'file').map((entry) => path.dirname(entry.path)),
    ),
  ].filter((folder) => !keptOut.some((root) => inside(folder, root)))
  const kinds = new Map(hidden.map((entry) => [entry.path, entry.kind]))
  return folders
    .sort((a, b) => a.length - b.length || a.localeCompare(b))
    .map((folder) => ({ path: folder, entries: shownEntries(folder, kinds) }))
}

function shownEntries(
  folder: string,
  hidden: ReadonlyMap<string, 'folder' | 'file'>,
): ShownEntry[] | null {
  let listed
  try {
    listed = readdirSync(folder, { withFileTypes: true })
  } catch {
    return null
  }
  if (listed.length > MAX_SHOWN_ENTRIES) return null
  return listed
    .map((entry): ShownEntry => {
      const kind = hidden.get(path.join(folder, entry.name))
      if (kind === 'file') return { name: entry.name, as: 'empty-file' }
      if (kind === 'folder') return { name: entry.name, as: 'empty-folder' }
      if (!entry.isSymbolicLink()) return { name: entry.name, as: 'bound' }
      try {
        return { name: entry.name, as: 'link', target: readlinkSync(path.join(folder, entry.name)) }
      } catch {
        // Gone, or replaced by something else, since it was listed: shown
        // empty rather than as whatever is there now.
        return { name: entry.name, as: 'empty-file' }
      }
    })
    .sort((a, b) => a.name.localeCompare(b.name))
}
