import { constants, lstatSync, type BigIntStats } from 'node:fs'

/**
 * What is at `candidate`, as one string, or null when nothing is: its kind,
 * device, inode and birth time. The inode alone does not tell: a file
 * removed and made again commonly gets the same number at once (ext4
 * does). Where the file system keeps no birth time, a file's or link's
 * change time stands in (the sandbox keeps what exists read-only, so only
 * a new one has a new one; the person editing it meanwhile also moves it
 * aside, which is reported). A path that cannot be looked at (too long)
 * is `unknown`: one that was unknown at start and still is cannot be told
 * apart, as before identities were compared; one that was not there and
 * now is unknown is new.
 */
export function identityOf(candidate: string): string | null {
  let stats: BigIntStats
  try {
    stats = lstatSync(candidate, { bigint: true })
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'ENOTDIR') return null
    return 'unknown'
  }
  const kind = stats.mode & BigInt(constants.S_IFMT)
  const born =
    stats.birthtimeNs !== 0n
      ? `b${stats.birthtimeNs}`
      : stats.isDirectory()
        ? 'b?'
        : `c${stats.ctimeNs}`
  return `${kind}:${stats.dev}:${stats.ino}:${born}`
}
