import { displaySafe, flatDisplay } from '../common/display-safe-text.ts'
import type { ApprovalView } from '../common/consent-view.ts'
import { translate } from '../common/i18n/index.ts'
import { shortened } from './consent-action-render.ts'
import { CONSENT_CLASSES } from './consent-page-ids.ts'
import type { SafeTextWriter } from './safe-text-writer.ts'

/** What the window says under its buttons of an approval: what Deny does,
 *  what each "Always allow" would remember; the label of the server-wide
 *  one, which names the server; and, in the scrolled action, the tools it
 *  would remember. */

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
  // The file a grant would remember: an agent's file by where a link leads.
  const path =
    view.action.type === 'delete'
      ? view.action.absolutePath
      : view.action.type === 'agent-file-changes'
        ? (view.action.changes[0]?.realPath ?? view.action.changes[0]?.path ?? '')
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
      prompt: (parent: HTMLElement) => {
        const element = document.createElement('code')
        const flat = writer.append(
          element,
          view.alwaysAllow.offered ? (view.alwaysAllow.prompt ?? '') : '',
          { name: true },
        )
        parent.append(element)
        return flat
      },
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
    // Counts the tools and names none: the list is as long as the server
    // makes it, so it lives in the scrolled action (renderServerTools),
    // where the scroll gate makes the person pass it before any allow.
    line(CONSEQUENCE_IDS.alwaysAllowServer, (paragraph) => {
      writer.message(paragraph, lang, 'consent.consequence.alwaysAllowServer', {
        server: (parent) => writer.append(parent, mcpServer, { name: true }),
        count: (parent) => {
          const count = String(serverWide.toolNames.length)
          parent.append(document.createTextNode(count))
          return count
        },
      })
    })
  }
}

/**
 * At the end of an MCP call's action, before the marker the scroll gate
 * waits for: every tool "Always allow every tool of <server>" would
 * remember, each name display-safe. Draws nothing where that is not offered.
 */
export function renderServerTools(
  document: Document,
  body: HTMLElement,
  view: ApprovalView,
  writer: SafeTextWriter,
): void {
  const serverWide = view.serverAlwaysAllow
  if (view.action.type !== 'mcp' || !serverWide?.offered) return
  const heading = document.createElement('h3')
  heading.className = 'consent-block-heading'
  heading.id = SERVER_TOOLS_HEADING_ID
  heading.textContent = translate(view.lang, 'consent.action.serverTools', {
    count: String(serverWide.toolNames.length),
  })
  const list = document.createElement('ul')
  list.id = SERVER_TOOLS_ID
  list.className = 'consent-tool-list'
  list.setAttribute('aria-labelledby', SERVER_TOOLS_HEADING_ID)
  for (const name of serverWide.toolNames) {
    const item = document.createElement('li')
    const code = document.createElement('code')
    writer.append(code, name, { name: true })
    item.append(code)
    list.append(item)
  }
  body.append(heading, list)
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

/** Id of the list, in the scrolled action, of every tool a server-wide
 *  "Always allow" would remember, and of its heading. */
export const SERVER_TOOLS_ID = 'assent-server-tools'
const SERVER_TOOLS_HEADING_ID = 'assent-server-tools-heading'
