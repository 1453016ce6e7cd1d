import { existsSync, readdirSync } from 'node:fs'
import { homedir } from 'node:os'
import path from 'node:path'

/**
 * A command line as a shell would read it, for the person-only rule
 * (person-only.ts): a command can name `.git` without writing it, as
 * `.g""it`, `.gi\t`, `{.git,x}`, `.g{i,}t`, `.gi?` or `~/.bash?c`, build a
 * name only when it runs (`$(…)`, `${X:-.git}`), or change what git runs
 * without naming a path (`git config`). Each reading here only adds names
 * to check, or a reason to ask, so an action can only come to ask more,
 * never less. Everything here is linear in the line's length or bounded.
 */

/** How many names one word's braces may make, and how many brace groups
 *  a word may hold; past either the word cannot be checked (the caller
 *  asks). */
export const MAX_BRACE_NAMES = 256
const MAX_BRACE_GROUPS = 64
/** The longest word whose braces are read (each group is found by a scan
 *  of the word): a longer word with a brace asks. */
const MAX_BRACE_WORD_CHARS = 8_192

/** A command line read as a shell tokenizes it. */
export interface ShellReading {
  /** The words the shell passes on (quotes removed, escapes applied, a
   *  backslash-newline joined), with each operator as a word of its own
   *  (`;`, `&&`, `|`, …; a newline reads as `;`) and `>` before each
   *  redirection's target. */
  words: string[]
  /** The first part the shell builds only when it runs, or null. */
  runTime: string | null
}

const OPERATOR_CHARS = new Set([';', '&', '|', '(', ')'])

/**
 * Tokenizes `line` as a POSIX shell does, far enough for the rule: quotes
 * and escapes, operators, redirections, and the expansions that build a
 * name at run time: command substitution (`$(…)`, backquotes), ANSI-C and
 * locale quoting (`$'…'`, `$"…"`), a parameter expansion with an operator
 * (`${X:-.git}`), and a variable glued to other text in one path segment
 * (`.g${X}it`, `${X}t`). A variable that is a whole segment (`$HOME/x`,
 * `"$dir"`) is not: its value is not known here, and is left as written.
 */
export function readShell(line: string): ShellReading {
  const words: string[] = []
  let runTime: string | null = null
  const found = (what: string) => {
    runTime ??= what
  }
  let word = ''
  let inWord = false
  const end = () => {
    if (inWord) words.push(word)
    word = ''
    inWord = false
  }
  const text = line.replace(/\\\r?\n/g, '')
  let quote: '' | "'" | '"' = ''
  for (let i = 0; i < text.length; i += 1) {
    const char = text[i] ?? ''
    const next = text[i + 1] ?? ''
    if (quote === "'") {
      if (char === "'") quote = ''
      else word += char
      continue
    }
    if (char === '\\') {
      inWord = true
      // In double quotes only these are escaped; elsewhere, any character.
      if (quote === '"' && !'$`"\\'.includes(next)) {
        word += char
        continue
      }
      word += next
      i += 1
      continue
    }
    if (char === '`') {
      found('`')
      inWord = true
      continue
    }
    if (char === '$') {
      const expansion = readExpansion(text, i, quote)
      if (expansion.runTime !== null) found(expansion.runTime)
      // A whole-segment variable stays as written: it names nothing.
      word += text.slice(i, expansion.end)
      inWord = true
      i = expansion.end - 1
      continue
    }
    if (quote === '"') {
      if (char === '"') quote = ''
      else word += char
      continue
    }
    if (char === "'" || char === '"') {
      quote = char
      inWord = true
    } else if (char === ' ' || char === '\t') {
      end()
    } else if (char === '\n' || char === '\r') {
      end()
      words.push(';')
    } else if (OPERATOR_CHARS.has(char)) {
      end()
      const double = (char === '&' || char === '|') && next === char
      words.push(double ? char + next : char)
      if (double) i += 1
    } else if (char === '<' || char === '>') {
      // A redirection: its target is the next word (`2>`, `>>`, `&>` too).
      if (/^\d+$/.test(word)) {
        word = ''
        inWord = false
      }
      end()
      while (text[i + 1] === '>' || text[i + 1] === '&' || text[i + 1] === '<') i += 1
      words.push('>')
    } else {
      word += char
      inWord = true
    }
  }
  end()
  return { words, runTime }
}

