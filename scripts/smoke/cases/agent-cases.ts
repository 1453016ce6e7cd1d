import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import {
  ACP_AGENT_ID,
  ACP_AGENT_NAME,
  CODEX_AGENT_ID,
  CODEX_AGENT_NAME,
} from '../../agents/scripted-agents-config.ts'
import { addFilePatch, type ScriptedModelStep } from '../../agents/scripted-model-server.ts'
import type { CaseContext, CaseDefinition } from '../case-context.ts'
import { SMOKE_AGENTS_STATE, type SmokeAgents } from '../smoke-agents.ts'
import {
  UI,
  WAIT_TIMEOUT_MS,
  createRoomViaUi,
  gui,
  newPendingApproval,
  openRoom,
  roomTimeline,
  sendViaComposer,
  waitFor,
} from '../workbench-ui.ts'
import { closedSoon, openReview, scenario } from './manual-cases.ts'

const CODEX_COMMAND = 'touch codex-smoke.txt && echo touched'
const ACP_FILE = 'acp-smoke.txt'
const ACP_CONTENT = 'written by codex-acp after a person allowed it\n'

type Rooms = { body: { rooms: Array<{ id: string; title: string; agentId: string }> } }

/** The run's real agents and their scripted models, or a failed check that
 *  says what to install (a case that needs the agents is not even started
 *  without them, smoke-fixtures.ts). */
export function readyAgents(context: CaseContext) {
  const agents = context.state[SMOKE_AGENTS_STATE] as SmokeAgents | undefined
  context.check(
    'the pinned real agents (Codex CLI, codex-acp, claude-agent-acp) are installed',
    agents?.ready === true,
    agents ? (agents.ready ? '' : agents.missing) : 'the run set up no agents',
  )
  if (!agents?.ready) throw new Error('unreachable: the check above failed')
  return agents
}

type ReadyAgents = Extract<SmokeAgents, { ready: true }>

/**
 * Creates a room whose agent is a real external agent, in the workbench as
 * a person does (the agent picked from the runtime's list), scripts the
 * agent's model (`play`: the Responses model's steps, or a function that
 * scripts either model), and sends a message; returns the room and the
 * approval the agent's request became.
 */
export async function askAgent(
  context: CaseContext,
  page: Page,
  agent: { id: string; title: string },
  play: ScriptedModelStep[] | ((agents: ReadyAgents) => void),
) {
  const agents = readyAgents(context)
  await createRoomViaUi(page, {
    agent: agent.id,
    workspace: context.driver.workspace,
    title: agent.title,
  })
  const room = await waitFor(async () => {
    const { body } = await gui<Rooms>(page, 'listRooms')
    return body.rooms.find((candidate) => candidate.title === agent.title)
  }, `the ${agent.title} room`)
  context.check('the room names the external agent', room.agentId === agent.id, room.agentId)
  if (typeof play === 'function') play(agents)
  else agents.model.script(play)
  await sendViaComposer(page, 'Please do what the scripted model says.')
  const approval = await newPendingApproval(page, room.id, new Set())
  await page.waitForSelector(UI.card(approval.id), { timeout: WAIT_TIMEOUT_MS })
  return { room, approval }
}

/** Waits for the agent's reply in the room's timeline. */
export function agentReplied(page: Page, roomId: string, text: string) {
  return waitFor(async () => {
    const { messages } = await roomTimeline(page, roomId)
    return messages.some((m) => m.role === 'agent' && m.text.includes(text)) ? true : undefined
  }, `the agent's reply "${text}"`).catch(() => false)
}

export async function cardOutcome(page: Page, approvalId: string): Promise<string> {
  await page.waitForSelector(UI.cardOutcome(approvalId), { timeout: WAIT_TIMEOUT_MS })
  return (await page.textContent(UI.cardOutcome(approvalId)))?.trim() ?? ''
}

/**
 * The real agents behind the protected window: Codex CLI's app-server and an
 * ACP agent (codex-acp), pinned and installed by `npm run agents:install`,
 * each a room's agent. Only their model is scripted; the command really
 * runs and the file is really written, once a person allowed it in the
 * protected window.
 */
