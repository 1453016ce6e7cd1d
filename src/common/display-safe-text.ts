import {
  confusableIndexes,
  lookalikeWordIndexes,
  standsAmongCjk,
  syntaxLookalikeIndexes,
} from './confusable-names.ts'

/**
 * Text shown to the person in the protected window (and the workbench's
 * cards) that cannot lie about what it says. `textContent` already keeps
 * agent text from becoming markup; this keeps it from hiding or reordering
 * itself: `invoice\u202Etxt.exe` must not read as `invoiceexe.txt`.
 *
 * Every character that is invisible (no ink, whatever its category),
 * changes the direction of text, or controls a terminal becomes an escape
 * the person can see, `⟨U+202E⟩`, which the UI draws as its own, distinctly
 * styled element. The rest stays text exactly as it was, so the original
 * can always be read back. A word that can pass for another (`gіthub` with
 * a Cyrillic `і`) stays text, marked, and raises the `confusable` warning.
 */

/** Why a character is shown as an escape. */
export type EscapeReason =
  /** Bidi controls: reorder the text around them. */
  | 'direction'
  /** Format characters and default-ignorables: zero width, joiners, BOM,
   *  tags, variation selectors, soft hyphen; and symbols drawn with no ink
   *  (the blank Braille pattern). */
  | 'invisible'
  /** C0 and C1 controls and DEL (ANSI escapes start with ESC). */
  | 'control'
  /** Spaces other than U+0020 (and the ideographic space within Chinese,
   *  Japanese or Korean text), and the line and paragraph separators: they
   *  look like a plain space or a line break. */
  | 'space'
  /** Unassigned code points, noncharacters and lone surrogates: no glyph
   *  anyone could read. */
  | 'unreadable'
  /** A letter in a name that can pass for another (see confusable-names). */
  | 'confusable'
  /** The CR of a CRLF line ending in multi-line text: shown, not alarming. */
  | 'line-ending'
  /** A literal `⟨`: escaped so the flat form stays unambiguous. */
  | 'escape-mark'

export type DisplaySegment =
  | {
      readonly kind: 'text'
      readonly text: string
      /** A word that can pass for another (mixed scripts): drawn marked. */
      readonly lookalike?: boolean
    }
  | {
      readonly kind: 'escape'
      /** The code point exactly as it was in the input. */
      readonly original: string
      /** What is shown: `⟨U+202E⟩`. */
      readonly label: string
      readonly reason: EscapeReason
    }

/** What the window says above its buttons when any of these were shown. */
export type DisplayWarning = 'direction' | 'hidden' | 'confusable'

export interface DisplaySafeText {
  readonly segments: readonly DisplaySegment[]
  readonly warnings: ReadonlySet<DisplayWarning>
  /** A one-line value has right-to-left letters beside others: the UI
   *  shows such a value in the order it is stored (a bidi override), so
   *  neighbouring digits and punctuation cannot move. */
  readonly mixedDirection: boolean
}

export interface DisplaySafeOptions {
  /** Text with lines (file content, arguments, descriptions): a line feed
   *  and a tab stay as they are. In a single-line value (a path, a command
   *  word, a name) they are escapes too, since they would hide a part. */
  readonly multiline?: boolean
  /** A tool or MCP server name: letters that let it pass for another name
   *  are escapes too, and raise the `confusable` warning. Any other text is
   *  checked word by word: a word that can pass for another is marked (not
   *  escaped) and raises the same warning. */
  readonly name?: boolean
}

const ESCAPE_OPEN = '⟨'
const ESCAPE_CLOSE = '⟩'

const BIDI_CONTROL = /^[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]$/u
const INVISIBLE = /^[\p{Cf}\p{Default_Ignorable_Code_Point}]$/u
/** Assigned symbols and letters that are neither format characters nor
 *  default-ignorable, yet are drawn with no ink: BRAILLE PATTERN BLANK (So),
 *  MUSICAL SYMBOL NULL NOTEHEAD (So), KHITAN SMALL SCRIPT FILLER (Mn). The
 *  Hangul fillers, U+2062..U+2064, U+180E, U+17B4/U+17B5, U+1D173..U+1D17A,
 *  the variation selectors and the tags are default-ignorable already. */
