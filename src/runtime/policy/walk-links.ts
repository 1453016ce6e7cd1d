import { realpathSync, statSync } from 'node:fs'
import path from 'node:path'
import { isInsideRoot } from './path-containment.ts'
import { LONGEST_FOLDER_RULE_SEGMENTS } from './sensitive-paths.ts'

// How the sandbox's walk (read-only-walk.ts) goes through a symbolic link
// to a folder. An editor, CI or git reads `.vscode/tasks.json` through a
// link `.vscode -> editor/vscode` as if the link were the folder, so what
// is under it is judged by the link's name, and kept at its real path
// (which is what a bind or a rename acts on).

/** One folder the walk reads: `relative` is the path its entries are
 *  judged by (links' names in it, as the person's tools read it), `at`
 *  its real path. */
export interface WalkedFolder {
  relative: string
  at: string
  /** The real folders a link was followed from on the way here, the
   *  walk's root first: a link leading to one of them, or to a folder
   *  holding one, goes round in a loop. */
  above: readonly string[]
  /** How many levels below this folder are still read, or null for all:
   *  set once the way here went through a loop (`followLink`). */
  levels: number | null
}

/**
 * How many levels under a link that loops (`a/self -> ..`) are read: the
 * longest run of folder names a rule of the table spans. A loop repeats
 * what the walk reads anyway under its own names; the only paths it adds
 * that a rule could match are runs of names that start in the link's own
 * path and reach at most that many levels past it (a rule matching a run
 * wholly below the link matches the same run where the walk read it
 * already, and name rules look at the last name alone). Reading those
 * levels judges every such path; reading on would go round forever.
 */
export const LOOP_LEVELS = LONGEST_FOLDER_RULE_SEGMENTS

/** The folder a child folder of `parent` named `name` is read as, or null
 *  when it is past the levels read. */
export function childFolder(
  parent: WalkedFolder,
  relative: string,
  name: string,
): WalkedFolder | null {
  const levels = parent.levels === null ? null : parent.levels - 1
  if (levels !== null && levels <= 0) return null
  return { relative, at: path.join(parent.at, name), above: parent.above, levels }
}

/**
 * The folder the link `link` (an entry of `parent`, judged as `relative`)
 * is read as, or null when it leads to no folder inside `roots` (a file is
 * judged by the link's own name; a folder outside every root is not one a
 * contained command may write). A link that loops is read `LOOP_LEVELS`
 * deep, never more, so the walk ends; each level counts against its limit
 * of entries as any other does.
 */
export function followLink(
  parent: WalkedFolder,
  relative: string,
  link: string,
  roots: readonly string[],
): WalkedFolder | null {
  let target: string
  try {
    if (statSync(link, { throwIfNoEntry: false })?.isDirectory() !== true) return null
    target = realpathSync.native(link)
  } catch {
    // Gone, or leading nowhere, since its folder was read: nothing there.
    return null
  }
  if (!roots.some((root) => isInsideRoot(root, target))) return null
  const above = [...parent.above, parent.at]
  const loops = above.some((folder) => isInsideRoot(target, folder))
  const inherited = parent.levels === null ? null : parent.levels - 1
  if (inherited !== null && inherited <= 0) return null
  const levels = loops ? Math.min(inherited ?? LOOP_LEVELS, LOOP_LEVELS) : inherited
  return { relative, at: target, above, levels }
}
