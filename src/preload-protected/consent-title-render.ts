import type { ApprovalView } from '../common/consent-view.ts'
import { commandLineDisplay } from '../common/command-line-display.ts'
import { shortened } from './consent-action-render.ts'
import type { SafeTextWriter } from './safe-text-writer.ts'

// The protected window's title for an approval: the question it asks the
// person, in their language, each value written as text (never markup).

/** The question, in words: "Allow Assistant to write notes.txt?". A value
 *  too long for a title is cut with "…"; the action shows it whole. */
export function renderApprovalTitle(
  document: Document,
  heading: HTMLElement,
  view: ApprovalView,
  writer: SafeTextWriter,
): string {
  const plain = (value: string) => (parent: HTMLElement) => writer.append(parent, value)
  const code =
    (value: string, options: { name?: boolean; keepEnd?: boolean; quote?: boolean } = {}) =>
    (parent: HTMLElement) => {
      const element = document.createElement('code')
      element.className = 'consent-title-value'
      const flat = writer.append(element, shortened(value, options.keepEnd === true), options)
      parent.append(element)
      return options.quote ? `\`${flat}\`` : flat
    }
  const { action, lang } = view
  const agent = plain(view.agentLabel)
  switch (action.type) {
    case 'command':
      return writer.message(heading, lang, 'consent.title.command', {
        agent,
        command: code(commandLineDisplay(action.argv, action.shell), { quote: true }),
      })
    case 'write':
      return writer.message(heading, lang, 'consent.title.write', {
        agent,
        path: code(action.path, { keepEnd: true }),
      })
    case 'delete':
      return writer.message(
        heading,
        lang,
        action.recursive ? 'consent.title.deleteRecursive' : 'consent.title.delete',
        { agent, path: code(action.path, { keepEnd: true }) },
      )
    case 'read':
      return writer.message(
        heading,
        lang,
        action.listing ? 'consent.title.list' : 'consent.title.read',
        {
          agent,
          path: code(action.path, { keepEnd: true }),
        },
      )
    case 'mcp':
      return writer.message(heading, lang, 'consent.title.mcp', {
        server: (parent) => writer.append(parent, action.serverName, { name: true }),
        tool: code(view.toolName, { name: true }),
      })
    case 'permission':
      return action.widen.type === 'write-directory'
        ? writer.message(heading, lang, 'consent.title.permissionWrite', {
            agent,
            path: code(action.widen.path, { keepEnd: true }),
          })
        : writer.message(heading, lang, 'consent.title.permissionNetwork', {
            agent,
            command: code(commandLineDisplay(action.widen.argv, false), { quote: true }),
          })
    case 'other':
      return writer.message(heading, lang, 'consent.title.other', {
        agent,
        tool: code(view.toolName, { name: true }),
      })
    case 'agent-command':
      return writer.message(heading, lang, 'consent.title.command', {
        agent,
        command: code(action.commandLine, { quote: true }),
      })
    case 'agent-file-changes': {
      const [only, ...rest] = action.changes
      if (only && rest.length === 0) {
        return writer.message(heading, lang, 'consent.title.changeFile', {
          agent,
          path: code(only.path, { keepEnd: true }),
        })
      }
      return writer.message(heading, lang, 'consent.title.changeFiles', {
        agent,
        count: plain(String(action.changes.length)),
      })
    }
  }
}