const NO_INK = new Set(['\u2800', '\u{1D159}', '\u{16FE4}'])
const CONTROL = /^\p{Cc}$/u
const ODD_SPACE = /^[\p{Zl}\p{Zp}\p{Zs}]$/u
const IDEOGRAPHIC_SPACE = '\u3000'
const UNREADABLE = /^[\p{Cn}\p{Cs}\p{Noncharacter_Code_Point}]$/u
/**
 * Every code point whose Bidi_Class is Right_To_Left (R), Arabic_Letter
 * (AL) or Arabic_Number (AN): what the bidi algorithm lays out right to left
 * in a left-to-right line, of every right-to-left script (Hebrew, Arabic,
 * Syriac, Phoenician, Kharoshthi, Old Turkic, Nabataean, Old Hungarian,
 * Adlam, ...), the Arabic punctuation of Common script (U+061B, U+061F,
 * U+0640) and the Arabic-Indic digits (`٣ ٤٢` is drawn `٤٢ ٣`). Derived
 * once from UnicodeData (Unicode 14: assigned code points of those classes,
 * U+200F aside, an escape already), joined with every block
 * DerivedBidiClass.txt (Unicode 16) gives R or AL by default, so letters
 * assigned since (Garay, Sidetic, Arabic Extended-C) are in; a mark or a
 * digit assigned there since counts too, which only shows more values in
 * stored order.
 */
const RTL_CLASSES =
  '\\u0590\\u05BE\\u05C0\\u05C3\\u05C6\\u05C8-\\u0605\\u0608\\u060B\\u060D' +
  '\\u061B-\\u064A\\u0660-\\u0669\\u066B-\\u066F\\u0671-\\u06D5\\u06DD' +
  '\\u06E5-\\u06E6\\u06EE-\\u06EF\\u06FA-\\u0710\\u0712-\\u072F\\u074B-\\u07A5' +
  '\\u07B1-\\u07EA\\u07F4-\\u07F5\\u07FA-\\u07FC\\u07FE-\\u0815\\u081A\\u0824' +
  '\\u0828\\u082E-\\u0858\\u085C-\\u0897\\u08A0-\\u08C9\\u08E2\\uFB1D' +
  '\\uFB1F-\\uFB28\\uFB2A-\\uFD3D\\uFD50-\\uFDCE\\uFDF0-\\uFDFC\\uFE70-\\uFEFE' +
  '\\u{10800}-\\u{1091E}\\u{10920}-\\u{10A00}\\u{10A04}\\u{10A07}-\\u{10A0B}' +
  '\\u{10A10}-\\u{10A37}\\u{10A3B}-\\u{10A3E}\\u{10A40}-\\u{10AE4}' +
  '\\u{10AE7}-\\u{10B38}\\u{10B40}-\\u{10D23}\\u{10D28}-\\u{10EAA}' +
  '\\u{10EAD}-\\u{10F45}\\u{10F51}-\\u{10F81}\\u{10F86}-\\u{10FFF}' +
  '\\u{1E800}-\\u{1E8CF}\\u{1E8D7}-\\u{1E943}\\u{1E94B}-\\u{1EEEF}' +
  '\\u{1EEF2}-\\u{1EFFF}'
const RIGHT_TO_LEFT = new RegExp(`[${RTL_CLASSES}]`, 'u')
/** What the bidi algorithm places by itself beside right-to-left letters:
 *  anything but them, white space and marks (which go with their letter). */
const OTHER_THAN_RTL = new RegExp(`[^\\s\\p{Mn}\\p{Me}${RTL_CLASSES}]`, 'u')

/** The reason the code point at `index` must be escaped, or undefined when
 *  it is plain text. Its neighbours count: a CR before a LF is a line
 *  ending, an ideographic space among Chinese or Japanese is a space. */
function escapeReason(chars: readonly string[], index: number, multiline: boolean) {
  const char = chars[index] ?? ''
  const next = chars[index + 1]
  if (multiline && (char === '\n' || char === '\t')) return undefined
  if (BIDI_CONTROL.test(char)) return 'direction'
  if (CONTROL.test(char)) {
    return multiline && char === '\r' && next === '\n' ? 'line-ending' : 'control'
  }
  if (INVISIBLE.test(char) || NO_INK.has(char)) return 'invisible'
  if (char === IDEOGRAPHIC_SPACE) {
    // The space of Chinese, Japanese and Korean text, plain there. Beside
    // anything else a shell reads it as part of a word, so
    // `done\u3000#\u3000; touch x` would read as a comment from `#` on
    // while `touch x` runs, and `my\u3000notes.txt` is another file than
    // `my notes.txt`.
    return standsAmongCjk(chars, index, multiline) ? undefined : 'space'
  }
  if (ODD_SPACE.test(char) && char !== ' ') return 'space'
  if (UNREADABLE.test(char)) return 'unreadable'
  if (char === ESCAPE_OPEN) return 'escape-mark'
  return undefined
}

