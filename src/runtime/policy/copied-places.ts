import { opendirSync } from 'node:fs'
import path from 'node:path'
import { copiesRun, type CopyRun } from './copy-destinations.ts'
import type { PersonOnly } from './person-only.ts'
import { isFolderNow, realPathAllowingMissing, type RealPathsSeen } from './real-paths.ts'
import { globMatches, hasGlob } from './shell-glob.ts'
import { wordSpellings } from './shell-words.ts'
import { childFolder, followLink, type WalkedFolder } from './walk-links.ts'

// The places a copy, a move or a link writes that none of its words names,
// for the person-only rule (named-paths.ts judges them with the paths the
// action names): `cp x dir/` writes `dir/x`, `cp -r tmpl/git ~/.config/`
// writes `~/.config/git/config`, `mv tmpl/autostart ~/.config/` every
// file under `~/.config/autostart`.

/** How many places (and entries of the folders copied) one action's
 *  copies may make to judge; past it the action asks. Each costs a real
 *  path looked up on the runtime's thread. */
export const MAX_COPIED_PLACES = 4_096

/**
 * Every place the command lines' copies, moves and links (copy-
 * destinations.ts) may write, as absolute paths, both as written from each
 * of `folders` (the folders relative paths are taken from) and as real
 * paths: for each source and each destination, the destination itself and
 * the destination with the source's name under it (whether it is a folder
 * when the command runs, which an earlier `mkdir` may change, is not known
 * now, so both are judged: that covers `-t` and `-T` too), with the
 * source's path under it for `cp --parents` and `rsync -R`; and for a
 * source that is a folder (or leads to one), each of those with every path
 * in the folder under it, its links to folders followed (a copied link
 * leads there from the destination, and a person's tools read through
 * it).
 *
 * Fails closed, with the reason: past `MAX_COPIED_PLACES`, or a folder in
 * a copied folder whose entries cannot be read (`mv` moves it whole), the
 * places cannot all be judged, and the person decides.
 */
export function copiedPlaces(
  readings: readonly { words: readonly string[] }[],
  folders: readonly string[],
  seen: RealPathsSeen,
): string[] | PersonOnly {
  const copies = copiesRun(readings)
  if (copies.length === 0) return []
  const places = new PlaceList(seen)
  for (const copy of copies) {
    const found = placesOfCopy(copy, folders, places)
    if (found !== null) return found
  }
  return places.paths
}

/** The paths found, each as written and as its real path, and how many
 *  more may be. */
class PlaceList {
  readonly paths: string[] = []
  budget = MAX_COPIED_PLACES
  readonly seen: RealPathsSeen
  constructor(seen: RealPathsSeen) {
    this.seen = seen
  }

  /** Adds `place` (absolute); false once past the budget. */
  add(place: string): boolean {
    if ((this.budget -= 1) < 0) return false
    this.paths.push(place)
    const real = realPathAllowingMissing(place, this.seen)
    if (real !== null && real !== place) this.paths.push(real)
    return true
  }
}

/** The places of one copy, added to `places`; why not all could be, or
 *  null. */
function placesOfCopy(
  copy: CopyRun,
  folders: readonly string[],
  places: PlaceList,
): PersonOnly | null {
  const overBudget = () => tooMany(copy.program)
  const destinations = namesOf(copy.destinations, folders, places)
  if (destinations === null) return overBudget()
  // A destination that is more than one name (`cp x {a,.vscode/}`, a glob
  // of several) is several words to the program, all but the last of
  // them sources: each is taken as both.
  const several = copy.destinations.length > 1 || destinations.length > 1
  const sources = namesOf(
    several ? [...copy.sources, ...copy.destinations] : copy.sources,
    folders,
    places,
  )
  if (sources === null) return overBudget()
  // A folder copied to several places is read once.
  const trees = new Map<string, ReturnType<typeof treeOf>>()
  for (const destination of destinations) {
    if (copy.remoteDestinations && /^[^/]*:/.test(destination.written)) continue
    for (const source of sources) {
      if (source.at === destination.at) continue
      const roots = [destination.at]
      for (const name of new Set([source.written, source.at].map((p) => path.basename(p)))) {
        if (name !== '.' && name !== '..' && name !== '')
          roots.push(path.join(destination.at, name))
      }
      if (copy.keepsPaths && !path.isAbsolute(source.written)) {
        roots.push(path.join(destination.at, source.written))
      }
      for (const root of roots) if (!places.add(root)) return overBudget()
      const from = copy.fromDestination ? [destination.at, path.dirname(destination.at)] : []
      const key = [source.at, ...from].join('\0')
      const tree = trees.get(key) ?? treeOf(source, from, places)
      trees.set(key, tree)
      if (tree === 'unlistable' || tree === 'over') {
        return tree === 'over' ? overBudget() : unlistable(source.at)
      }
      for (const root of roots) {
        for (const relative of tree) {
          if (!places.add(path.join(root, relative))) return overBudget()
        }
      }
    }
  }
  return null
}

