import { existsSync, readdirSync } from 'node:fs'
import path from 'node:path'

// A shell's globs, matched as bash matches them against what exists, for
// the person-only rule's reading of a command (shell-words.ts): `.gi?`
// and `.gi[t]` are `.git`.

/** Whether `word` has a glob character a shell would expand. */
export function hasGlob(word: string): boolean {
  return /[*?[]/.test(word)
}

/**
 * The existing paths a shell's glob `pattern` names, taken from `base`
 * when relative, as bash matches them by default: `*`, `?` and `[…]`
 * within one segment, and never a name's leading `.` but by a literal
 * `.` (so `*` is not `.git`, `.g*` is). Reads at most `budget.entries`
 * folder entries across calls; null once that is spent (the caller asks).
 * A pattern that names nothing is what bash would pass on as written,
 * which the caller checks as written.
 */
export function globMatches(
  pattern: string,
  base: string,
  budget: { entries: number },
): string[] | null {
  const absolute = path.resolve(base, pattern)
  const segments = absolute.split(path.sep).filter((segment) => segment !== '')
  let current = [path.parse(absolute).root]
  for (const segment of segments) {
    if (!hasGlob(segment)) {
      current = current.map((folder) => path.join(folder, segment))
      continue
    }
    const matcher = segmentMatcher(segment)
    const next: string[] = []
    for (const folder of current) {
      let names: string[]
      try {
        names = readdirSync(folder)
      } catch {
        // A folder that cannot be read is one the shell cannot expand into
        // either; the word is still checked as written by the caller.
        continue
      }
      budget.entries -= names.length
      if (budget.entries < 0) return null
      for (const name of names) if (matcher(name)) next.push(path.join(folder, name))
    }
    current = next
    if (current.length === 0) return []
  }
  // Only a pattern whose every part exists is expanded; otherwise the shell
  // passes it on as written.
  return current.filter((match) => existsSync(match))
}

/** One piece of a glob segment: a literal character, `?`, `*`, or a
 *  bracket class as a test of one character. */
/** Whether the one-segment glob `pattern` matches `name`, as bash
 *  matches it. */
export function globMatchesName(pattern: string, name: string): boolean {
  return segmentMatcher(pattern)(name)
}

type GlobPiece = { any: true } | { star: true } | { test: (char: string) => boolean }

/** One glob segment as a test of a name, with bash's rule for a leading
 *  dot; matched without backtracking, in time linear in the name for each
 *  piece, so no pattern costs more than the names it reads. */
function segmentMatcher(segment: string): (name: string) => boolean {
  const pieces: GlobPiece[] = []
  for (let i = 0; i < segment.length; i += 1) {
    const char = segment[i] ?? ''
    if (char === '*') {
      if (!('star' in (pieces.at(-1) ?? {}))) pieces.push({ star: true })
    } else if (char === '?') {
      pieces.push({ any: true })
    } else if (char === '[') {
      const parsed = bracketClass(segment, i)
      if (parsed === null) pieces.push({ test: (c) => c === '[' })
      else {
        pieces.push({ test: parsed.test })
        i = parsed.end
      }
    } else pieces.push({ test: (c) => c === char })
  }
  const dotLiteral = segment.startsWith('.')
  return (name) => (name.startsWith('.') && !dotLiteral ? false : wildcardMatch(pieces, name))
}

/** The bracket class at `segment[open]`, or null when it does not close
 *  (bash then reads `[` as itself). A POSIX class inside (`[:alpha:]`,
 *  `[=i=]`, `[.i.]`) matches any character: it is never narrower than what
 *  bash matches. A range out of order matches nothing, as in bash. */
function bracketClass(
  segment: string,
  open: number,
): { test: (char: string) => boolean; end: number } | null {
  let i = open + 1
  const negated = segment[i] === '!' || segment[i] === '^'
  if (negated) i += 1
  const tests: Array<(char: string) => boolean> = []
  let first = true
  for (; i < segment.length; i += 1) {
    const char = segment[i] ?? ''
    if (char === ']' && !first) {
      return {
        test: (c) => tests.some((one) => one(c)) !== negated,
        end: i,
      }
    }
    first = false
    if (char === '[' && /[:=.]/.test(segment[i + 1] ?? '')) {
      const kind = segment[i + 1]
      const close = segment.indexOf(`${kind}]`, i + 2)
      if (close === -1) return null
      tests.push(() => true)
      i = close + 1
    } else if (segment[i + 1] === '-' && segment[i + 2] !== undefined && segment[i + 2] !== ']') {
      const low = char
      const high = segment[i + 2] ?? ''
      tests.push((c) => c >= low && c <= high)
      i += 2
    } else {
      tests.push((c) => c === char)
    }
  }
  return null
}

/** Whether `name` matches `pieces` as a whole: the classic greedy match
 *  with one remembered star, which never backtracks further than the last
 *  star, so it runs in O(pieces × name). */
function wildcardMatch(pieces: readonly GlobPiece[], name: string): boolean {
  let p = 0
  let n = 0
  let starAt = -1
  let starName = 0
  while (n < name.length) {
    const piece = pieces[p]
    if (piece !== undefined && 'star' in piece) {
      starAt = p
      starName = n
      p += 1
    } else if (piece !== undefined && ('any' in piece || piece.test(name[n] ?? ''))) {
      p += 1
      n += 1
    } else if (starAt !== -1) {
      p = starAt + 1
      starName += 1
      n = starName
    } else {
      return false
    }
  }
  while (p < pieces.length && 'star' in (pieces[p] ?? {})) p += 1
  return p === pieces.length
}
