import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { CLAUDE_AGENT_ID, CLAUDE_AGENT_NAME } from '../../agents/scripted-agents-config.ts'
import type { CaseDefinition } from '../case-context.ts'
import { clickToDecide } from '../consent-keys.ts'
import { UI, WAIT_TIMEOUT_MS, newPendingApproval, openRoom, waitFor } from '../workbench-ui.ts'
import { agentReplied, askAgent, cardOutcome } from './agent-cases.ts'
import { closedSoon, openReview, scenario } from './manual-cases.ts'

const CLAUDE_FILE = 'claude-smoke.txt'
const CLAUDE_CONTENT = 'written by claude-agent-acp after a person allowed it\n'
const CLAUDE_MARKER = 'claude-denied.txt'
const CLAUDE_COMMAND = `echo should-not-run > ${CLAUDE_MARKER}`
const CLAUDE_REPLY = 'Claude heard the answers.'

/**
 * A second real ACP agent, claude-agent-acp (the Claude Agent SDK behind
 * ACP), as a room's agent: it asks to write a file (an ACP diff) and, in the
 * same turn, to run a command. The person allows the file in the protected
 * window and denies the command there; the file is written exactly, the
 * command never runs, and the agent carries on to its reply. Only its model
 * (a scripted Anthropic Messages API on loopback) is scripted.
 */
export const claudeCases: CaseDefinition[] = [
  {
    id: 'claude-acp-edit',
    needs: 'real-agents',
    title:
      'claude-agent-acp asks to write a file and to run a command: the protected window shows the diff and the command line; allow writes the file, deny runs nothing',
    screenshots: ['protected-claude-file-change.png', 'protected-claude-command.png'],
    async run(context) {
      const page = await context.driver.workbench()
      const workspace = context.driver.workspace
      const target = join(workspace, CLAUDE_FILE)
      const marker = join(workspace, CLAUDE_MARKER)
      const { room, approval } = await askAgent(
        context,
        page,
        { id: CLAUDE_AGENT_ID, title: 'Claude room' },
        (agents) =>
          agents.messages.script([
            { type: 'write', path: target, content: CLAUDE_CONTENT },
            { type: 'bash', command: CLAUDE_COMMAND },
            { type: 'reply', text: CLAUDE_REPLY },
          ]),
      )
      context.check(
        "Claude's first request is an approval for its file change",
        approval.kind === 'apply-changes' && approval.toolName === 'agent_file_change',
        `${approval.kind} ${approval.toolName}`,
      )
      context.check('nothing was written yet', !existsSync(target))

      const fileWindow = await openReview(context, page, approval.id)
      const fileShown = (await fileWindow.page.textContent('body')) ?? ''
      const added = await fileWindow.page.locator('tr.consent-line-add').allTextContents()
      context.check(
        'the protected window names Claude and the file, and shows the new line as added',
        fileShown.includes(`Allow ${CLAUDE_AGENT_NAME} to change`) &&
          fileShown.includes(CLAUDE_FILE) &&
          added.some((row) => row.includes(CLAUDE_CONTENT.trim())),
        added.join(' | ').slice(0, 400),
      )
      await context.screenshot(
        fileWindow.page,
        'protected-claude-file-change.png',
        "The protected window showing claude-agent-acp's file change (an ACP diff)",
      )
      await clickToDecide(fileWindow.page, '#assent-allow-once')
      context.check('the window closes after the decision', await closedSoon(fileWindow))
      const readNow = () => (existsSync(target) ? readFileSync(target, 'utf8') : '(missing)')
      const content = await waitFor(
        async () => (readNow() === CLAUDE_CONTENT ? readNow() : undefined),
        `${CLAUDE_FILE} with the allowed content`,
      ).catch(readNow)
      context.check('Claude wrote exactly the allowed content', content === CLAUDE_CONTENT, content)
      const fileOutcome = await cardOutcome(page, approval.id)
      context.check('the file card says Approved', /Approved/.test(fileOutcome), fileOutcome)

      const command = await newPendingApproval(page, room.id, new Set([approval.id]))
      await page.waitForSelector(UI.card(command.id), { timeout: WAIT_TIMEOUT_MS })
      context.check(
        "Claude's second request is an approval for its command",
        command.kind === 'run-command' && command.toolName === 'agent_command',
        `${command.kind} ${command.toolName}`,
      )
      const commandWindow = await openReview(context, page, command.id)
      const commandShown = (await commandWindow.page.textContent('body')) ?? ''
      context.check(
        'the protected window names Claude and shows its exact command line and folder',
        commandShown.includes(`Allow ${CLAUDE_AGENT_NAME} to run`) &&
          commandShown.includes(CLAUDE_COMMAND) &&
          commandShown.includes(workspace),
        commandShown.slice(0, 400),
      )
      await context.screenshot(
        commandWindow.page,
        'protected-claude-command.png',
        "The protected window showing claude-agent-acp's command request, about to be denied",
      )
      await clickToDecide(commandWindow.page, '#assent-deny')
      context.check('the window closes after the denial', await closedSoon(commandWindow))
      context.check(
        "Claude's reply reaches the room's timeline: the denial did not end its turn",
        await agentReplied(page, room.id, CLAUDE_REPLY),
      )
      context.check('the denied command never ran', !existsSync(marker))
      const commandOutcome = await cardOutcome(page, command.id)
      context.check(
        'the command card says Rejected',
        /Rejected/.test(commandOutcome),
        commandOutcome,
      )
      await openRoom(page, scenario(context).roomId)
    },
  },
]
