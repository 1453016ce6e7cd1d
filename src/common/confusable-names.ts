import unhomoglyph from 'unhomoglyph'

/**
 * Which characters of a tool or MCP server name could make it pass for
 * another name, after Unicode TR39 (security mechanisms):
 * - a character that TR39's confusables data maps to plain ASCII (Cyrillic
 *   `о` for `o`, mathematical `𝐚`), or NFKC does (fullwidth `ｗ`): the data
 *   is the `unhomoglyph` package's copy of confusables.txt, so no table is
 *   kept by hand here;
 * - every non-ASCII letter of a name whose letters do not all share one
 *   script (a resolved script set that is empty), allowing Latin with
 *   Japanese, Korean or Chinese as TR39's "highly restrictive" level does.
 * ASCII itself is never flagged: `rn` and `m` are told apart by reading.
 *
 * Any other value (a command line, a URL, a path) is checked word by word
 * (`lookalikeWordIndexes`): a word that mixes scripts by the same rule
 * (`gіthub` with a Cyrillic `і`), or puts a letter that NFKC turns into
 * ASCII (fullwidth `ｗ`, mathematical `𝐚`, the ligature `ﬁ`) beside ASCII
 * letters, can pass for another word. Ordinary text in one script, or
 * words of different scripts side by side (`/home/ada/Документы/notes.txt`),
 * is not flagged.
 */

/** Scripts a letter is tested against (by Script_Extensions). A letter of
 *  none of them counts as one more script, so it still mixes with Latin. */
const SCRIPTS = [
  'Latin',
  'Greek',
  'Cyrillic',
  'Armenian',
  'Hebrew',
  'Arabic',
  'Syriac',
  'Thaana',
  'Nko',
  'Devanagari',
  'Bengali',
  'Gurmukhi',
  'Gujarati',
  'Oriya',
  'Tamil',
  'Telugu',
  'Kannada',
  'Malayalam',
  'Sinhala',
  'Thai',
  'Lao',
  'Tibetan',
  'Myanmar',
  'Georgian',
  'Hangul',
  'Ethiopic',
  'Cherokee',
  'Canadian_Aboriginal',
  'Ogham',
  'Runic',
  'Khmer',
  'Mongolian',
  'Hiragana',
  'Katakana',
  'Bopomofo',
  'Han',
  'Yi',
  'Coptic',
  'Glagolitic',
  'Tifinagh',
  'Vai',
  'Lisu',
  'Osage',
  'Adlam',
  'Deseret',
] as const

const SCRIPT_TESTS = SCRIPTS.map(
  (script) => [script, new RegExp(`^\\p{scx=${script}}$`, 'u')] as const,
)

/** TR39's augmented script sets: Han is also written in Japanese, Korean
 *  and Chinese with Bopomofo, so those combinations are one script. */
const AUGMENT: Readonly<Record<string, readonly string[]>> = {
  Han: ['Jpan', 'Kore', 'Hanb'],
  Hiragana: ['Jpan'],
  Katakana: ['Jpan'],
  Hangul: ['Kore'],
  Bopomofo: ['Hanb'],
}
const CJK_SETS = new Set(['Jpan', 'Kore', 'Hanb'])

const SCRIPT_BEARING = /^[\p{L}\p{M}\p{N}]$/u
const COMMON_OR_INHERITED = /^[\p{sc=Zyyy}\p{sc=Zinh}]$/u
const PRINTABLE_ASCII = /^[\x20-\x7e]+$/

/** The character's scripts, augmented; undefined for one that has none of
 *  its own (digits, punctuation, combining marks of any script). */
function scriptsOf(char: string): Set<string> | undefined {
  if (!SCRIPT_BEARING.test(char) || COMMON_OR_INHERITED.test(char)) return undefined
  const scripts = new Set<string>()
  for (const [script, test] of SCRIPT_TESTS) {
    if (!test.test(char)) continue
    scripts.add(script)
    for (const extra of AUGMENT[script] ?? []) scripts.add(extra)
  }
  if (scripts.size === 0) scripts.add('Other')
  return scripts
}

function intersect(sets: ReadonlyArray<Set<string>>): Set<string> {
  const [first, ...rest] = sets
  const result = new Set(first ?? [])
  for (const set of rest) for (const script of result) if (!set.has(script)) result.delete(script)
  return result
}

/** Whether the name's letters fall in more than one script, beyond the
 *  Latin-with-CJK combinations TR39 allows at its highly restrictive level. */
export function mixesScripts(chars: readonly string[]): boolean {
  const sets = chars.map(scriptsOf).filter((set) => set !== undefined)
  if (sets.length === 0 || intersect(sets).size > 0) return false
  const nonLatin = sets.filter((set) => !set.has('Latin'))
  const rest = intersect(nonLatin)
  return ![...rest].some((script) => CJK_SETS.has(script))
}

/** Whether this non-ASCII character looks like plain ASCII text: TR39's
 *  confusables data maps it there, or compatibility normalisation (NFKC)
 *  does (fullwidth forms, which the data leaves out in part). */
export function looksLikeAscii(char: string): boolean {
  if (PRINTABLE_ASCII.test(char)) return false
  return [unhomoglyph(char), char.normalize('NFKC')].some(
    (prototype) => prototype !== char && PRINTABLE_ASCII.test(prototype),
  )
}

/** The indexes (in code points) of the characters to show as escapes in a
 *  name; empty for a name that cannot pass for another. */
export function confusableIndexes(chars: readonly string[]): Set<number> {
  const mixed = mixesScripts(chars)
  const flagged = new Set<number>()
  chars.forEach((char, index) => {
    if (PRINTABLE_ASCII.test(char)) return
    if (looksLikeAscii(char) || (mixed && scriptsOf(char) !== undefined)) flagged.add(index)
  })
  return flagged
}