/** The `$` expansion at `text[at]`: where it ends, and what it builds at
 *  run time (null for a variable that is a whole path segment). */
function readExpansion(
  text: string,
  at: number,
  quote: '' | '"',
): { end: number; runTime: string | null } {
  const next = text[at + 1] ?? ''
  if (next === '(') return { end: at + 2, runTime: '$(' }
  if (quote === '' && (next === "'" || next === '"')) return { end: at + 2, runTime: `$${next}` }
  let end: number
  if (next === '{') {
    const close = text.indexOf('}', at + 2)
    if (close === -1) return { end: text.length, runTime: '${' }
    const inner = text.slice(at + 2, close)
    // `${X:-w}`, `${X#p}`, `${!X}`, … make a value of their own.
    if (!/^(?:[A-Za-z_]\w*|\d+|[@*#?$!-])$/.test(inner)) {
      return { end: close + 1, runTime: text.slice(at, close + 1) }
    }
    end = close + 1
  } else {
    const name = /^(?:[A-Za-z_]\w*|\d|[@*#?$!-])/.exec(text.slice(at + 1))
    // A lone `$` is a `$`.
    if (name === null) return { end: at + 1, runTime: null }
    end = at + 1 + name[0].length
  }
  const before = text[at - 1] ?? ' '
  const after = text[end] ?? ' '
  const boundary = (char: string) => /[\s/"';&|()<>]/.test(char)
  const whole = boundary(before) && boundary(after)
  return { end, runTime: whole ? null : text.slice(at, end) }
}

/**
 * The names a word of a command may stand for besides itself: its braces
 * expanded (`.g{i,}t` is `.git` and `.gt`, `{a..e..2}` a sequence) and a
 * leading `~` as the person's home. Null when the braces make more names
 * than `MAX_BRACE_NAMES`, or hold more groups than are read.
 */
export function wordSpellings(word: string): string[] | null {
  const names = new Set<string>()
  const tilde = (name: string) =>
    name === '~' || name.startsWith('~/') ? path.join(homedir(), name.slice(1)) : name
  if (word.includes('{')) {
    if (word.length > MAX_BRACE_WORD_CHARS) return null
    if (word.split('{').length - 1 > MAX_BRACE_GROUPS) return null
    const expanded = expandBraces(word)
    if (expanded === null) return null
    for (const name of expanded) names.add(tilde(name))
  } else {
    names.add(tilde(word))
  }
  names.delete(word)
  return [...names]
}

/** Brace expansion as bash does it: `a{b,c}d`, nested, and sequences
 *  `{1..3}`, `{a..e}`, `{1..9..2}`; a brace with neither a comma nor a
 *  sequence stays as written. */
function expandBraces(word: string): string[] | null {
  const out: string[] = []
  const queue = [word]
  while (queue.length > 0) {
    const current = queue.pop() ?? ''
    const group = firstBraceGroup(current)
    if (group === null) {
      out.push(current)
    } else if (group === 'too-many') {
      return null
    } else {
      for (const alternative of group.alternatives) {
        queue.push(current.slice(0, group.start) + alternative + current.slice(group.end))
      }
    }
    if (out.length + queue.length > MAX_BRACE_NAMES) return null
  }
  return out
}

type BraceGroup = { start: number; end: number; alternatives: string[] }

function firstBraceGroup(word: string): BraceGroup | 'too-many' | null {
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
        if (commas.length > 0) {
          const bounds = [start, ...commas, i]
          const alternatives = bounds
            .slice(0, -1)
            .map((from, n) => word.slice(from + 1, bounds[n + 1]))
          return { start, end: i + 1, alternatives }
        }
        const sequence = braceSequence(word.slice(start + 1, i))
        if (sequence === 'too-many') return sequence
        if (sequence !== null) return { start, end: i + 1, alternatives: sequence }
        break
      }
    }
  }
  return null
}

function braceSequence(inner: string): string[] | 'too-many' | null {
  const match = /^(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])(?:\.\.(-?\d+))?$/.exec(inner)
  if (match === null) return null
  const [, first = '', last = '', stepText] = match
  const letters = !/\d/.test(first)
  if (letters !== !/\d/.test(last)) return null
  const from = letters ? first.charCodeAt(0) : Number(first)
  const to = letters ? last.charCodeAt(0) : Number(last)
  const step = Math.max(1, Math.abs(Number(stepText ?? 1))) * (from <= to ? 1 : -1)
  if (Math.abs(to - from) / Math.abs(step) >= MAX_BRACE_NAMES) return 'too-many'
  const out: string[] = []
  for (let n = from; step > 0 ? n <= to : n >= to; n += step) {
    out.push(letters ? String.fromCharCode(n) : String(n))
  }
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

/** One piece of a glob segment: a literal character, `?`, `*`, or a
 *  bracket class as a test of one character. */
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

/** Words after which the next word is still a command: wrappers that run
 *  the rest (`sudo git …`, `env X=1 git …`, `timeout 10 git …`) and the
 *  shell's keywords. After a wrapper, any later `git` or `eval` of the same
 *  command counts as the command: its options are not read. */
const WRAPPERS = new Set([
  'sudo',
  'doas',
  'env',
  'command',
  'builtin',
  'exec',
  'nohup',
  'time',
  'nice',
  'ionice',
  'timeout',
  'stdbuf',
  'xargs',
  'chronic',
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
const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'mksh', 'ash', 'busybox'])
const OPERATORS = new Set([';', '&', '&&', '|', '||', '(', ')'])

/** The variables that change what git runs or where it reads its settings. */
const GIT_SETTING_VARIABLES = /^(?:GIT_CONFIG\w*|GIT_EXEC_PATH|GIT_TEMPLATE_DIR)=/i

/** git's options before its command that take their value as the next
 *  word. */
const GIT_OPTIONS_WITH_VALUE = new Set(['-C', '--git-dir', '--work-tree', '--namespace'])

/** What a command line does that no path of it shows. */
export type CommandFinding =
  { kind: 'built-at-run-time'; what: string } | { kind: 'git-settings'; what: string }

/**
 * Reads the simple commands of a line (and the scripts handed to a shell's
 * `-c`) for what needs the person whatever paths they name: a name built
 * at run time (`$(…)`, `${X:-w}`, `eval`, a command that is a variable),
 * or a change to what git runs: `git config …` (which writes a config, or
 * reads one that can hold a token), git's `-c`, `--config-env` and
 * `--exec-path`, `git init`/`clone --template`, `clone -c`/`--config`, and
 * the `GIT_CONFIG*`, `GIT_EXEC_PATH` and `GIT_TEMPLATE_DIR` variables set
 * for a command. `git` counts where a shell runs it (first in a command,
 * or after a wrapper), not as another program's argument (`grep "git
 * config" docs`). A name that a program computes (`python -c …`, `tr`) is
 * not read: see docs/security-model.md.
 */
export function commandFinding(line: string, depth = 0): CommandFinding | null {
  const reading = readShell(line)
  if (reading.runTime !== null) return { kind: 'built-at-run-time', what: reading.runTime }
  for (const command of simpleCommands(reading.words)) {
    const finding = commandWordsFinding(command, depth)
    if (finding !== null) return finding
  }
  return null
}

/** `lines` and every script handed to a shell's `-c` in them (`bash -lc
 *  '…'`), to four levels: a script is a command line of its own. */
export function withShellScripts(lines: readonly string[]): string[] {
  const out: string[] = []
  let level = [...lines]
  for (let depth = 0; depth <= 4 && level.length > 0; depth += 1) {
    out.push(...level)
    level = level.flatMap((line) =>
      simpleCommands(readShell(line).words).flatMap((command) => shellScripts(command)),
    )
  }
  return out
}

/** The script a simple command hands to a shell's `-c`, if it does. */
function shellScripts(command: readonly string[]): string[] {
  const at = command.findIndex((word) => SHELLS.has(path.basename(word)))
  if (at === -1) return []
  const flag = command.slice(at + 1).findIndex((arg) => /^-[A-Za-z]*c[A-Za-z]*$/.test(arg))
  const script = flag === -1 ? undefined : command[at + 2 + flag]
  return script === undefined ? [] : [script]
}

/** The words of each simple command, operators dropped, redirections and
 *  their targets left out. */
function simpleCommands(words: readonly string[]): string[][] {
  const commands: string[][] = [[]]
  for (let i = 0; i < words.length; i += 1) {
    const word = words[i] ?? ''
    if (OPERATORS.has(word)) commands.push([])
    else if (word === '>') i += 1
    else commands.at(-1)?.push(word)
  }
  return commands.filter((command) => command.length > 0)
}

function commandWordsFinding(command: readonly string[], depth: number): CommandFinding | null {
  // The next word is the command (after assignments, or a wrapper).
  let expectCommand = true
  // Past a wrapper: its options are not read, so any later word may be
  // the command it runs.
  let wrapped = false
  for (let i = 0; i < command.length; i += 1) {
    const word = command[i] ?? ''
    const name = path.basename(word)
    if (GIT_SETTING_VARIABLES.test(word)) return { kind: 'git-settings', what: word }
    if (expectCommand && /^[A-Za-z_]\w*=/.test(word)) continue
    if (expectCommand && word.startsWith('$')) return { kind: 'built-at-run-time', what: word }
    if (!expectCommand && !wrapped) return null
    if (name === 'eval') return { kind: 'built-at-run-time', what: 'eval' }
    if (name === 'git') return gitFinding(command.slice(i + 1))
    if (name === 'find') {
      // `-exec`, `-execdir`, `-ok`, `-okdir` run a command of their own.
      const exec = command.slice(i + 1).findIndex((arg) => /^-(?:exec|ok)(?:dir)?$/.test(arg))
      return exec === -1 ? null : commandWordsFinding(command.slice(i + 2 + exec), depth)
    }
    if (SHELLS.has(name)) {
      // A shell's `-c` script is a command line of its own.
      const [script] = shellScripts(command.slice(i))
      return script !== undefined && depth < 4 ? commandFinding(script, depth + 1) : null
    }
    if (WRAPPERS.has(name)) {
      wrapped = true
      expectCommand = true
      continue
    }
    expectCommand = false
  }
  return null
}

/** What a `git` command changes of git's settings: `args` are the words
 *  after `git`. */
function gitFinding(args: readonly string[]): CommandFinding | null {
  const found = (what: string): CommandFinding => ({ kind: 'git-settings', what: `git ${what}` })
  for (let i = 0; i < args.length; i += 1) {
    const word = args[i] ?? ''
    if (/^-c/.test(word) || /^--(?:config-env|exec-path)/.test(word)) return found(word)
    if (GIT_OPTIONS_WITH_VALUE.has(word)) {
      i += 1
      continue
    }
    if (word.startsWith('-')) continue
    // git's command.
    if (word === 'config') return found(word)
    const rest = args.slice(i + 1)
    if (word === 'init' || word === 'clone') {
      const template = rest.find((arg) => arg.startsWith('--template'))
      if (template !== undefined) return found(`${word} ${template}`)
    }
    if (word === 'clone') {
      const setting = rest.find((arg) => /^(?:-c|--config)/.test(arg))
      if (setting !== undefined) return found(`clone ${setting}`)
    }
    return null
  }
  return null
}