export const agentCases: CaseDefinition[] = [
  {
    id: 'codex-command',
    needs: 'real-agents',
    title:
      'Codex CLI as a room’s agent asks to run a command: the protected window shows its command line, allow runs it',
    screenshots: ['codex-command-card.png', 'protected-codex-command.png'],
    async run(context) {
      const page = await context.driver.workbench()
      const target = join(context.driver.workspace, 'codex-smoke.txt')
      const { room, approval } = await askAgent(
        context,
        page,
        { id: CODEX_AGENT_ID, title: 'Codex room' },
        [
          { type: 'exec', command: CODEX_COMMAND },
          { type: 'reply', text: 'Codex ran the command.' },
        ],
      )
      context.check(
        "Codex's request is an approval for its command",
        approval.kind === 'run-command' && approval.toolName === 'agent_command',
        `${approval.kind} ${approval.toolName}`,
      )
      context.check('nothing ran yet', !existsSync(target))
      await context.screenshot(page, 'codex-command-card.png', "Codex's command as a pending card")

      const consent = await openReview(context, page, approval.id)
      const shown = (await consent.page.textContent('body')) ?? ''
      context.check(
        'the protected window asks about Codex by name and shows its exact command line and folder',
        shown.includes(`Allow ${CODEX_AGENT_NAME} to run`) &&
          shown.includes(`/bin/bash -lc '${CODEX_COMMAND}'`) &&
          shown.includes(context.driver.workspace),
        shown.slice(0, 400),
      )
      await context.screenshot(
        consent.page,
        'protected-codex-command.png',
        "The protected window showing the real Codex CLI's command request",
      )
      await consent.page.click('#assent-allow-once')
      context.check('the window closes after the decision', await closedSoon(consent))
      const ran = await waitFor(
        async () => (existsSync(target) ? true : undefined),
        'the file',
      ).catch(() => false)
      context.check('Codex ran the allowed command: the file exists', ran)
      context.check(
        "Codex's reply reaches the room's timeline",
        await agentReplied(page, room.id, 'Codex ran the command.'),
      )
      const outcome = await cardOutcome(page, approval.id)
      context.check('the card says Approved', /Approved/.test(outcome), outcome)
      await openRoom(page, scenario(context).roomId)
    },
  },
  {
    id: 'acp-file-change',
    needs: 'real-agents',
    title:
      'An ACP agent (codex-acp) asks to write a file: the protected window shows the diff, allow writes exactly that',
    screenshots: ['protected-acp-file-change.png'],
    async run(context) {
      const page = await context.driver.workbench()
      const target = join(context.driver.workspace, ACP_FILE)
      const { room, approval } = await askAgent(
        context,
        page,
        { id: ACP_AGENT_ID, title: 'ACP room' },
        [
          { type: 'patch', patch: addFilePatch(ACP_FILE, ACP_CONTENT) },
          { type: 'reply', text: 'The ACP agent wrote the file.' },
        ],
      )
      context.check(
        "the agent's request is an approval for its file change",
        approval.kind === 'apply-changes' && approval.toolName === 'agent_file_change',
        `${approval.kind} ${approval.toolName}`,
      )
      context.check('nothing was written yet', !existsSync(target))

      const consent = await openReview(context, page, approval.id)
      const shown = (await consent.page.textContent('body')) ?? ''
      const diffRows = await consent.page.locator('tr.consent-line-add').allTextContents()
      context.check(
        'the protected window names the agent and the file, and shows the new line as added',
        shown.includes(`Allow ${ACP_AGENT_NAME} to change`) &&
          shown.includes(ACP_FILE) &&
          diffRows.some((row) => row.includes(ACP_CONTENT.trim())),
        diffRows.join(' | ').slice(0, 400),
      )
      await context.screenshot(
        consent.page,
        'protected-acp-file-change.png',
        "The protected window showing the real ACP agent's file change as a diff",
      )
      await consent.page.click('#assent-allow-once')
      context.check('the window closes after the decision', await closedSoon(consent))
      const readNow = () => (existsSync(target) ? readFileSync(target, 'utf8') : '(missing)')
      const content = await waitFor(
        async () => (readNow() === ACP_CONTENT ? readNow() : undefined),
        `${ACP_FILE} with the allowed content`,
      ).catch(readNow)
      context.check('the agent wrote exactly the allowed content', content === ACP_CONTENT, content)
      context.check(
        "the agent's reply reaches the room's timeline",
        await agentReplied(page, room.id, 'The ACP agent wrote the file.'),
      )
      const outcome = await cardOutcome(page, approval.id)
      context.check('the card says Approved', /Approved/.test(outcome), outcome)
      await openRoom(page, scenario(context).roomId)
    },
  },
]
