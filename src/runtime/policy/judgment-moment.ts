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

interface Moment {
  realPaths: RealPathsSeen
  memos: Map<string, Map<string, unknown>>
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
  current = { realPaths: new Map(), memos: new Map() }
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
