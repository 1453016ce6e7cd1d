import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { clickToDecide } from '../consent-keys.ts'
import type { CaseDefinition } from '../case-context.ts'
import { UI, WAIT_TIMEOUT_MS, waitFor } from '../workbench-ui.ts'
import { askFor, closedSoon, openReview } from './manual-cases.ts'

const MCP_CONTENT = 'written by an MCP tool after a person allowed it'

/**
 * An MCP tool call behind the consent window: the offline agent calls the
 * write tool of Assent's built-in filesystem server, which is gated like any
 * MCP tool that can change something.
 */
export const mcpCases: CaseDefinition[] = [
  {
    id: 'mcp-tool-call',
    title:
      'An MCP tool call: the card has the MCP look, the protected window shows the full arguments, allow runs it',
    screenshots: ['mcp-tool-call-card.png', 'protected-mcp-tool-call.png'],
    async run(context) {
      const page = await context.driver.workbench()
      const target = join(context.driver.workspace, 'mcp-note.txt')
      const approval = await askFor(
        context,
        page,
        `mcp filesystem write_file {"path": "mcp-note.txt", "content": "${MCP_CONTENT}"}`,
      )
      context.check(
        'the call asks with an MCP tool-call approval',
        approval.kind === 'mcp-tool-call',
        approval.kind,
      )
      const card = (await page.textContent(UI.card(approval.id))) ?? ''
      context.check(
        'the card says MCP tool call and names the server',
        card.includes('MCP tool call') && card.includes('Workspace files (built in)'),
        card.slice(0, 200),
      )
      context.check('nothing was written yet', !existsSync(target))
      await context.screenshot(page, 'mcp-tool-call-card.png', 'An MCP tool-call card')

      const consent = await openReview(context, page, approval.id)
      const shown = (await consent.page.textContent('body')) ?? ''
      context.check(
        'the protected window shows the server, the tool description and the full arguments',
        shown.includes('Workspace files (built in)') &&
          shown.includes('Writes a text file inside the workspace') &&
          shown.includes(MCP_CONTENT) &&
          shown.includes('"path": "mcp-note.txt"'),
      )
      await context.screenshot(
        consent.page,
        'protected-mcp-tool-call.png',
        'The protected window for an MCP tool call, with its full arguments',
      )
      await clickToDecide(consent.page, '#assent-allow-once')
      context.check('the window closes after the decision', await closedSoon(consent))
      const readNow = () => (existsSync(target) ? readFileSync(target, 'utf8') : '(missing)')
      const content = await waitFor(
        async () => (readNow() === MCP_CONTENT ? readNow() : undefined),
        'mcp-note.txt with the approved content',
      ).catch(readNow)
      context.check(
        'the MCP tool ran with the approved arguments',
        content === MCP_CONTENT,
        content,
      )
      await page.waitForSelector(UI.cardOutcome(approval.id), { timeout: WAIT_TIMEOUT_MS })
      const outcome = (await page.textContent(UI.cardOutcome(approval.id)))?.trim() ?? ''
      context.check('the card says Approved', /Approved/.test(outcome), outcome)
    },
  },
]
