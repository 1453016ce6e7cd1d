import { commandLineDisplay } from '../common/command-line-display.ts'
import type { ApprovalView, Language } from '../common/consent-view.ts'
import { translate, type MessageKey } from '../common/i18n/index.ts'
import { contentLineCount } from '../contracts/file-change.ts'
import { renderFileContent, renderFileChange } from './file-lines-render.ts'
import type { SafeTextWriter } from './safe-text-writer.ts'

/** Longest command, path or name the title shows before it says "…"; the
 *  action below always shows the whole of it. */
export const TITLE_VALUE_MAX_CHARS = 60

/** `value` cut to `max` code points (TITLE_VALUE_MAX_CHARS by default) with
 *  "…" where it was cut: at the end, or for a path at the start, so the
 *  file name stays. */
export function shortened(value: string, keepEnd: boolean, max = TITLE_VALUE_MAX_CHARS): string {
  const chars = Array.from(value)
  if (chars.length <= max) return value
  const kept = max - 1
  return keepEnd ? `…${chars.slice(-kept).join('')}` : `${chars.slice(0, kept).join('')}…`
}

/**
 * Draws the action an approval asks for, first and in full: a command line
 * and where it runs, a file and its change, a path to delete and whether
 * the delete is recursive, an MCP call's server, tool and arguments. Every
 * value is made safe by the writer; nothing is cut without saying so.
 */
export function renderApprovalAction(
  document: Document,
  body: HTMLElement,
  view: ApprovalView,
  writer: SafeTextWriter,
): void {
  body.replaceChildren()
  const { action, lang } = view
  const facts = new FactList(document, body, writer, lang)
  switch (action.type) {
    case 'command':
      facts.add(
        'consent.action.commandLine',
        commandLineDisplay(action.argv, action.shell),
        'consent-command',
      )
      facts.add('consent.action.directory', action.directory, 'consent-mono')
      if (action.timeoutMs !== undefined) {
        const seconds = String(Math.ceil(action.timeoutMs / 1_000))
        facts.add(
          'consent.action.timeLimit',
          translate(lang, 'consent.action.seconds', { seconds }),
        )
      }
      if (action.shell) note(document, body, translate(lang, 'consent.action.shell'), true)
      return
    case 'write':
      facts.add('consent.action.writePath', action.path, 'consent-mono')
      facts.add('consent.action.resolvesTo', action.absolutePath, 'consent-mono')
      if (action.fileChange) {
        renderFileChange(document, body, action.fileChange, writer, lang)
        if (!action.fileChange.truncated) return
        note(document, body, translate(lang, 'consent.action.truncated'), true)
        heading(document, body, translate(lang, 'consent.action.contentAfterTruncation'))
      } else {
        const lines = contentLineCount(action.content)
        const key = lines === 1 ? 'consent.action.contentWholeOne' : 'consent.action.contentWhole'
        heading(document, body, translate(lang, key, { lines: String(lines) }))
      }
      renderFileContent(document, body, action.content, writer, lang)
      return
    case 'delete':
      facts.add('consent.action.deletePath', action.path, 'consent-mono')
      facts.add('consent.action.resolvesTo', action.absolutePath, 'consent-mono')
      note(
        document,
        body,
        translate(
          lang,
          action.recursive ? 'consent.action.recursiveYes' : 'consent.action.recursiveNo',
        ),
        action.recursive,
      )
      return
    case 'read':
      facts.add(
        action.listing ? 'consent.action.listPath' : 'consent.action.readPath',
        action.path,
        'consent-mono',
      )
      facts.add('consent.action.resolvesTo', action.absolutePath, 'consent-mono')
      return
    case 'mcp':
      facts.add('consent.action.server', action.serverName, '', { name: true })
      facts.add('consent.action.tool', view.toolName, 'consent-mono', { name: true })
      if (action.serverFolder !== null) {
        facts.add('consent.action.serverFolder', action.serverFolder, 'consent-mono')
      }
      block(document, body, writer, translate(lang, 'consent.action.arguments'), view.argumentsText)
      block(
        document,
        body,
        writer,
        translate(lang, 'consent.action.toolDescription'),
        action.toolDescription,
        'consent-prose',
      )
      if (action.previewText !== null) {
        block(document, body, writer, translate(lang, 'consent.action.preview'), action.previewText)
      }
      return
    case 'permission': {
      const { widen } = action
      if (widen.type === 'write-directory') {
        facts.addOurs(
          'consent.action.permission.widens',
          translate(lang, 'consent.action.permission.writeDirectory'),
        )
        facts.add('consent.action.permission.folder', widen.path, 'consent-mono')
      } else {
        facts.addOurs(
          'consent.action.permission.widens',
          translate(lang, 'consent.action.permission.network'),
        )
        facts.add(
          'consent.action.commandLine',
          commandLineDisplay(widen.argv, false),
          'consent-command',
        )
        facts.add('consent.action.directory', widen.directory, 'consent-mono')
      }
      facts.addOurs(
        'consent.action.permission.duration',
        translate(lang, 'consent.action.permission.thisTurn'),
      )
      if (widen.type === 'write-directory') {
        note(document, body, translate(lang, 'consent.action.permission.eachWriteAsks'), false)
      }
      if (action.reason !== '') {
        block(
          document,
          body,
          writer,
          translate(lang, 'consent.action.permission.reason'),
          action.reason,
          'consent-prose',
        )
      }
      return
    }
    case 'other':
      facts.add('consent.action.tool', view.toolName, 'consent-mono', { name: true })
      block(document, body, writer, translate(lang, 'consent.action.arguments'), view.argumentsText)
      return
    case 'agent-command':
      facts.add('consent.action.commandLine', action.commandLine, 'consent-command')
      facts.add('consent.action.directory', action.directory, 'consent-mono')
      // The agent runs it where the link leads: said right under the name.
      if (action.realDirectory !== undefined) {
        facts.add('consent.action.leadsTo', action.realDirectory, 'consent-mono')
      }
      note(document, body, translate(lang, 'consent.action.agentCommand'), true)
      return
    case 'agent-file-changes':
      // Each file with its diff first; the agent's own text only where the
      // diff cannot show all of it.
      for (const change of action.changes) {
        const file = new FactList(document, body, writer, lang)
        file.add(FILE_CHANGE_LABELS[change.change], change.path, 'consent-mono')
        // The agent writes where a link leads: said right under the name.
        if (change.realPath !== undefined) {
          file.add('consent.action.leadsTo', change.realPath, 'consent-mono')
        }
        if (change.movePath !== null) {
          file.add('consent.action.moveTo', change.movePath, 'consent-mono')
          if (change.realMovePath !== undefined) {
            file.add('consent.action.leadsTo', change.realMovePath, 'consent-mono')
          }
        }
        if (change.fileChange) {
          renderFileChange(document, body, change.fileChange, writer, lang)
          if (change.fileChange.truncated) {
            note(document, body, translate(lang, 'consent.action.truncated'), true)
          }
        }
        if (change.agentDiff !== null) {
          block(
            document,
            body,
            writer,
            translate(lang, 'consent.action.agentDiff'),
            change.agentDiff,
          )
        }
      }
      return
  }
}

