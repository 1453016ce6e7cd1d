import { readdirSync, statSync, type BigIntStats } from 'node:fs'
import { regularFileText } from './regular-file-text.ts'

/**
 * How long before it is read a file must have last changed for what was
 * read from it to be kept. A file's times come from a clock that moves in
 * ticks (a few milliseconds on Linux, two seconds on FAT): a change made
 * in the same tick as the one before it, to the same size, leaves the
 * file's size and times as they were. A file last changed this long before
 * the read can no longer be changed in that tick, so any later change
 * shows in its change time (which no program sets at will: `utimes` sets
 * the modification time, and the change time moves with it).
 */
export const SETTLED_MS = 5_000

/** How many files' readings are kept: every config git reads for a
 *  handful of repositories, with room to spare. */
const MAX_KEPT = 256

interface Kept<T> {
  identity: string
  value: T
}

/**
 * What was read from files that have not changed since, by their path:
 * each reading kept with the identity of the file it came from (device,
 * inode, size, modification and change times, to the nanosecond), and
 * handed out again only while a stat of the path finds that same identity.
 * Files read at every judgment (git's configs) then cost one stat instead
 * of an open, reads and a parse.
 *
 * A reading is kept only for a regular file that had settled before it
 * was read (`SETTLED_MS`), so a change after the reading always shows as
 * another identity, never as the same. Anything the stat cannot tell
 * (the path gone, not a regular file, a stat that fails) is read again as
 * if nothing were kept, by `regularFileText`, which never waits on a pipe.
 */
export class SettledFileCache<T> {
  private readonly settled: Settled<T>

  constructor(parse: (text: string) => T, now: () => number = Date.now) {
    this.settled = new Settled(
      (stats) => stats.isFile(),
      (file) => parse(regularFileText(file)),
      now,
    )
  }

  /** The parsed text of `file`, or null when it is not there or cannot be
   *  read as a regular file (a folder, a pipe, a read that fails): such a
   *  file names nothing, as a config git cannot read names nothing. */
  read(file: string): T | null {
    return this.settled.read(file)
  }
}

/**
 * The names in folders that have not changed since they were listed, as
 * `SettledFileCache` keeps files' readings: a folder's modification and
 * change times move whenever a name in it is made, removed or renamed, so
 * a folder listed at every judgment (a repository's top, for the configs
 * in it) costs one stat while it keeps the same identity.
 */
export class SettledFolderCache {
  private readonly settled: Settled<string[]>

  /** Only the names `keep` accepts are kept and handed out: a workspace's
   *  top may hold thousands, of which a caller wants a few (a tool's
   *  config), and a listing kept whole would grow with the workspace. */
  constructor(now: () => number = Date.now, keep: (name: string) => boolean = () => true) {
    this.settled = new Settled(
      (stats) => stats.isDirectory(),
      (folder) => readdirSync(folder).filter(keep),
      now,
    )
  }

  /** The names in `folder`, or null when it is not there or cannot be
   *  listed. */
  read(folder: string): string[] | null {
    return this.settled.read(folder)
  }
}

/** What both caches share: a reading kept by the identity of what it was
 *  read from, of the kind `keepable` accepts, once that had settled. */
class Settled<T> {
  private readonly kept = new Map<string, Kept<T>>()
  private readonly keepable: (stats: BigIntStats) => boolean
  private readonly load: (at: string) => T
  private readonly now: () => number

  constructor(
    keepable: (stats: BigIntStats) => boolean,
    load: (at: string) => T,
    now: () => number,
  ) {
    this.keepable = keepable
    this.load = load
    this.now = now
  }

  read(file: string): T | null {
    // Taken before the stat: a change after this moment has a change time
    // at or after it (less a tick), later than any settled one.
    const before = BigInt(this.now()) * 1_000_000n
    let stats: BigIntStats | undefined
    try {
      stats = statSync(file, { bigint: true, throwIfNoEntry: false })
    } catch {
      return null
    }
    if (stats === undefined) {
      this.kept.delete(file)
      return null
    }
    const identity = this.keepable(stats) ? identityOf(stats) : null
    const kept = this.kept.get(file)
    if (identity !== null && kept?.identity === identity) return kept.value
    this.kept.delete(file)
    let value: T
    try {
      value = this.load(file)
    } catch {
      return null
    }
    // The stat's identity is the file's as it was before the read: if it
    // changed in between, the next stat finds another one and reads again.
    const settled = stats.ctimeNs < before - BigInt(SETTLED_MS) * 1_000_000n
    if (identity !== null && settled) this.keep(file, { identity, value })
    return value
  }

  private keep(file: string, kept: Kept<T>): void {
    if (this.kept.size >= MAX_KEPT) {
      const oldest = this.kept.keys().next().value
      if (oldest !== undefined) this.kept.delete(oldest)
    }
    this.kept.set(file, kept)
  }
}

function identityOf(stats: BigIntStats): string {
  return `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}`
}
