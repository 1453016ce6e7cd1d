import { existsSync } from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ApprovalView } from '../src/contracts/approval.ts'
import { englishText } from '../src/contracts/runtime-message.ts'
import { CLIENT_CANCELLED } from '../src/runtime/mcp/gateway-call-service.ts'
import {
  AGENT_REQUEST_TIMEOUT_MS,
  NOTES_SERVER,
  connectThroughGateway,
  decide,
  gatewayConfigIn,
  gatewayRoom,
  pendingApprovals,
} from './support/mcp-gateway-harness.ts'
import { EVERYTHING_SERVER } from './support/mcp-real-servers.ts'
import { timeline } from './support/room-helpers.ts'
import { eventually, startHarness, type RuntimeHarness } from './support/runtime-harness.ts'

const FEATURES_DOC = 'demo://resource/static/document/features.md'

/**
 * An agent's client that cancels a call (`notifications/cancelled`), or
 * goes away, while the person is deciding on it: the gateway withdraws the
 * question, so nobody is left deciding on a call nobody waits for, and
 * nothing runs.
 */
describe('assent-gateway withdraws the question when its client stops waiting', () => {
  let harness: RuntimeHarness
  let agent: Client
  let notesDir: string
  let configPath: string
  let pending: ReturnType<typeof pendingApprovals>

  beforeAll(async () => {
    harness = await startHarness()
    pending = pendingApprovals(harness)
    notesDir = join(harness.root, 'notes')
    configPath = await gatewayConfigIn(harness.root, 'cancel')
    const stdio = (args: string[], env: Record<string, string> = {}) => ({
      type: 'stdio',
      command: process.execPath,
      args,
      env,
    })
    await writeFile(
      configPath,
      JSON.stringify({
        servers: [
          {
            id: 'notes',
            name: 'Notes',
            transport: stdio([NOTES_SERVER], { NOTES_DIR: notesDir }),
            allowed_tools: ['write_note'],
          },
          {
            id: 'everything',
            name: 'Everything',
            transport: stdio([EVERYTHING_SERVER, 'stdio']),
            allowed_tools: ['echo'],
          },
        ],
      }),
    )
    await mkdir(notesDir, { recursive: true })
    agent = (await connectThroughGateway(harness, configPath)).client
  })
  afterAll(async () => {
    await agent?.close()
    await harness?.close()
  })

  /** The approval once it left `pending`: withdrawn, with the reason the
   *  person is shown, and no decision can be taken on it any more. */
  async function expectWithdrawn(view: ApprovalView): Promise<void> {
    const closed = await eventually(async () => {
      const current = await harness.client.getApproval(view.approval.id)
      return current.approval.status === 'pending' ? undefined : current.approval
    }, 'the approval to be withdrawn')
    expect(closed.status).toBe('expired')
    expect(closed.reason).toBe(englishText(CLIENT_CANCELLED))
    expect(closed.reasonMessage).toEqual(CLIENT_CANCELLED)
    expect(await decide(harness, view, 'allow-once')).toBe(410)
    expect((await harness.client.getApproval(view.approval.id)).approval.status).toBe('expired')
  }

  it('withdraws a tool call cancelled while the person decides; the tool never runs', async () => {
    const controller = new AbortController()
    const call = agent.callTool(
      { name: 'notes__write_note', arguments: { name: 'cancelled.txt', text: 'never' } },
      undefined,
      { timeout: AGENT_REQUEST_TIMEOUT_MS, signal: controller.signal },
    )
    const view = await pending()
    expect(view.action.toolName).toBe('write_note')
    controller.abort('the agent changed its mind')
    await expect(call).rejects.toThrow()
    await expectWithdrawn(view)

    const room = await gatewayRoom(harness)
    const record = (await timeline(harness, room.id)).toolCalls.find(
      (each) => each.approvalId === view.approval.id,
    )
    expect(record?.status).toBe('expired')
    expect(record?.result).toMatchObject({ ok: false, message: CLIENT_CANCELLED })
    expect(existsSync(join(notesDir, 'cancelled.txt'))).toBe(false)
    expect(existsSync(join(notesDir, 'runs.log'))).toBe(false)
  })

  it('withdraws a resource read cancelled while the person decides', async () => {
    const controller = new AbortController()
    const read = agent.readResource(
      { uri: `everything__${FEATURES_DOC}` },
      { timeout: AGENT_REQUEST_TIMEOUT_MS, signal: controller.signal },
    )
    const view = await pending()
    expect(view.action.toolName).toBe('resources/read')
    controller.abort('the agent changed its mind')
    await expect(read).rejects.toThrow()
    await expectWithdrawn(view)
  })

  it('withdraws every question of a client that disconnects while they wait', async () => {
    const leaving = (await connectThroughGateway(harness, configPath)).client
    const options = { timeout: AGENT_REQUEST_TIMEOUT_MS }
    const calls = [
      leaving.callTool(
        { name: 'notes__write_note', arguments: { name: 'left-1.txt', text: 'never' } },
        undefined,
        options,
      ),
      leaving.readResource({ uri: `everything__${FEATURES_DOC}` }, options),
    ]
    const views = [await pending(), await pending()]
    // Closing the client closes the gateway's stdin, as a host that quits does.
    await leaving.close()
    for (const call of calls) await expect(call).rejects.toThrow()
    for (const view of views) await expectWithdrawn(view)
    expect(existsSync(join(notesDir, 'left-1.txt'))).toBe(false)
  })

  it('still runs a call its client keeps waiting for', async () => {
    const call = agent.callTool(
      { name: 'notes__write_note', arguments: { name: 'kept.txt', text: 'kept' } },
      undefined,
      { timeout: AGENT_REQUEST_TIMEOUT_MS },
    )
    expect(await decide(harness, await pending(), 'allow-once')).toBe(200)
    expect((await call).content).toEqual([{ type: 'text', text: 'wrote kept.txt' }])
  })
})
