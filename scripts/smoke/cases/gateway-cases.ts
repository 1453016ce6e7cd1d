import { existsSync, readFileSync, realpathSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import {
  CODEX_GATEWAY_NAMESPACE,
  runCodexExec,
  writeCodexGatewayHome,
  writeFilesystemGatewayConfig,
} from '../../agents/codex-mcp-client.ts'
import { makeAgentHome } from '../../agents/scripted-agents-config.ts'
import { RUNTIME_READY_TIMEOUT_MS } from '../../test-timing.ts'
import { GATEWAY_AGENT_ID } from '../../../src/contracts/mcp-gateway.ts'
import type { CaseDefinition } from '../case-context.ts'
import { clickToDecide } from '../consent-keys.ts'
import { UI, WAIT_TIMEOUT_MS, gui, openRoom, roomApprovals, waitFor } from '../workbench-ui.ts'
import { readyAgents } from './agent-cases.ts'
import { closedSoon, openReview, scenario } from './manual-cases.ts'

const GATEWAY_FILE = 'codex-through-gateway.txt'
const GATEWAY_CONTENT = 'written by Codex through assent-gateway after a person allowed it'
const CODEX_REPLY = 'Codex wrote the file through Assent.'

type Rooms = { body: { rooms: Array<{ id: string; agentId: string }> } }

/**
 * The pinned Codex CLI as an MCP client no one here wrote: its config.toml
 * names `assent-gateway` (`[mcp_servers.assent]`) in front of the pinned
 * filesystem server, on the run's data folder. Codex's model is scripted to
 * write a file through the gateway; the call opens an approval in the
 * gateway room, the person allows it in the protected window, and Codex
 * gets the server's result.
 */
export const gatewayCases: CaseDefinition[] = [
  {
    id: 'codex-mcp-gateway',
    title:
      'Codex CLI calls an MCP tool through assent-gateway: the approval opens in Assent, allow in the protected window, Codex gets the result',
    screenshots: ['codex-mcp-gateway-card.png', 'protected-codex-mcp-gateway.png'],
    needs: 'real-agents',
    async run(context) {
      const agents = readyAgents(context)
      const page = await context.driver.workbench()
      const workspace = realpathSync(context.driver.workspace)
      const target = join(workspace, GATEWAY_FILE)
      const home = makeAgentHome(agents.dirs.root)
      try {
        const environment = writeCodexGatewayHome({
          home,
          modelBaseUrl: agents.model.baseUrl,
          workspace,
          configPath: writeFilesystemGatewayConfig(join(agents.dirs.root, 'gateway'), workspace),
          dataDir: agents.dirs.dataDir,
          // The gateway starts the servers behind it before it answers Codex:
          // three Node starts, which a loaded machine makes slow.
          startupTimeoutSec: Math.ceil(RUNTIME_READY_TIMEOUT_MS / 1000),
        })
        const before = agents.model.requests.length
        agents.model.script([
          {
            type: 'tool',
            namespace: CODEX_GATEWAY_NAMESPACE,
            name: 'fs__write_file',
            arguments: { path: target, content: GATEWAY_CONTENT },
          },
          { type: 'reply', text: CODEX_REPLY },
        ])
        const codex = runCodexExec({
          agents: agents.installed,
          environment,
          workspace,
          prompt: `Please write ${GATEWAY_FILE}.`,
        })
        const exited = codex.done.then(({ code, output }) => {
          throw new Error(`Codex exited (${code}) before anything asked: ${output.slice(-400)}`)
        })
        // Codex exits at the end in any case: only a race above may see it.
        exited.catch(() => undefined)
        // Codex starts, then starts the gateway, which opens the room on its
        // first call: a process start or two before anything shows.
        const room = await Promise.race([
          waitFor(
            async () =>
              (await gui<Rooms>(page, 'listRooms')).body.rooms.find(
                (candidate) => candidate.agentId === GATEWAY_AGENT_ID,
              ),
            'the MCP gateway room',
            RUNTIME_READY_TIMEOUT_MS,
          ),
          exited,
        ])
        const approval = await Promise.race([
          waitFor(
            async () => (await roomApprovals(page, room.id)).find((a) => a.status === 'pending'),
            "Codex's MCP call as a pending approval",
            RUNTIME_READY_TIMEOUT_MS,
          ),
          exited,
        ])
        await openRoom(page, room.id)
        await page.waitForSelector(UI.card(approval.id), { timeout: WAIT_TIMEOUT_MS })
        const card = (await page.textContent(UI.card(approval.id))) ?? ''
        context.check(
          'the call is an MCP tool-call card naming the server behind the gateway',
          approval.kind === 'mcp-tool-call' &&
            card.includes('MCP tool call') &&
            card.includes('Project files'),
          card.slice(0, 200),
        )
        context.check('nothing was written yet', !existsSync(target))
        await context.screenshot(
          page,
          'codex-mcp-gateway-card.png',
          "Codex CLI's MCP call through assent-gateway as a pending card in the MCP gateway room",
        )

        const consent = await openReview(context, page, approval.id)
        const shown = (await consent.page.textContent('body')) ?? ''
        context.check(
          'the protected window shows the server, the tool and the full arguments Codex sent',
          shown.includes('Project files') &&
            shown.includes('write_file') &&
            shown.includes(GATEWAY_CONTENT) &&
            shown.includes(target),
          shown.slice(0, 400),
        )
        await context.screenshot(
          consent.page,
          'protected-codex-mcp-gateway.png',
          "The protected window for the real Codex CLI's MCP call through assent-gateway, with its full arguments",
        )
        await clickToDecide(consent.page, '#assent-allow-once')
        context.check('the window closes after the decision', await closedSoon(consent))

        const { code, output } = await codex.done
        context.check('Codex finished its turn', code === 0, output.slice(-400))
        const content = existsSync(target) ? readFileSync(target, 'utf8') : '(missing)'
        context.check(
          'the real filesystem server wrote exactly the allowed content',
          content === GATEWAY_CONTENT,
          content,
        )
        const call = agents.model.requests.slice(before).find((r) => r.step?.type === 'tool')
        const told = call?.callId ? (agents.model.toolOutputFor(call.callId) ?? '') : ''
        context.check(
          "Codex got the server's result and passed it to its model",
          told.includes(`Successfully wrote to ${target}`),
          told.slice(0, 200),
        )
        context.check('Codex printed its reply', output.includes(CODEX_REPLY), output.slice(-400))
        await page.waitForSelector(UI.cardOutcome(approval.id), { timeout: WAIT_TIMEOUT_MS })
        const outcome = (await page.textContent(UI.cardOutcome(approval.id)))?.trim() ?? ''
        context.check('the card says Approved', /Approved/.test(outcome), outcome)
        await openRoom(page, scenario(context).roomId)
      } finally {
        rmSync(home, { recursive: true, force: true })
      }
    },
  },
]
