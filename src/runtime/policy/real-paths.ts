import { existsSync, lstatSync, readlinkSync, realpathSync } from 'node:fs'
import path from 'node:path'

/** Real paths already looked up in one judgment: a path, and its real
 *  path or null when it was not there. */
export type RealPathsSeen = Map<string, string | null>

/** The real path of `absolute`, following links, with a missing tail
 *  appended as written; null if not even its folder resolves. `seen`
 *  keeps what one judgment looked up, so the paths it names (which share
 *  their folders) look each folder up once. */
export function realPathAllowingMissing(
  absolute: string,
  seen: RealPathsSeen = new Map(),
): string | null {
  let tail = ''
  let current = absolute
  for (let i = 0; i < 64; i += 1) {
    let real = seen.get(current)
    if (real === undefined) {
      real = realPathIfThere(current)
      seen.set(current, real)
    }
    if (real !== null) return tail === '' ? real : path.join(real, tail)
    const parent = path.dirname(current)
    if (parent === current) return null
    tail = tail === '' ? path.basename(current) : path.join(path.basename(current), tail)
    current = parent
  }
  return null
}

/** The real path of `absolute`, or null when nothing is there. */
function realPathIfThere(absolute: string): string | null {
  // A missing path (a file the action would create) is the common case:
  // asked without an exception first, which costs more than the lookup.
  if (!existsSync(absolute)) return null
  try {
    return realpathSync.native(absolute)
  } catch {
    // Gone since it was found: judged as missing, as it now is.
    return null
  }
}

/** Where the link `link` leads, as a real path, or null when it is no
 *  link. A link whose end is missing (`pre-commit -> ../../scripts/x`
 *  before `x` is made) leads to where its end would be, which
 *  `realPathAllowingMissing` does not give (it stops at the link): a
 *  command may make that end, and whatever follows the link then reads
 *  it. */
export function linkTarget(link: string): string | null {
  try {
    if (lstatSync(link, { throwIfNoEntry: false })?.isSymbolicLink() !== true) return null
    if (existsSync(link)) return realpathSync.native(link)
    return realPathAllowingMissing(path.resolve(path.dirname(link), readlinkSync(link)))
  } catch {
    // Gone, or no longer a link, since it was found: nothing leads on.
    return null
  }
}
