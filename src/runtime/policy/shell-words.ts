import { leadingExpansion } from './leading-expansion.ts'

/**
 * A command line as a shell would read it, for the person-only rule
 * (person-only.ts): a command can name `.git` without writing it, as
 * `.g""it`, `.gi\t`, `{.git,x}`, `.g{i,}t` or `~/.bash?c`, or build a name
 * only when it runs (`$(…)`, `${X:-.git}`). Here: the line's words and
 * what it builds at run time (`readShell`), and the names one word stands
 * for (`wordSpellings`); its globs are shell-glob.ts, and what its
 * commands do besides naming paths (`git config`) shell-commands.ts. Each
 * reading only adds names to check, or a reason to ask, so an action can
 * only come to ask more, never less. Everything here is linear in the
 * line's length or bounded.
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
 * (`.g${X}it`, `${X}t`, `"$X"t`). A variable that is a whole segment (`$DIR/x`,
 * `"$dir"`) is not: its value is not known here, and is left as written.
 *
 * A fish script (`fish -c …`) is read as fish reads it where fish differs
 * in what a name is: `\'` and `\\` are escapes inside its single quotes,
 * a bare `(…)` is its command substitution, and braces around one
 * alternative are taken off (`{.git}` is `.git`; a quoted `{x}` is read
 * so too, which can only make the action ask).
 */
export function readShell(line: string, dialect?: 'fish'): ShellReading {
  const fish = dialect === 'fish'
  const words: string[] = []
  let runTime: string | null = null
  const found = (what: string) => {
    runTime ??= what
  }
  let word = ''
  let inWord = false
  const end = () => {
    if (inWord) words.push(fish ? withoutFishBraces(word) : word)
    word = ''
    inWord = false
  }
  const text = line.replace(/\\\r?\n/g, '')
  let quote: '' | "'" | '"' = ''
  for (let i = 0; i < text.length; i += 1) {
    const char = text[i] ?? ''
    const next = text[i + 1] ?? ''
    if (quote === "'") {
      if (char === "'") {
        quote = ''
      } else if (fish && char === '\\' && (next === '\\' || next === "'")) {
        word += next
        i += 1
      } else {
        word += char
      }
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
      const expansion = readExpansion(text, i, quote, word)
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
      // A `(` glued to a word is a pattern of the shell's own, not a
      // subshell: bash's extended globs (`.@(g)it`, `!(x)`) and zsh's
      // glob qualifiers (`*(D)` matches names with a leading dot), whose
      // matches no reading here follows. An array (`a=(…)`) and a
      // function (`f()`) are not patterns.
      if (char === '(' && inWord && !word.endsWith('=') && next !== ')') found(`${word}(`)
      if (char === '(' && fish) found('(')
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

/** `word` with fish's braces around one alternative taken off, the
 *  innermost first. A word with more groups than are read asks anyway
 *  (`wordSpellings`). */
function withoutFishBraces(word: string): string {
  let out = word
  for (let pass = 0; pass < MAX_BRACE_GROUPS && out.includes('{'); pass += 1) {
    const before = out
    out = out.replace(/\{([^{},]+)\}/g, '$1')
    if (out === before) break
  }
  return out
}

/** The `$` expansion at `text[at]`: where it ends, and what it builds at
 *  run time (null for a variable that is a whole path segment). `before`
 *  is the word so far, quotes removed. */
function readExpansion(
  text: string,
  at: number,
  quote: '' | '"',
  before: string,
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
  // Inside quotes a space also parts it from other text (`"bump to $V"`):
  // a name with a space in it is no name of the table.
  const starts = before === '' || before.endsWith('/') || (quote === '"' && /\s$/.test(before))
  const whole = starts && segmentEndsAt(text, end, quote)
  return { end, runTime: whole ? null : text.slice(at, end) }
}

/**
 * Whether the path segment a variable ends at `text[at]` ends there: a
 * `/`, or the end of the word. Quotes do not end a word (`"$D"t` is the
 * value glued to `t`), so a closing quote is looked past, and an opening
 * one, or anything else, is taken as more of the same segment.
 */
function segmentEndsAt(text: string, at: number, quote: '' | '"'): boolean {
  let next = at
  if (quote === '"') {
    if (text[next] === '/' || /\s/.test(text[next] ?? '')) return true
    if (text[next] !== '"') return false
    next += 1
  }
  const char = text[next]
  return char === undefined || /[\s/;&|()<>]/.test(char)
}

/**
 * The names a word of a command may stand for besides itself: its braces
 * expanded (`.g{i,}t` is `.git` and `.gt`, `{a..e..2}` a sequence) and a
 * leading `~`, `$HOME` or `$PWD` as the folder it stands for
 * (`leadingExpansion`). Null when the braces make more names
 * than `MAX_BRACE_NAMES`, or hold more groups than are read.
 */
export function wordSpellings(word: string): string[] | null {
  const names = new Set<string>()
  const tilde = (name: string) => leadingExpansion(name) ?? name
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
