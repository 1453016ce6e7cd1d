import { existsSync } from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { McpError } from '@modelcontextprotocol/sdk/types.js'
import { z } from 'zod'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ApprovalSummarySchema } from '../src/contracts/approval.ts'
import { englishText, message } from '../src/contracts/runtime-message.ts'
import { MCP_REFUSAL_CODES } from '../src/runtime/mcp/mcp-refusal.ts'
import { MAX_WAITING_ASKS } from '../src/runtime/mcp/waiting-asks.ts'
import {
  AGENT_REQUEST_TIMEOUT_MS,
  NOTES_SERVER,
  connectThroughGateway,
  decide,
  gatewayConfigIn,
  gatewayRoom,
} from './support/mcp-gateway-harness.ts'
import { EVERYTHING_SERVER } from './support/mcp-real-servers.ts'
import { eventually, startHarness, type RuntimeHarness } from './support/runtime-harness.ts'

const FEATURES_DOC = 'demo://resource/static/document/features.md'
const options = { timeout: AGENT_REQUEST_TIMEOUT_MS }

/** Each door of the gateway by which its client opens a question for the
 *  person: a gated tool, a gated server's resource and its prompt. */
const DOORS: ReadonlyArray<{
  door: string
  send: (agent: Client, index: number) => Promise<unknown>
}> = [
  {
    door: 'tools/call',
    send: (agent, index) =>
      agent.callTool(
        { name: 'notes__write_note', arguments: { name: `flood-${index}.txt`, text: 'x' } },
        undefined,
        options,
      ),
  },
  {
    door: 'resources/read',
    send: (agent) => agent.readResource({ uri: `everything__${FEATURES_DOC}` }, options),
  },
  {
    door: 'prompts/get',
    send: (agent) => agent.getPrompt({ name: 'everything__simple-prompt' }, options),
  },
]

/**
 * An agent's client that sends requests needing the person as fast as it
 * can: past MAX_WAITING_ASKS waiting, each is refused without asking
 * anyone and with the reason, at every door by which the gateway asks
 * (one count for the client); once one is decided the next is asked again.
 */
describe('assent-gateway asks the person about at most MAX_WAITING_ASKS requests of its client at once', () => {
  let harness: RuntimeHarness
  let agent: Client
  let notesDir: string

  beforeAll(async () => {
    harness = await startHarness()
    notesDir = join(harness.root, 'notes')
    await mkdir(notesDir, { recursive: true })
    const configPath = await gatewayConfigIn(harness.root, 'flood')
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
    agent = (await connectThroughGateway(harness, configPath)).client
  })
  afterAll(async () => {
    await agent?.close()
    await harness?.close()
  })

  async function pendingIds(): Promise<string[]> {
    const room = await gatewayRoom(harness)
    const { approvals } = await harness.client.request(
      z.object({ approvals: z.array(ApprovalSummarySchema) }),
      'GET',
      `/v1/rooms/${room.id}/approvals`,
    )
    return approvals.filter((each) => each.status === 'pending').map((each) => each.id)
  }

  async function denyAll(ids: readonly string[]): Promise<void> {
    for (const id of ids)
      expect(await decide(harness, await harness.client.getApproval(id), 'deny')).toBe(200)
  }

  it.each(DOORS)(
    '$door: refuses past the limit without asking, and asks again once one is decided',
    async ({ send }) => {
      const extra = 2
      const outcomes: Array<'answered' | McpError | undefined> = []
      const requests = Array.from({ length: MAX_WAITING_ASKS + extra }, (_, index) => {
        outcomes[index] = undefined
        return send(agent, index).then(
          () => (outcomes[index] = 'answered'),
          (error: unknown) => (outcomes[index] = error as McpError),
        )
      })
      const refused = () => outcomes.filter((outcome) => outcome instanceof McpError)
      // Until the refusals came back with every slot asked about, or more
      // were asked than the limit lets wait (the old gateway asked each).
      const pending = await eventually(async () => {
        const ids = await pendingIds()
        return ids.length > MAX_WAITING_ASKS ||
          (ids.length === MAX_WAITING_ASKS && refused().length === extra)
          ? ids
          : undefined
      }, 'the flood to be asked or refused')
      expect(pending).toHaveLength(MAX_WAITING_ASKS)
      const words = message('mcp.tooManyWaiting', { count: MAX_WAITING_ASKS })
      for (const error of refused()) {
        expect(error.code).toBe(MCP_REFUSAL_CODES.not_allowed)
        expect(error.data).toEqual({ reason: 'not_allowed', detail: 'too_many_waiting' })
        expect(error.message).toContain(englishText(words))
      }

      // One decided frees its place: the next request is asked again.
      await denyAll(pending.slice(0, 1))
      const again = send(agent, MAX_WAITING_ASKS + extra).catch((error: unknown) => error)
      const asked = await eventually(async () => {
        const ids = (await pendingIds()).filter((id) => !pending.includes(id))
        return ids.length > 0 ? ids : undefined
      }, 'the next request to be asked')
      expect(asked).toHaveLength(1)
      await denyAll([...pending.slice(1), ...asked])
      await Promise.all(requests)
      expect(await again).toBeInstanceOf(McpError)
      expect(outcomes.filter((outcome) => outcome === 'answered')).toEqual([])
      expect(existsSync(join(notesDir, 'flood-0.txt'))).toBe(false)
    },
  )
})
