import { readlinkSync, realpathSync } from 'node:fs'
import path from 'node:path'
import {
  existsInTheMoment,
  keptForTheMoment,
  lstatOfTheMoment,
  realPathsOfTheMoment,
  statOfTheMoment,
} from './judgment-moment.ts'

/** Real paths already looked up in one judgment: a path, and its real
 *  path or null when it was not there. Unless given, the judgment's
 *  moment's (judgment-moment.ts). */
export type RealPathsSeen = Map<string, string | null>

/** How many links that lead nowhere yet one look-up follows: the kernel's
 *  own limit (ELOOP past 40), where a write through them fails too. */
const MAX_DANGLING_HOPS = 40

/**
 * The real path of `absolute` as a write to it would land: links followed,
 * a missing tail appended as written, and a link in that tail that leads
 * nowhere yet followed to where its end would be (`notes.txt ->
 * .git/hooks/pre-commit`: writing `notes.txt` makes the hook); null if not
 * even its folder resolves, or past `MAX_DANGLING_HOPS` such links. `seen`
 * keeps what one judgment looked up, so the paths it names (which share
 * their folders) look each folder up once.
 */
export function realPathAllowingMissing(
  absolute: string,
  seen: RealPathsSeen = realPathsOfTheMoment(),
): string | null {
  return realBelow(absolute, seen, 0)
}

/** The real path of `absolute` (links followed), or null when nothing is
 *  there: `realpathSync.native`, looked up once in a judgment's moment. */
export function realPathOf(
  absolute: string,
  seen: RealPathsSeen = realPathsOfTheMoment(),
): string | null {
  return lookedUp(path.resolve(absolute), seen)
}

function realBelow(absolute: string, seen: RealPathsSeen, hops: number): string | null {
  const missing: string[] = []
  let current = absolute
  for (let i = 0; i < 64; i += 1) {
    const real = lookedUp(current, seen)
    if (real !== null) return missing.length === 0 ? real : beyond(real, missing, seen, hops)
    const parent = path.dirname(current)
    if (parent === current) return null
    missing.unshift(path.basename(current))
    current = parent
  }
  return null
}

/**
 * The real paths (`realPathAllowingMissing`) `named` may be, taken from
 * the folder `base`: tidied first, as a program that normalizes a path
 * before it opens it takes it (Node's `path.resolve`, most MCP file
 * servers), and, where it holds a `..`, as the kernel takes it too, which
 * goes up from where a link before it leads: with `lnk -> .git/hooks/x`,
 * `cp` writes `lnk/../pre-commit` to `.git/hooks/pre-commit`, where the
 * tidied path is `pre-commit` at the top. Judged one way only, a door
 * answered for the hook.
 */
export function realPathsNamed(base: string, named: string, seen: RealPathsSeen): string[] {
  const tidied = realPathAllowingMissing(path.resolve(base, named), seen)
  const found = tidied === null ? [] : [tidied]
  if (!named.split(/[\\/]/).includes('..')) return found
  const asWritten = path.isAbsolute(named) ? named : `${base}${path.sep}${named}`
  const kernel = realPathAllowingMissing(asWritten, seen)
  return kernel === null || kernel === tidied ? found : [...found, kernel]
}

/**
 * Where the names `missing` lead below the real folder `real`, whose first
 * is not there as a file or folder: nothing there (the rest is made as
 * written), or a link that leads nowhere yet. A write follows that link
 * and makes its end, so the judgment follows it too, name by name from the
 * link's own folder as the kernel does (a `..` after a link goes up from
 * where that link leads, not from the name before it).
 */
function beyond(
  real: string,
  missing: readonly string[],
  seen: RealPathsSeen,
  hops: number,
): string | null {
  const [first = '', ...rest] = missing
  const at = path.join(real, first)
  // Each missing path's look-up ends here: in one moment, once per name.
  const target = keptForTheMoment('dangling-link', at, danglingTarget)
  if (target === null) return path.join(at, ...rest)
  if (hops >= MAX_DANGLING_HOPS) return null
  const start = path.isAbsolute(target) ? path.parse(target).root : real
  return walkNames(start, [...target.split(path.sep), ...rest], seen, hops + 1)
}

/** `names` taken one by one from the real folder `from`. */
function walkNames(
  from: string,
  names: readonly string[],
  seen: RealPathsSeen,
  hops: number,
): string | null {
  let folder = from
  for (const [index, name] of names.entries()) {
    if (name === '' || name === '.') continue
    if (name === '..') {
      folder = path.dirname(folder)
      continue
    }
    const real = lookedUp(path.join(folder, name), seen)
    if (real === null) return beyond(folder, names.slice(index), seen, hops)
    folder = real
  }
  return folder
}

function lookedUp(absolute: string, seen: RealPathsSeen): string | null {
  let real = seen.get(absolute)
  if (real === undefined) {
    const inKnownFolder = inFolderSeen(absolute, seen)
    real = inKnownFolder === undefined ? realPathIfThere(absolute) : inKnownFolder
    seen.set(absolute, real)
  }
  return real
}

/**
 * The real path of `absolute` when its folder's was already looked up in
 * this judgment: a name there that is no link is its own real path in
 * the real folder, one look at the name instead of one for each folder
 * above it. null when nothing is there; undefined when this cannot tell
 * (the folder not looked up, or not there, a link, a name such as `..`,
 * a look that fails), which `realPathIfThere` then resolves whole, as
 * the kernel would.
 */
function inFolderSeen(absolute: string, seen: RealPathsSeen): string | null | undefined {
  const realFolder = seen.get(path.dirname(absolute))
  const name = path.basename(absolute)
  if (typeof realFolder !== 'string' || name === '' || name === '.' || name === '..') {
    return undefined
  }
  const real = path.join(realFolder, name)
  try {
    const stats = lstatOfTheMoment(real)
    if (stats === undefined) return null
    return stats.isSymbolicLink() ? undefined : real
  } catch {
    // Not a folder after all, or not readable: resolved whole instead.
    return undefined
  }
}

/** What the link `at` holds, when it is a link that leads nowhere (a
 *  missing name is no link); null otherwise. */
function danglingTarget(at: string): string | null {
  try {
    if (lstatOfTheMoment(at)?.isSymbolicLink() !== true) return null
    return readlinkSync(at)
  } catch {
    // Gone, or no longer a link, since it was looked at: nothing to follow.
    return null
  }
}

/** The real path of `absolute`, or null when nothing is there. */
function realPathIfThere(absolute: string): string | null {
  // A missing path (a file the action would create) is the common case:
  // asked without an exception first, which costs more than the lookup.
  if (!existsInTheMoment(absolute)) return null
  try {
    return realpathSync.native(absolute)
  } catch {
    // Gone since it was found: judged as missing, as it now is.
    return null
  }
}

/** Where the link `link` leads, as a real path, or null when it is no
 *  link. A link whose end is missing (`pre-commit -> ../../scripts/x`
 *  before `x` is made) leads to where its end would be: a command may make
 *  that end, and whatever follows the link then reads it. */
export function linkTarget(
  link: string,
  seen: RealPathsSeen = realPathsOfTheMoment(),
): string | null {
  try {
    if (lstatOfTheMoment(link)?.isSymbolicLink() !== true) return null
  } catch {
    // Gone since it was found: nothing leads on.
    return null
  }
  return realPathAllowingMissing(link, seen)
}

/** Whether `real` is a folder now, or leads to one; a name too long or
 *  unreadable is not one (it is still judged as a path). */
export function isFolderNow(real: string): boolean {
  try {
    return statOfTheMoment(real)?.isDirectory() === true
  } catch {
    return false
  }
}
