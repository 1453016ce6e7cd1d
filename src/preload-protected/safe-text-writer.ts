import {
  displaySafe,
  flatDisplay,
  type DisplaySafeOptions,
  type DisplaySegment,
  type DisplayWarning,
} from '../common/display-safe-text.ts'
import type { Language } from '../common/consent-view.ts'
import { messageParts, type MessageKey } from '../common/i18n/index.ts'
import { CONSENT_CLASSES } from './consent-page-ids.ts'

/** Spaces HTML's white-space processing would collapse or drop. */
const COLLAPSIBLE_SPACES = /^ | $| {2}/

/** Draws one placeholder's value into the element it belongs in. */
export type PlaceholderWriter = (parent: HTMLElement) => string

/**
 * Puts text on the consent page the one safe way: every string from the
 * agent, a server or the runtime goes through `displaySafe`, and its parts
 * become text nodes and `<span>` escapes made with DOM calls; nothing is
 * ever parsed as markup. It collects the warnings the window must show
 * above its buttons.
 */
export class SafeTextWriter {
  readonly warnings = new Set<DisplayWarning>()
  private readonly document: Document
  private readonly escapeTitle: string

  constructor(document: Document, escapeTitle: string) {
    this.document = document
    this.escapeTitle = escapeTitle
  }

  /** Appends `text` to `parent`; returns its flat display form. */
  append(parent: HTMLElement, text: string, options: DisplaySafeOptions = {}): string {
    const safe = displaySafe(text, options)
    for (const warning of safe.warnings) this.warnings.add(warning)
    let target = parent
    if (safe.mixedDirection) {
      // Shown in the order it is stored, so right-to-left letters cannot
      // carry the digits and dots around them to another place.
      target = this.document.createElement('span')
      target.className = CONSENT_CLASSES.storedOrder
      target.dir = 'ltr'
      parent.append(target)
    }
    this.appendSegments(target, safe.segments, options.multiline !== true)
    return flatDisplay(safe)
  }

  /** Appends segments already made safe (a line of a larger text, whose
   *  element keeps its spaces; `oneLine` for a value whose element may not). */
  appendSegments(parent: HTMLElement, segments: readonly DisplaySegment[], oneLine = false): void {
    for (const segment of segments) {
      if (segment.kind === 'text') {
        parent.append(this.textOf(segment.text, segment.lookalike === true, oneLine))
        continue
      }
      const escape = this.document.createElement('span')
      escape.className = `${CONSENT_CLASSES.escape} ${CONSENT_CLASSES.escape}-${segment.reason}`
      escape.title = this.escapeTitle
      escape.textContent = segment.label
      parent.append(escape)
    }
  }

  /**
   * A text node, or a span around it where it must be told apart: a word
   * that can pass for another is marked; text whose spaces the browser
   * would collapse (two in a row, one at either end) keeps them, wherever
   * the value stands (`notes  final.txt ` is another file than
   * `notes final.txt`).
   */
  private textOf(text: string, lookalike: boolean, oneLine: boolean): Node {
    const node = this.document.createTextNode(text)
    const classes = [
      ...(lookalike ? [CONSENT_CLASSES.lookalike] : []),
      ...(oneLine && COLLAPSIBLE_SPACES.test(text) ? [CONSENT_CLASSES.exactSpaces] : []),
    ]
    if (classes.length === 0) return node
    const span = this.document.createElement('span')
    span.className = classes.join(' ')
    span.append(node)
    return span
  }

  /** Records the warnings of text made safe elsewhere (split into lines). */
  note(warnings: Iterable<DisplayWarning>): void {
    for (const warning of warnings) this.warnings.add(warning)
  }

  /** A new element of `tag` holding `text`, made safe. */
  element<K extends keyof HTMLElementTagNameMap>(
    tag: K,
    className: string,
    text: string,
    options: DisplaySafeOptions = {},
  ): HTMLElementTagNameMap[K] {
    const element = this.document.createElement(tag)
    if (className !== '') element.className = className
    this.append(element, text, options)
    return element
  }

  /**
   * Fills `parent` with a catalog message whose placeholders are drawn by
   * `values` (each makes its value safe itself); returns the flat form,
   * for a window title. Catalog text is ours and goes in as plain text.
   */
  message(
    parent: HTMLElement,
    lang: Language,
    key: MessageKey,
    values: Readonly<Record<string, PlaceholderWriter>>,
  ): string {
    parent.replaceChildren()
    let flat = ''
    for (const part of messageParts(lang, key)) {
      if ('text' in part) {
        parent.append(this.document.createTextNode(part.text))
        flat += part.text
        continue
      }
      const write = Object.hasOwn(values, part.placeholder) ? values[part.placeholder] : undefined
      if (write) {
        flat += write(parent)
      } else {
        // A placeholder without a value stays visible, as in `translate`.
        const placeholder = `{{${part.placeholder}}}`
        parent.append(this.document.createTextNode(placeholder))
        flat += placeholder
      }
    }
    return flat
  }
}
