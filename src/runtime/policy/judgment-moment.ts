import { existsSync, lstatSync, statSync, type Stats } from 'node:fs'
import path from 'node:path'
import type { RealPathsSeen } from './real-paths.ts'

// What one judgment looked up on disk, shared by the rules it runs. A door
// judges an action by several rules in one go (the person-only rule, the
// private-read rule, Assent's own files), and each resolves the same
// paths and reads the same repository's places: inside one moment, each
// look-up is made once.
//
// A moment is synchronous: nothing else of this process runs inside it,
// so what it found is what the rules would each have found, one system
// call later. It ends when the function it wraps returns; a judgment made
// after an `await` (once the person answered, right before the call runs)
// looks everything up again.

/** What one look at a name gave: its status (undefined when nothing is
 *  there), or the error the look threw, thrown again for the next. */
type Looked = { stats: Stats | undefined } | { error: unknown }

interface Moment {
  realPaths: RealPathsSeen
  memos: Map<string, Map<string, unknown>>
  /** Looks at a name itself (a link not followed), and through it. */
  lstats: Map<string, Looked>
  stats: Map<string, Looked>
}

let current: Moment | null = null

/**
 * Runs `judge` as one moment: every look-up inside it (real paths, and
 * what `keptForTheMoment` keeps) is shared, and forgotten when it returns
 * or throws. A moment inside another is part of it. `judge` must not be
 * asynchronous: what it awaited would be judged outside the moment, with
 * look-ups of its own, so a promise it returns is refused, as a caller
 * that meant one moment would otherwise get several without noticing.
 */
export function inOneMoment<T>(judge: () => T): T {
  if (current !== null) return judge()
  current = { realPaths: new Map(), memos: new Map(), lstats: new Map(), stats: new Map() }
  try {
    const result = judge()
    if (result instanceof Promise) throw new TypeError('a judgment moment must be synchronous')
    return result
  } finally {
    current = null
  }
}

/** The real paths looked up in this moment, or a table of its own for a
 *  look-up made outside any. */
export function realPathsOfTheMoment(): RealPathsSeen {
  return current?.realPaths ?? new Map()
}

/**
 * `find(key)`, found once in this moment for each `key` of `kind` (the
 * git places of a repository, found for each rule that asks); found
 * afresh outside any moment.
 */
export function keptForTheMoment<T>(kind: string, key: string, find: (key: string) => T): T {
  if (current === null) return find(key)
  let memo = current.memos.get(kind)
  if (memo === undefined) {
    memo = new Map()
    current.memos.set(kind, memo)
  }
  if (memo.has(key)) return memo.get(key) as T
  const found = find(key)
  memo.set(key, found)
  return found
}

/**
 * `lstatSync(file, { throwIfNoEntry: false })`, looked at once in this
 * moment: the rules of one judgment look at the same names (each word of
 * an action, in each place it may name), and a second look inside one
 * synchronous moment would only repeat the first. An error is thrown
 * again as it was thrown, so every caller fails as it would have.
 */
export function lstatOfTheMoment(file: string): Stats | undefined {
  if (current === null) return lstatSync(file, { throwIfNoEntry: false })
  if (inMissingFolder(current, file)) return undefined
  return replayed(current.lstats, file, () => lstatSync(file, { throwIfNoEntry: false }))
}

/** `statSync(file, { throwIfNoEntry: false })` (a link followed), looked
 *  at once in this moment; a name already looked at that is no link, or
 *  is not there, answers for itself without a second look. */
export function statOfTheMoment(file: string): Stats | undefined {
  if (current === null) return statSync(file, { throwIfNoEntry: false })
  const own = current.lstats.get(file)
  if (own !== undefined && 'stats' in own && own.stats?.isSymbolicLink() !== true) return own.stats
  if (inMissingFolder(current, file)) return undefined
  return replayed(current.stats, file, () => statSync(file, { throwIfNoEntry: false }))
}

/** Whether something is at `file`, a link followed (`existsSync`): a look
 *  that fails says nothing is there, as `existsSync` does. */
export function existsInTheMoment(file: string): boolean {
  if (current === null) return existsSync(file)
  try {
    return statOfTheMoment(file) !== undefined
  } catch {
    return false
  }
}

function replayed(seen: Map<string, Looked>, file: string, look: () => Stats | undefined) {
  let looked = seen.get(file)
  if (looked === undefined) {
    try {
      looked = { stats: look() }
    } catch (error) {
      looked = { error }
    }
    seen.set(file, looked)
  }
  if ('error' in looked) throw looked.error
  return looked.stats
}

/** Whether the folder `file` is in was looked at in this moment and is
 *  not there: nothing is then below it either (the kernel says ENOENT for
 *  the first missing name on the way, which a look reports as nothing). */
function inMissingFolder(moment: Moment, file: string): boolean {
  const folder = path.dirname(file)
  if (folder === file) return false
  const looked = moment.lstats.get(folder) ?? moment.stats.get(folder)
  return looked !== undefined && 'stats' in looked && looked.stats === undefined
}
