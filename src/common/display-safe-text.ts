import { confusableIndexes } from './confusable-names.ts'

/**
 * Text shown to the person in the protected window (and the workbench's
 * cards) that cannot lie about what it says. `textContent` already keeps
 * agent text from becoming markup; this keeps it from hiding or reordering
 * itself: `invoice\u202Etxt.exe` must not read as `invoiceexe.txt`.
 *
 * Every character that is invisible, changes the direction of text, or
 * controls a terminal becomes an escape the person can see, `⟨U+202E⟩`,
 * which the UI draws as its own, distinctly styled element. The rest stays
 * text exactly as it was, so the original can always be read back.
 */

/** Why a character is shown as an escape. */
export type EscapeReason =
  /** Bidi controls: reorder the text around them. */
  | 'direction'
  /** Format characters and default-ignorables: zero width, joiners, BOM,
   *  tags, variation selectors, soft hyphen. */
  | 'invisible'
  /** C0 and C1 controls and DEL (ANSI escapes start with ESC). */
  | 'control'
  /** Spaces other than U+0020 and the ideographic space, and the line and
   *  paragraph separators: they look like a plain space or a line break. */
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
  | { readonly kind: 'text'; readonly text: string }
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
   *  are escapes too, and raise the `confusable` warning. */
  readonly name?: boolean
}

const ESCAPE_OPEN = '⟨'
const ESCAPE_CLOSE = '⟩'

const BIDI_CONTROL = /^[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]$/u
const INVISIBLE = /^[\p{Cf}\p{Default_Ignorable_Code_Point}]$/u
const CONTROL = /^\p{Cc}$/u
const ODD_SPACE = /^[\p{Zl}\p{Zp}\p{Zs}]$/u
const PLAIN_SPACES = new Set([' ', '\u3000'])
const UNREADABLE = /^[\p{Cn}\p{Cs}\p{Noncharacter_Code_Point}]$/u
/** Letters written right to left; a one-line value with them and anything
 *  else is reordered by the bidi algorithm. */
const RTL_SCRIPTS = [
  'Hebrew',
  'Arabic',
  'Syriac',
  'Thaana',
  'Nko',
  'Samaritan',
  'Mandaic',
  'Adlam',
  'Hanifi_Rohingya',
  'Yezidi',
  'Mende_Kikakui',
]
  .map((script) => `\\p{sc=${script}}`)
  .join('')
const RIGHT_TO_LEFT = new RegExp(`[${RTL_SCRIPTS}]`, 'u')
const OTHER_THAN_RTL = new RegExp(`[^\\s${RTL_SCRIPTS}]`, 'u')

/** The reason `char` must be escaped, or undefined when it is plain text.
 *  `next` is the code point after it (a CR before a LF is a line ending). */
function escapeReason(char: string, next: string | undefined, multiline: boolean) {
  if (multiline && (char === '\n' || char === '\t')) return undefined
  if (BIDI_CONTROL.test(char)) return 'direction'
  if (CONTROL.test(char)) {
    return multiline && char === '\r' && next === '\n' ? 'line-ending' : 'control'
  }
  if (INVISIBLE.test(char)) return 'invisible'
  if (ODD_SPACE.test(char) && !PLAIN_SPACES.has(char)) return 'space'
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
  const confusable = options.name === true ? confusableIndexes(chars) : new Set<number>()
  const segments: DisplaySegment[] = []
  const warnings = new Set<DisplayWarning>()
  let plain = ''
  chars.forEach((char, index) => {
    const reason =
      escapeReason(char, chars[index + 1], multiline) ??
      (confusable.has(index) ? 'confusable' : undefined)
    if (reason === undefined) {
      plain += char
      return
    }
    if (plain !== '') segments.push({ kind: 'text', text: plain })
    plain = ''
    segments.push({
      kind: 'escape',
      original: char,
      label: escapeLabel(char.codePointAt(0) ?? 0),
      reason,
    })
    const warning = WARNING_OF[reason]
    if (warning) warnings.add(warning)
  })
  if (plain !== '') segments.push({ kind: 'text', text: plain })
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