const FILE_CHANGE_LABELS = {
  add: 'consent.action.fileAdd',
  update: 'consent.action.fileUpdate',
  delete: 'consent.action.fileDelete',
} as const satisfies Record<string, MessageKey>

/** A list of label and value rows, one grid so values line up. */
class FactList {
  private list: HTMLDListElement | undefined
  private readonly document: Document
  private readonly parent: HTMLElement
  private readonly writer: SafeTextWriter
  private readonly lang: Language

  constructor(document: Document, parent: HTMLElement, writer: SafeTextWriter, lang: Language) {
    this.document = document
    this.parent = parent
    this.writer = writer
    this.lang = lang
  }

  add(label: MessageKey, value: string, className = '', options = { name: false }): void {
    this.row(label, this.writer.element('dd', `consent-value ${className}`.trim(), value, options))
  }

  /** A row whose value is the window's own catalog text, not the agent's
   *  or a server's: drawn as plain text, as a note is, since the checks
   *  for what passes for something else (a curly apostrophe in "room’s")
   *  are for text someone else chose. */
  addOurs(label: MessageKey, text: string): void {
    const description = this.document.createElement('dd')
    description.className = 'consent-value'
    description.textContent = text
    this.row(label, description)
  }

  private row(label: MessageKey, description: HTMLElement): void {
    if (!this.list) {
      this.list = this.document.createElement('dl')
      this.list.className = 'consent-facts consent-action-facts'
      this.parent.append(this.list)
    }
    const row = this.document.createElement('div')
    row.className = 'consent-fact'
    const term = this.document.createElement('dt')
    term.textContent = translate(this.lang, label)
    row.append(term, description)
    this.list.append(row)
  }
}

function note(document: Document, parent: HTMLElement, text: string, caution: boolean): void {
  const paragraph = document.createElement('p')
  paragraph.className = caution ? 'consent-note consent-note-caution' : 'consent-note'
  paragraph.textContent = text
  parent.append(paragraph)
}

function heading(document: Document, parent: HTMLElement, text: string): void {
  const element = document.createElement('h3')
  element.className = 'consent-block-heading'
  element.textContent = text
  parent.append(element)
}

/** A labelled block of multi-line text: arguments, a description, a
 *  preview. Wrapped, never clipped; the page scrolls, not the block. */
function block(
  document: Document,
  parent: HTMLElement,
  writer: SafeTextWriter,
  label: string,
  text: string,
  className = 'consent-code',
): void {
  heading(document, parent, label)
  parent.append(writer.element('pre', className, text, { multiline: true }))
}
