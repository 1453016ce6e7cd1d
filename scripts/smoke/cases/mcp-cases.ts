import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { clickToDecide } from '../consent-keys.ts'
import type { CaseDefinition } from '../case-context.ts'
import { UI, WAIT_TIMEOUT_MS, roomApprovals, sendViaComposer, waitFor } from '../workbench-ui.ts'
import { askFor, closedSoon, openReview, scenario } from './manual-cases.ts'

const MCP_CONTENT = 'written by an MCP tool after a person allowed it'

/**
 * An MCP tool call behind the protected window: the offline agent calls the
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
  {
    id: 'mcp-server-always-allow',
    title:
      'Always allow every tool of an MCP server: the window names the server and lists its tools, later calls to it run unasked, the grant is listed and revocable',
    screenshots: ['protected-mcp-server-always-allow.png', 'mcp-server-grant-listed.png'],
    async run(context) {
      const page = await context.driver.workbench()
      const { roomId } = scenario(context)
      const first = join(context.driver.workspace, 'server-wide-1.txt')
      const approval = await askFor(
        context,
        page,
        'mcp filesystem write_file {"path": "server-wide-1.txt", "content": "first"}',
      )
      const consent = await openReview(context, page, approval.id)
      const button = '#assent-allow-always-server'
      // The tools the server-wide offer remembers end the action: the person
      // scrolls to the action's end before Allow enables.
      await consent.page.locator('#assent-action-end').scrollIntoViewIfNeeded()
      await consent.page.waitForSelector(`${button}:not([disabled])`, { timeout: WAIT_TIMEOUT_MS })
      const label = (await consent.page.textContent(button))?.trim() ?? ''
      context.check(
        'the window offers "Always allow every tool of" the server, by name',
        label === 'Always allow every tool of Workspace files (built in)',
        label,
      )
      // The list is in the action, which the person scrolled through before
      // the button enabled; under the buttons, a line counts it.
      const tools = await consent.page
        .locator('#assent-action #assent-server-tools code')
        .allTextContents()
      context.check(
        'the action lists every tool the server offers now',
        tools.join(', ').includes('list_dir, read_file, write_file'),
        tools.join(', '),
      )
      const scope =
        (await consent.page.textContent('#assent-consequence-always-allow-server'))?.trim() ?? ''
      context.check(
        'under the buttons it says in words what that remembers: the tools listed, counted, and that a change asks again',
        scope.includes(`the ${tools.length} tools listed`) && scope.includes('asks again'),
        scope,
      )
      await context.screenshot(
        consent.page,
        'protected-mcp-server-always-allow.png',
        'The protected window offering "Always allow every tool of Workspace files (built in)", with the tools it would remember',
      )
      await consent.page.click(button)
      context.check('the window closes after the decision', await closedSoon(consent))
      await waitFor(async () => (existsSync(first) ? true : undefined), 'the first write')

      const second = join(context.driver.workspace, 'server-wide-2.txt')
      const before = new Set((await roomApprovals(page, roomId)).map((each) => each.id))
      await sendViaComposer(
        page,
        'mcp filesystem write_file {"path": "server-wide-2.txt", "content": "unasked"}',
      )
      const written = await waitFor(
        async () => (existsSync(second) ? readFileSync(second, 'utf8') : undefined),
        'the second write, without a prompt',
      ).catch(() => '(missing)')
      const asked = (await roomApprovals(page, roomId)).filter((each) => !before.has(each.id))
      context.check(
        'a later call to the same server runs without asking',
        written === 'unasked' && asked.length === 0,
        `${written}; new approvals: ${asked.length}`,
      )

      const panel = '[data-testid="grants-panel"]'
      const row = `${panel} [data-testid="grant"][data-scope="mcp-server"]`
      await page.click(`${panel} summary`)
      await page.waitForSelector(row, { timeout: WAIT_TIMEOUT_MS })
      const listed = (await page.textContent(row)) ?? ''
      context.check(
        'the grants panel lists it as every tool of the server',
        listed.includes('every tool of filesystem'),
        listed,
      )
      await context.screenshot(
        page,
        'mcp-server-grant-listed.png',
        "The room's grants: every tool of the built-in filesystem server, revocable",
      )
      await page.click(`${row} [data-testid="grant-revoke"]`)
      await page.waitForSelector(row, { state: 'detached', timeout: WAIT_TIMEOUT_MS })
      context.check('revoking removes it from the list', (await page.$(row)) === null)
    },
  },
]