/** A word as the program gets it: as written, and where it leads from one
 *  of the folders relative paths are taken from. */
interface Named {
  written: string
  at: string
}

/** Each word's names (its braces and a leading `~` as the shell makes
 *  them, a glob as what it matches), each from every folder; null past
 *  the budget. */
function namesOf(
  words: readonly string[],
  folders: readonly string[],
  places: PlaceList,
): Named[] | null {
  const out: Named[] = []
  const globBudget = { entries: places.budget }
  for (const word of words) {
    const spellings = wordSpellings(word)
    if (spellings === null) return null
    for (const name of new Set([word, ...spellings])) {
      for (const folder of folders) {
        const matches = hasGlob(name) ? globMatches(name, folder, globBudget) : []
        if (matches === null) return null
        for (const at of [path.resolve(folder, name), ...matches]) {
          if ((places.budget -= 1) < 0) return null
          out.push({ written: name, at })
        }
      }
    }
  }
  return out
}

/**
 * The paths in `source`'s folder (by its real path, whether the word
 * names the folder or a link to it), relative to it; none when it is no
 * folder. A link to a folder is followed, as deep as walk-links.ts reads
 * a loop. `from` are other folders a relative source is taken from (a
 * symbolic link's). 'over' past the budget, 'unlistable' for a folder
 * whose entries cannot be read.
 */
function treeOf(
  source: Named,
  from: readonly string[],
  places: PlaceList,
): string[] | 'over' | 'unlistable' {
  const ats = [source.at, ...from.map((folder) => path.resolve(folder, source.written))]
  const out: string[] = []
  for (const at of new Set(ats)) {
    const real = realPathAllowingMissing(at, places.seen)
    if (real === null || !isFolderNow(real)) continue
    const queue: WalkedFolder[] = [{ relative: '', at: real, above: [], levels: null }]
    for (let folder = queue.pop(); folder !== undefined; folder = queue.pop()) {
      let dir
      try {
        dir = opendirSync(folder.at)
      } catch {
        return 'unlistable'
      }
      try {
        for (let entry = dir.readSync(); entry !== null; entry = dir.readSync()) {
          if ((places.budget -= 1) < 0) return 'over'
          const relative = path.join(folder.relative, entry.name)
          out.push(relative)
          const next = entry.isDirectory()
            ? childFolder(folder, relative, entry.name)
            : entry.isSymbolicLink()
              ? followLink(folder, relative, path.join(folder.at, entry.name), ['/'])
              : null
          if (next !== null) queue.push(next)
        }
      } catch {
        return 'unlistable'
      } finally {
        dir.closeSync()
      }
    }
  }
  return out
}

function tooMany(program: string): PersonOnly {
  return {
    path: program,
    class: 'unwalked',
    reason: `it copies, moves or links more than ${MAX_COPIED_PLACES} paths, more than are checked for git folders and files that run code`,
  }
}

function unlistable(folder: string): PersonOnly {
  return {
    path: folder,
    class: 'unlistable',
    reason:
      'its entries cannot be read, so where the command copies, moves or links them cannot be checked',
  }
}