const WARNING_OF: Readonly<Record<EscapeReason, DisplayWarning | undefined>> = {
  direction: 'direction',
  invisible: 'hidden',
  control: 'hidden',
  space: 'hidden',
  unreadable: 'hidden',
  confusable: 'confusable',
  'line-ending': undefined,
  'escape-mark': undefined,
}

/** `⟨U+202E⟩`: upper-case hex, at least four digits. */
export function escapeLabel(codePoint: number): string {
  const hex = codePoint.toString(16).toUpperCase().padStart(4, '0')
  return `${ESCAPE_OPEN}U+${hex}${ESCAPE_CLOSE}`
}

/**
 * The one function every string shown to the person goes through: splits
 * `text` into plain text and escapes, and says which warnings the window
 * must show. Lone surrogates count as characters of their own (they are
 * escaped, never dropped), so the segments always join back to `text`.
 */
export function displaySafe(text: string, options: DisplaySafeOptions = {}): DisplaySafeText {
  const multiline = options.multiline === true
  // Splitting by code point keeps a lone surrogate as one element.
  const chars = Array.from(text)
  const name = options.name === true
  const confusable = name ? confusableIndexes(chars) : new Set<number>()
  const reasons = chars.map(
    (char, index) =>
      escapeReason(chars, index, multiline) ?? (confusable.has(index) ? 'confusable' : undefined),
  )
  // A name's look-alike letters are escapes; in other text a look-alike
  // word stays readable, marked. An escape ends a word: it is not drawn.
  // What passes for a shell's quotes or comment sign is marked too (see
  // syntaxLookalikeIndexes for where text with lines keeps it plain).
  const lookalike = name
    ? new Set<number>()
    : lookalikeWordIndexes(chars.map((char, index) => (reasons[index] ? ' ' : char)))
  if (!name) {
    for (const index of syntaxLookalikeIndexes(chars, multiline)) {
      if (reasons[index] === undefined) lookalike.add(index)
    }
  }
  const segments: DisplaySegment[] = []
  const warnings = new Set<DisplayWarning>()
  if (lookalike.size > 0) warnings.add('confusable')
  let plain = ''
  let plainLookalike = false
  const flush = () => {
    if (plain === '') return
    segments.push(
      plainLookalike
        ? { kind: 'text', text: plain, lookalike: true }
        : { kind: 'text', text: plain },
    )
    plain = ''
  }
  chars.forEach((char, index) => {
    const reason = reasons[index]
    if (reason === undefined) {
      if (lookalike.has(index) !== plainLookalike) flush()
      plainLookalike = lookalike.has(index)
      plain += char
      return
    }
    flush()
    segments.push({
      kind: 'escape',
      original: char,
      label: escapeLabel(char.codePointAt(0) ?? 0),
      reason,
    })
    const warning = WARNING_OF[reason]
    if (warning) warnings.add(warning)
  })
  flush()
  // Multi-line text is read as prose, where right-to-left runs are normal;
  // a one-line value (a path, a command word) is shown in stored order.
  const mixedDirection = !multiline && RIGHT_TO_LEFT.test(text) && OTHER_THAN_RTL.test(text)
  if (mixedDirection) warnings.add('direction')
  return { segments, warnings, mixedDirection }
}

/** The display form as one plain string (a window title, a notification):
 *  each escape as its label. Literal `⟨` is itself escaped, so this form
 *  reads back to exactly the original (`readFlatDisplay`). */
export function flatDisplay(safe: DisplaySafeText): string {
  return safe.segments
    .map((segment) => (segment.kind === 'text' ? segment.text : segment.label))
    .join('')
}

/** The original text behind a display form. */
export function originalText(safe: DisplaySafeText): string {
  return safe.segments
    .map((segment) => (segment.kind === 'text' ? segment.text : segment.original))
    .join('')
}

const FLAT_ESCAPE = /⟨U\+([0-9A-F]{4,6})⟩/g

/** Reads a flat display form back into the text it was made from. */
export function readFlatDisplay(flat: string): string {
  return flat.replace(FLAT_ESCAPE, (_match, hex: string) =>
    String.fromCodePoint(Number.parseInt(hex, 16)),
  )
}
