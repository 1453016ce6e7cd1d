import { existsSync, readdirSync } from 'node:fs'
import path from 'node:path'

/**
 * A word as a shell would turn it into names, for the person-only rule
 * (person-only.ts): a command (or an argument a server may hand to one)
 * can name `.git` without writing it, as `.g""it`, `.gi\t`, `{.git,x}`,
 * `.g{i,}t` or `.gi?`. Each reading here only adds names to check, so an
 * action can only come to ask more, never less.
 */

/** How many names one word's braces may make; past it the word cannot be
 *  checked (an action built to be too costly to check asks). */
export const MAX_BRACE_NAMES = 256

/** What a command builds only when it runs: command substitution
 *  (`$(…)`, backquotes), ANSI-C and locale quoting (`$'\x2egit'`, `$"…"`)
 *  and `eval`. The names these make cannot be read from the line, so no
 *  door answers for a command that uses them. */
const BUILT_AT_RUN_TIME = /\$\(|`|\$'|\$"|(?:^|[\s;|&(])eval(?=[\s;]|$)/

/** The part of `line` a shell would build at run time, or null. */
export function builtAtRunTime(line: string): string | null {
  return BUILT_AT_RUN_TIME.exec(line)?.[0].trim() ?? null
}

/**
 * The names `word` may stand for before globbing: as written with quotes
 * and backslashes dropped (`.g""it` is `.git`), and with its braces
 * expanded (`.g{i,}t` is `.git` and `.gt`). Null when the braces make more
 * than `MAX_BRACE_NAMES`.
 */
export function shellSpellings(word: string): string[] | null {
  const unquoted = word.replace(/["'\\]/g, '')
  const expanded = expandBraces(unquoted)
  if (expanded === null) return null
  return [...new Set([unquoted, ...expanded])].filter((name) => name !== word)
}

/** Brace expansion as bash does it: `a{b,c}d`, nested, and sequences
 *  `{1..3}`, `{a..e}`; a brace with neither a comma nor a sequence stays
 *  as written. */
function expandBraces(word: string): string[] | null {
  const out: string[] = []
  const queue = [word]
  while (queue.length > 0) {
    const current = queue.pop() ?? ''
    const group = firstBraceGroup(current)
    if (group === null) {
      out.push(current)
    } else {
      for (const alternative of group.alternatives) {
        queue.push(current.slice(0, group.start) + alternative + current.slice(group.end))
      }
    }
    if (out.length + queue.length > MAX_BRACE_NAMES) return null
  }
  return out
}

function firstBraceGroup(
  word: string,
): { start: number; end: number; alternatives: string[] } | null {
  for (let start = word.indexOf('{'); start !== -1; start = word.indexOf('{', start + 1)) {
    let depth = 0
    const commas: number[] = []
    for (let i = start; i < word.length; i += 1) {
      const char = word[i]
      if (char === '{') depth += 1
      else if (char === ',' && depth === 1) commas.push(i)
      else if (char === '}') {
        depth -= 1
        if (depth > 0) continue
        const inner = word.slice(start + 1, i)
        if (commas.length > 0) {
          const bounds = [start, ...commas, i]
          const alternatives = bounds
            .slice(0, -1)
            .map((from, n) => word.slice(from + 1, bounds[n + 1]))
          return { start, end: i + 1, alternatives }
        }
        const sequence = braceSequence(inner)
        if (sequence !== null) return { start, end: i + 1, alternatives: sequence }
        break
      }
    }
  }
  return null
}

function braceSequence(inner: string): string[] | null {
  const numbers = /^(-?\d+)\.\.(-?\d+)$/.exec(inner)
  const letters = /^([A-Za-z])\.\.([A-Za-z])$/.exec(inner)
  const [from, to, asText] = numbers
    ? [Number(numbers[1]), Number(numbers[2]), String]
    : letters
      ? [
          letters[1]!.charCodeAt(0),
          letters[2]!.charCodeAt(0),
          (n: number) => String.fromCharCode(n),
        ]
      : [0, 0, null]
  if (asText === null) return null
  // More names than are checked: as many empty ones, which the caller's
  // count then refuses.
  if (Math.abs(to - from) >= MAX_BRACE_NAMES) return Array<string>(MAX_BRACE_NAMES + 1).fill('')
  const step = from <= to ? 1 : -1
  const out: string[] = []
  for (let n = from; n !== to + step; n += step) out.push(asText(n))
  return out
}

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

/** One glob segment as a test of a name, with bash's rule for a leading dot. */
function segmentMatcher(segment: string): (name: string) => boolean {
  let source = ''
  for (let i = 0; i < segment.length; i += 1) {
    const char = segment[i] ?? ''
    if (char === '*') source += '.*'
    else if (char === '?') source += '.'
    else if (char === '[') {
      const close = segment.indexOf(']', i + 2)
      if (close === -1) {
        source += '\\['
        continue
      }
      let body = segment.slice(i + 1, close)
      const negated = body.startsWith('!') || body.startsWith('^')
      if (negated) body = body.slice(1)
      source += `[${negated ? '^' : ''}${body.replace(/[\\\]]/g, '\\$&')}]`
      i = close
    } else source += char.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  }
  const regex = new RegExp(`^${source}$`, 's')
  const dotLiteral = segment.startsWith('.')
  return (name) => (name.startsWith('.') && !dotLiteral ? false : regex.test(name))
}

/** git's options before its command that take their value as the next
 *  word. */
const GIT_OPTIONS_WITH_VALUE = new Set(['-C', '--git-dir', '--work-tree', '--namespace'])

/** Words after which the next word is still a command: wrappers that run
 *  the rest (`sudo git …`, `env X=1 git …`) and the shell's keywords. */
const COMMAND_PREFIXES = new Set([
  'sudo',
  'doas',
  'env',
  'command',
  'builtin',
  'exec',
  'nohup',
  'time',
  'nice',
  'timeout',
  'stdbuf',
  'xargs',
  'then',
  'do',
  'else',
  'elif',
  'if',
  'while',
  'until',
  '!',
  '{',
])

/**
 * Words of a command line that change what git runs, though no path of
 * theirs shows it: `git config …` (which writes a config, or reads one
 * that can hold a token), git's own `-c key=value`, `--config-env` and
 * `--exec-path` (a setting for that run: `core.hooksPath`,
 * `core.fsmonitor`, an alias, where its commands are), and the
 * `GIT_CONFIG*` and `GIT_EXEC_PATH` variables that do the same. `git`
 * counts where a shell runs it: first in a command (after `;`, `|`, `&&`,
 * a wrapper such as `sudo` or `env`, or a shell's `-c`), not as another
 * program's argument (`grep "git config" docs`). The first such word, or
 * null.
 */
export function changesGitSettings(words: readonly string[]): string | null {
  let commandPosition = true
  let inGitOptions = false
  let skipValue = false
  for (const word of words) {
    if (/^(?:GIT_CONFIG|GIT_EXEC_PATH)/i.test(word)) return word
    if (/^[;&|()]+$/.test(word)) {
      commandPosition = true
      inGitOptions = false
      continue
    }
    if (inGitOptions) {
      if (skipValue) {
        skipValue = false
        continue
      }
      if (/^-c/.test(word) || /^--(?:config-env|exec-path)/.test(word)) return `git ${word}`
      if (GIT_OPTIONS_WITH_VALUE.has(word)) skipValue = true
      else if (!word.startsWith('-')) {
        // git's command: only `config` changes its settings.
        if (word === 'config') return 'git config'
        inGitOptions = false
      }
      continue
    }
    if (commandPosition) {
      if (path.basename(word) === 'git') {
        inGitOptions = true
        commandPosition = false
        continue
      }
      // An assignment, a wrapper or its option: the command is still to come.
      if (/^[A-Za-z_]\w*=/.test(word) || COMMAND_PREFIXES.has(path.basename(word))) continue
      if (word.startsWith('-')) continue
      commandPosition = false
    }
    // A shell's `-c` (`bash -lc '…'`): its script starts a command.
    if (/^-[A-Za-z]*c$/.test(word)) commandPosition = true
  }
  return null
}
