import { displaySafe, type DisplaySegment } from '../common/display-safe-text.ts'
import type { Language } from '../common/consent-view.ts'
import { translate, type MessageKey } from '../common/i18n/index.ts'
import { MAX_SHOWN_LINES, type FileChange, type FileChangeLine } from '../contracts/file-change.ts'
import type { SafeTextWriter } from './safe-text-writer.ts'

// More lines than MAX_SHOWN_LINES the runtime refuses before asking; the
// window still stops there and says how many it left out rather than
// build an endless page.
export { MAX_SHOWN_LINES }

/** Splits safe segments at line feeds, keeping each line's escapes and
 *  the marks of its look-alike words. */
export function splitSegmentLines(segments: readonly DisplaySegment[]): DisplaySegment[][] {
  const lines: DisplaySegment[][] = [[]]
  for (const segment of segments) {
    if (segment.kind !== 'text') {
      lines.at(-1)?.push(segment)
      continue
    }
    segment.text.split('\n').forEach((piece, index) => {
      if (index > 0) lines.push([])
      if (piece !== '') lines.at(-1)?.push({ ...segment, text: piece })
    })
  }
  return lines
}

/** The whole new content of a file, numbered line by line. */
export function renderFileContent(
  document: Document,
  parent: HTMLElement,
  content: string,
  writer: SafeTextWriter,
  lang: Language,
): void {
  if (content === '') {
    const empty = document.createElement('p')
    empty.className = 'consent-note'
    empty.textContent = translate(lang, 'consent.action.emptyContent')
    parent.append(empty)
    return
  }
  const safe = displaySafe(content, { multiline: true })
  writer.note(safe.warnings)
  const lines = splitSegmentLines(safe.segments)
  // A final line feed ends the last line; it does not start an empty one.
  if (content.endsWith('\n')) lines.pop()
  const table = new LineTable(document, writer, lang, false)
  lines.slice(0, MAX_SHOWN_LINES).forEach((line, index) => {
    table.row('context', undefined, index + 1, line)
  })
  parent.append(table.element)
  if (lines.length > MAX_SHOWN_LINES) cutNote(document, parent, lang, lines.length)
}

/** A change as unified hunks: removed, added and context lines with their
 *  old and new line numbers. */
export function renderFileChange(
  document: Document,
  parent: HTMLElement,
  change: FileChange,
  writer: SafeTextWriter,
  lang: Language,
): void {
  const heading = document.createElement('h3')
  heading.className = 'consent-block-heading'
  const added = change.hunks.reduce((sum, hunk) => sum + hunk.newLines, 0)
  heading.textContent =
    change.kind === 'create'
      ? added === 1
        ? translate(lang, 'consent.action.newFileOne')
        : translate(lang, 'consent.action.newFile', { lines: String(added) })
      : translate(lang, 'consent.action.changes')
  parent.append(heading)
  const table = new LineTable(document, writer, lang, change.kind === 'modify')
  let shown = 0
  const total = change.hunks.reduce((sum, hunk) => sum + hunk.lines.length, 0)
  for (const hunk of change.hunks) {
    if (shown >= MAX_SHOWN_LINES) break
    if (change.kind === 'modify') {
      const last = hunk.newStart + Math.max(hunk.newLines, 1) - 1
      const from = String(hunk.newStart)
      table.separator(
        last === hunk.newStart
          ? translate(lang, 'consent.action.hunkOne', { from })
          : translate(lang, 'consent.action.hunk', { from, to: String(last) }),
      )
    }
    let oldLine = hunk.oldStart
    let newLine = hunk.newStart
    for (const line of hunk.lines) {
      if (shown >= MAX_SHOWN_LINES) break
      shown += 1
      table.row(
        line.op,
        line.op === 'add' ? undefined : oldLine,
        line.op === 'remove' ? undefined : newLine,
        safeLine(line, writer),
        line.noFinalNewline === true,
      )
      if (line.op !== 'add') oldLine += 1
      if (line.op !== 'remove') newLine += 1
    }
  }
  parent.append(table.element)
  if (shown < total) cutNote(document, parent, lang, total)
}

function safeLine(line: FileChangeLine, writer: SafeTextWriter): DisplaySegment[] {
  const safe = displaySafe(line.text, { multiline: true })
  writer.note(safe.warnings)
  return [...safe.segments]
}

/**
 * A changed line's spaces and tabs at its end, set apart from the rest of
 * its segments: drawn as they are they cannot be seen, and a line that
 * gained or lost only them (a shell line's `\` followed by a space no
 * longer joins the next line) would read as the line it replaced.
 */