/** A word: a run of letters, marks and digits. Anything else (spaces,
 *  slashes, dots, dashes, escapes) ends it. */
const WORD_CHAR = /^[\p{L}\p{M}\p{N}]$/u
const ASCII_LETTER = /^[A-Za-z]$/
/** Ordinal indicators: Latin letters NFKC turns into `a` and `o`, written
 *  beside ordinary letters in Spanish and Portuguese (`nº`). */
const ORDINALS = new Set(['\u00AA', '\u00BA'])

/** A non-ASCII letter that compatibility normalisation turns into ASCII
 *  letters (fullwidth, mathematical, ligatures). */
function foldsToAsciiLetters(char: string): boolean {
  if (PRINTABLE_ASCII.test(char) || ORDINALS.has(char) || !/^\p{L}$/u.test(char)) return false
  return /^[A-Za-z]+$/.test(char.normalize('NFKC'))
}

function wordPassesForAnother(word: readonly string[]): boolean {
  if (mixesScripts(word)) return true
  return word.some((char) => ASCII_LETTER.test(char)) && word.some(foldsToAsciiLetters)
}

/** The indexes (in code points) of the characters of every word in a value
 *  (not a name) that can pass for another word; empty for ordinary text. */
export function lookalikeWordIndexes(chars: readonly string[]): Set<number> {
  const flagged = new Set<number>()
  let start = 0
  for (let index = 0; index <= chars.length; index += 1) {
    const char = chars[index]
    if (char !== undefined && WORD_CHAR.test(char)) continue
    const word = chars.slice(start, index)
    if (word.length > 1 && wordPassesForAnother(word)) {
      for (let at = start; at < index; at += 1) flagged.add(at)
    }
    start = index + 1
  }
  return flagged
}

/** ASCII a shell reads as making what stands after or between it inert:
 *  a comment (`#`), quotes (`'`, `"`, `` ` ``), a backslash, a here
 *  document's `<`. */
const INERTING_SYNTAX = /^[#'"`\\<]+$/
const CJK = /^[\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}\p{scx=Hangul}\p{scx=Bopomofo}]$/u
const IDEOGRAPHIC_SPACE = '\u3000'

/**
 * Whether the character at `index` stands within Chinese, Japanese or
 * Korean text: between two of their characters (ideographic spaces
 * aside), or, in text with lines, before one at the start of a line.
 */
export function standsAmongCjk(chars: readonly string[], index: number, multiline: boolean) {
  let before = index - 1
  while (chars[before] === IDEOGRAPHIC_SPACE) before -= 1
  let after = index + 1
  while (chars[after] === IDEOGRAPHIC_SPACE) after += 1
  const previous = chars[before]
  const lineStart = multiline && (previous === undefined || previous === '\n')
  return (lineStart || CJK.test(previous ?? '')) && CJK.test(chars[after] ?? '')
}

/**
 * The indexes of the characters that pass for a shell's quoting or comment
 * syntax without being it: a fullwidth `＃`, a curly `’`, `＼`. A shell
 * reads them as letters, so `echo ok ＃ ; touch pwned` reads as a comment
 * from `＃` on while `touch pwned` runs, and `echo ‘; touch pwned’` as
 * quoted text. In a one-line value (a command line, a path) each is
 * marked. Text with lines (a file, an MCP call's arguments, a description)
 * is read as prose too, where curly quotes are ordinary and fullwidth
 * punctuation is Chinese or Japanese: there only the fullwidth and small
 * forms are marked, and only outside such text.
 */
export function syntaxLookalikeIndexes(chars: readonly string[], multiline: boolean): Set<number> {
  const flagged = new Set<number>()
  chars.forEach((char, index) => {
    if (PRINTABLE_ASCII.test(char)) return
    const folded = char.normalize('NFKC')
    if (multiline) {
      if (INERTING_SYNTAX.test(folded) && !standsAmongCjk(chars, index, true)) flagged.add(index)
      return
    }
    if ([unhomoglyph(char), folded].some((prototype) => INERTING_SYNTAX.test(prototype))) {
      flagged.add(index)
    }
  })
  for (const index of fakeOptionDashes(chars)) flagged.add(index)
  return flagged
}

/** Passes for `-` without being it: a hyphen, an en dash, a minus sign. */
function passesForDash(char: string): boolean {
  if (PRINTABLE_ASCII.test(char)) return false
  return unhomoglyph(char) === '-' || char.normalize('NFKC') === '-'
}

/**
 * The dashes that make a word read as an option a program does not take
 * as one: `rsync ‐‐dry-run a b` (U+2010) reads as a dry run, while rsync
 * takes `‐‐dry-run` for a file and copies the rest. Only where an option
 * stands: at the start of a word (after a space, a quote or a line start),
 * with a letter right after the dashes, so a dash in prose
 * (`1990–2000`, `this – that`) stays as it is.
 */
function fakeOptionDashes(chars: readonly string[]): number[] {
  const found: number[] = []
  let index = 0
  while (index < chars.length) {
    const previous = chars[index - 1]
    const wordStart = previous === undefined || /^[\s"'=]$/u.test(previous)
    let end = index
    while (end < chars.length && (chars[end] === '-' || passesForDash(chars[end] ?? ''))) end += 1
    const dashes = chars.slice(index, end)
    if (wordStart && end > index && /^[A-Za-z]$/.test(chars[end] ?? '')) {
      dashes.forEach((char, at) => {
        if (char !== '-') found.push(index + at)
      })
    }
    index = Math.max(end, index + 1)
  }
  return found
}
