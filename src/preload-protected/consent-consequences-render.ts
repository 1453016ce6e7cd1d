import { displaySafe, flatDisplay } from '../common/display-safe-text.ts'
import type { ConsentView } from '../common/consent-view.ts'
import { translate } from '../common/i18n/index.ts'
import { shortened } from './consent-action-render.ts'
import { CONSENT_CLASSES } from './consent-page-ids.ts'
import type { SafeTextWriter } from './safe-text-writer.ts'

/** What the window says under its buttons of an approval: what Deny does,
 *  what each "Always allow" would remember; and the label of the
 *  server-wide one, which names the server. */

type ApprovalView = Extract<ConsentView, { subject: 'approval' }>

/** Under the buttons: what Deny does, and what Always allow (per tool, or
 *  for the whole MCP server) would remember or why it is not offered. */
export function renderConsequences(
  document: Document,
  container: HTMLElement,
  view: ApprovalView,
  writer: SafeTextWriter,
): void {
  container.replaceChildren()
  const line = (id: string, build: (paragraph: HTMLElement) => void) => {
    const paragraph = document.createElement('p')
    paragraph.id = id
    paragraph.className = 'consent-consequence'
    build(paragraph)
    container.append(paragraph)
  }
  const { lang } = view
  line(CONSEQUENCE_IDS.deny, (paragraph) => {
    paragraph.textContent = translate(lang, 'consent.consequence.deny')
  })
  const mcpServer = view.action.type === 'mcp' ? view.action.serverName : ''
  const path =
    view.action.type === 'delete'
      ? view.action.absolutePath
      : view.action.type === 'agent-file-changes'
        ? (view.action.changes[0]?.path ?? '')
        : ''
  line(CONSEQUENCE_IDS.alwaysAllow, (paragraph) => {
    const values = {
      tool: (parent: HTMLElement) => {
        const element = document.createElement('code')
        const flat = writer.append(element, view.toolName, { name: true })
        parent.append(element)
        return flat
      },
      server: (parent: HTMLElement) => writer.append(parent, mcpServer, { name: true }),
      path: (parent: HTMLElement) => writer.append(parent, path),
    }
    const always = view.alwaysAllow
    if (always.offered) {
      writer.message(paragraph, lang, `consent.consequence.alwaysAllow.${always.scope}`, values)
    } else {
      paragraph.classList.add('consent-consequence-absent')
      writer.message(paragraph, lang, `consent.consequence.noAlwaysAllow.${always.reason}`, values)
    }
  })
  const serverWide = view.serverAlwaysAllow
  if (serverWide?.offered) {
    line(CONSEQUENCE_IDS.alwaysAllowServer, (paragraph) => {
      writer.message(paragraph, lang, 'consent.consequence.alwaysAllowServer', {
        server: (parent) => writer.append(parent, mcpServer, { name: true }),
        count: (parent) => {
          const count = String(serverWide.toolNames.length)
          parent.append(document.createTextNode(count))
          return count
        },
        tools: (parent) => {
          const flat: string[] = []
          serverWide.toolNames.forEach((name, index) => {
            if (index > 0) parent.append(document.createTextNode(', '))
            const element = document.createElement('code')
            flat.push(writer.append(element, name, { name: true }))
            parent.append(element)
          })
          return flat.join(', ')
        },
      })
    })
  }
}

/** Ids of the lines under the buttons, which the buttons name as their
 *  description. */
export const CONSEQUENCE_IDS = {
  deny: 'assent-consequence-deny',
  alwaysAllow: 'assent-consequence-always-allow',
  alwaysAllowServer: 'assent-consequence-always-allow-server',
} as const

/** Most characters of a server name the server-wide button shows; the line
 *  under the buttons names it whole. */
export const SERVER_BUTTON_NAME_MAX_CHARS = 32

/**
 * "Always allow every tool of <server>". A button's label must be plain
 * text (a click on a child element would not be a click on the button), so
 * the name goes in as its flat display-safe form: escapes as visible
 * `⟨U+…⟩` text, and a name mixing directions shown in stored order like
 * everywhere else on the page. The notices above the buttons already
 * cover the name: the title names the server too.
 */
export function labelServerButton(button: HTMLButtonElement, view: ApprovalView) {
  button.classList.remove(CONSENT_CLASSES.storedOrder)
  button.removeAttribute('aria-describedby')
  if (view.action.type !== 'mcp' || !view.serverAlwaysAllow?.offered) return
  const safe = displaySafe(shortened(view.action.serverName, false, SERVER_BUTTON_NAME_MAX_CHARS), {
    name: true,
  })
  if (safe.mixedDirection) button.classList.add(CONSENT_CLASSES.storedOrder)
  button.textContent = translate(view.lang, 'consent.button.allowAlwaysServer', {
    server: flatDisplay(safe),
  })
  button.setAttribute('aria-describedby', CONSEQUENCE_IDS.alwaysAllowServer)
}