export function trailingSpaces(segments: readonly DisplaySegment[]): {
  segments: DisplaySegment[]
  trailing: string
} {
  const last = segments.at(-1)
  if (last?.kind !== 'text') return { segments: [...segments], trailing: '' }
  // Walked back by hand: a pattern anchored at the end would try every
  // start in a long run of spaces, and an agent chooses the line.
  let end = last.text.length
  while (end > 0 && (last.text[end - 1] === ' ' || last.text[end - 1] === '\t')) end -= 1
  if (end === last.text.length) return { segments: [...segments], trailing: '' }
  const kept = last.text.slice(0, end)
  return {
    segments: [...segments.slice(0, -1), ...(kept === '' ? [] : [{ ...last, text: kept }])],
    trailing: last.text.slice(end),
  }
}

function cutNote(document: Document, parent: HTMLElement, lang: Language, total: number): void {
  const note = document.createElement('p')
  note.className = 'consent-note consent-note-caution'
  note.textContent = translate(lang, 'consent.action.moreLines', {
    shown: String(MAX_SHOWN_LINES),
    total: String(total),
  })
  parent.append(note)
}

const OP_LABELS: Readonly<Record<FileChangeLine['op'], MessageKey | undefined>> = {
  add: 'consent.action.lineAdded',
  remove: 'consent.action.lineRemoved',
  context: undefined,
}

/** A table of numbered lines. Line numbers and signs are cells of their
 *  own, so copying or reading the text column gives the text alone. */
class LineTable {
  readonly element: HTMLTableElement
  private readonly body: HTMLTableSectionElement
  private readonly document: Document
  private readonly writer: SafeTextWriter
  private readonly lang: Language
  private readonly diff: boolean

  constructor(document: Document, writer: SafeTextWriter, lang: Language, diff: boolean) {
    this.document = document
    this.writer = writer
    this.lang = lang
    this.diff = diff
    this.element = document.createElement('table')
    this.element.className = diff ? 'consent-lines consent-diff' : 'consent-lines'
    const head = document.createElement('thead')
    const headRow = document.createElement('tr')
    const columns: MessageKey[] = diff
      ? [
          'consent.action.columnOld',
          'consent.action.columnNew',
          'consent.action.columnChange',
          'consent.action.columnText',
        ]
      : ['consent.action.columnLine', 'consent.action.columnText']
    for (const key of columns) {
      const cell = document.createElement('th')
      cell.scope = 'col'
      cell.className = 'consent-visually-hidden'
      cell.textContent = translate(lang, key)
      headRow.append(cell)
    }
    head.append(headRow)
    this.body = document.createElement('tbody')
    this.element.append(head, this.body)
  }

  separator(text: string): void {
    const row = this.document.createElement('tr')
    row.className = 'consent-hunk'
    const cell = this.document.createElement('td')
    cell.colSpan = this.diff ? 4 : 2
    cell.textContent = text
    row.append(cell)
    this.body.append(row)
  }

  row(
    op: FileChangeLine['op'],
    oldNumber: number | undefined,
    newNumber: number | undefined,
    segments: readonly DisplaySegment[],
    noFinalNewline = false,
  ): void {
    const row = this.document.createElement('tr')
    row.className = `consent-line consent-line-${op}`
    const numbers = this.diff ? [oldNumber, newNumber] : [newNumber]
    for (const number of numbers) row.append(this.cell('consent-line-number', number))
    if (this.diff) {
      const sign = this.cell('consent-line-sign', undefined)
      const label = OP_LABELS[op]
      if (label) {
        const mark = this.document.createElement('span')
        mark.setAttribute('aria-hidden', 'true')
        mark.textContent = op === 'add' ? '+' : '−'
        const words = this.document.createElement('span')
        words.className = 'consent-visually-hidden'
        words.textContent = translate(this.lang, label)
        sign.append(mark, words)
      }
      row.append(sign)
    }
    const text = this.cell('consent-line-text', undefined)
    const { segments: shown, trailing } =
      op === 'context' ? { segments, trailing: '' } : trailingSpaces(segments)
    this.writer.appendSegments(text, shown)
    if (trailing !== '') {
      const spaces = this.document.createElement('span')
      spaces.className = 'consent-trailing-space'
      spaces.textContent = trailing
      const words = this.document.createElement('span')
      words.className = 'consent-visually-hidden'
      words.textContent = translate(this.lang, 'consent.action.trailingSpaces')
      text.append(spaces, words)
    }
    if (noFinalNewline) {
      // Said in words after the text, not left to the diff's remark line:
      // where only the last line feed changed, the removed and the added
      // line read the same, and this is the one difference to see.
      const end = this.document.createElement('span')
      end.className = 'consent-line-end'
      end.textContent = translate(this.lang, 'consent.action.noFinalNewline')
      text.append(end)
    }
    row.append(text)
    this.body.append(row)
  }

  private cell(className: string, number: number | undefined): HTMLTableCellElement {
    const cell = this.document.createElement('td')
    cell.className = className
    if (number !== undefined) cell.textContent = String(number)
    return cell
  }
}
