import { readFile, realpath, rename, symlink, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import {
  ErrorCode,
  McpError,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { scaledMs } from '../scripts/test-timing.ts'
import { GatewayElicitationStateSchema } from '../src/contracts/mcp-gateway.ts'
import { AssentGateway } from '../src/gateway/gateway-server.ts'
import { RuntimeConsentClient } from '../src/gateway/runtime-consent-client.ts'
import { gatewayLinkKeys } from '../src/runtime/mcp/gateway-answer-proof.ts'
import { readGatewayConnectionFile } from '../src/runtime/mcp/gateway-connection-file.ts'
import { CLIENT_CANCELLED } from '../src/runtime/mcp/gateway-call-service.ts'
import { parseMcpConfigFile } from '../src/runtime/mcp/mcp-config-loader.ts'
import { pinnedFolder } from './support/gateway-call-request.ts'
import { inputRequests, pendingInputFor, respond } from './support/input-helpers.ts'
import { timeline } from './support/room-helpers.ts'
import {
  AGENT_REQUEST_TIMEOUT_MS,
  NOTES_SERVER,
  connectThroughGateway,
  decide,
  gatewayRoom,
  nextPendingApproval,
  pendingApprovals,
  writeNotesConfig,
  type NotesFixture,
} from './support/mcp-gateway-harness.ts'
import {
  eventually,
  rawHttp,
  startHarness,
  type RuntimeHarness,
} from './support/runtime-harness.ts'

const callOptions = { timeout: AGENT_REQUEST_TIMEOUT_MS }

/** The notes fixture once more, gated, offering the tool that asks for a
 *  form during the call. */
const ASKER_SERVER = {
  id: 'asker',
  name: 'Asker',
  transport: { type: 'stdio', command: process.execPath, args: [NOTES_SERVER], env: {} },
  allowed_tools: ['ask_title', 'ask_form'],
}

/** Forms no room can draw, and the reason the server is given for each:
 *  the first three the SDK's own parser refuses, the last it lets by. */
const UNDRAWABLE_FORMS = [
  {
    what: 'a nested object',
    properties: { address: { type: 'object', properties: { street: { type: 'string' } } } },
    reason: 'field "address" is a nested object',
  },
  {
    what: 'a list of objects',
    properties: { people: { type: 'array', items: { type: 'object' } } },
    reason: 'field "people" is a list of objects',
  },
  {
    what: 'a type no field has',
    properties: { when: { type: 'datetime' } },
    reason: 'field "when" has type "datetime"',
  },
  {
    what: 'two choices alike',
    properties: { size: { type: 'string', enum: ['s', 's'] } },
    reason: 'field "size" cannot be drawn: choices must be distinct',
  },
]

describe('the MCP gateway: annotations, elicitation, progress and mcp.json reloads', () => {
  let harness: RuntimeHarness
  let fixture: NotesFixture
  let agent: Client
  let stderr: () => string
  let pending: ReturnType<typeof pendingApprovals>

  beforeAll(async () => {
    harness = await startHarness()
    pending = pendingApprovals(harness)
    fixture = await writeNotesConfig(harness.root, [
      {
        ...ASKER_SERVER,
        transport: { ...ASKER_SERVER.transport, env: { NOTES_DIR: harness.root } },
      },
    ])
    ;({ client: agent, stderr } = await connectThroughGateway(harness, fixture.configPath))
  })
  afterAll(async () => {
    await agent?.close()
    await harness?.close()
  })

  it('marks every gated tool destructive and not read-only, whatever its server claims', async () => {
    const { tools } = await agent.listTools()
    const annotations = Object.fromEntries(tools.map((tool) => [tool.name, tool.annotations]))
    // The notes server claims read_note is read-only and not destructive.
    expect(annotations.notes__read_note).toEqual({ readOnlyHint: false, destructiveHint: true })
    expect(annotations.notes__write_note).toEqual({ readOnlyHint: false, destructiveHint: true })
    expect(annotations.asker__ask_title).toEqual({ readOnlyHint: false, destructiveHint: true })
    // A read-only manifest runs unasked: its server's hints are passed on.
    expect(annotations.docs__read_note).toEqual({ readOnlyHint: true, destructiveHint: false })
  })

  it("passes a server's request for input during an allowed call to the person, as a form in the gateway room", async () => {
    const call = agent.callTool({ name: 'asker__ask_title', arguments: {} }, undefined, callOptions)
    const view = await pending()
    expect(await decide(harness, view, 'allow-once')).toBe(200)
    const room = await gatewayRoom(harness)
    const form = await pendingInputFor(harness, room.id, view.approval.turnId)
    expect(form).toMatchObject({
      kind: 'form',
      form: { message: 'Which title should the note get?' },
    })
    const answered = await respond(harness, form.id, {
      action: 'accept',
      content: { title: 'Groceries' },
    })
    expect(answered.status).toBe(200)
    const result = await call
    expect(result.content).toEqual([{ type: 'text', text: 'accept: {"title":"Groceries"}' }])
  })

  it('hands the server a decline when the person declines the form', async () => {
    const call = agent.callTool({ name: 'asker__ask_title', arguments: {} }, undefined, callOptions)
    const view = await pending()
    expect(await decide(harness, view, 'allow-once')).toBe(200)
    const room = await gatewayRoom(harness)
    const form = await pendingInputFor(harness, room.id, view.approval.turnId)
    expect((await respond(harness, form.id, { action: 'decline' })).status).toBe(200)
    expect((await call).content).toEqual([{ type: 'text', text: 'decline: null' }])
  })

  it.each(UNDRAWABLE_FORMS)(
    'answers a form with $what with invalid params and its reason, showing no one anything',
    async ({ properties, reason }) => {
      const call = agent.callTool(
        { name: 'asker__ask_form', arguments: { requestedSchema: { type: 'object', properties } } },
        undefined,
        callOptions,
      )
      const view = await pending()
      expect(await decide(harness, view, 'allow-once')).toBe(200)
      const result = await call
      // The server hears the reason, as the JSON-RPC error of its request.
      expect(result.content).toEqual([
        {
          type: 'text',
          text: expect.stringContaining(
            `error: MCP error -32602: Assent cannot show this form to the person: ${reason}`,
          ) as string,
        },
      ])
      const room = await gatewayRoom(harness)
      const forms = (await inputRequests(harness, room.id)).filter(
        (request) => request.turnId === view.approval.turnId,
      )
      expect(forms).toEqual([])
      expect(stderr()).toContain(reason)
    },
  )

  it('refuses a form for a gateway call the person has not allowed', async () => {
    const call = agent
      .callTool({ name: 'asker__ask_title', arguments: {} }, undefined, callOptions)
      .catch((error: unknown) => error)
    const view = await pending()
    const connection = readGatewayConnectionFile(harness.dataDir)
    const asGateway = (method: string, path: string, body?: unknown) =>
      rawHttp({
        port: connection.port,
        method,
        path,
        headers: [
          ['Authorization', `Bearer ${gatewayLinkKeys(connection.gatewayCredential).requestKey}`],
          ...(body === undefined ? [] : [['Content-Type', 'application/json']]),
        ] as Array<[string, string]>,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      })
    const form = { message: 'Your password, please' }
    const whilePending = await asGateway(
      'POST',
      `/v1/gateway/calls/${view.approval.toolCallId}/elicitations`,
      form,
    )
    expect(whilePending.status).toBe(409)
    expect(JSON.parse(whilePending.body)).toMatchObject({ code: 'not_running' })

    expect(await decide(harness, view, 'deny')).toBe(200)
    expect(await call).toBeInstanceOf(McpError)
    const afterDenial = await asGateway(
      'POST',
      `/v1/gateway/calls/${view.approval.toolCallId}/elicitations`,
      form,
    )
    expect(afterDenial.status).toBe(409)
    const unknown = await asGateway('GET', '/v1/gateway/elicitations/no-such-request')
    expect(unknown.status).toBe(404)
    // The state schema is what the gateway parses; a refusal never fits it.
    expect(GatewayElicitationStateSchema.safeParse(JSON.parse(afterDenial.body)).success).toBe(
      false,
    )
  })

  it('tells the agent its tool list changed when mcp.json is edited, and keeps serving through a refused edit', async () => {
    let changed = 0
    agent.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changed += 1
    })
    const original = await readFile(fixture.configPath, 'utf8')
    const config = JSON.parse(original) as { servers: Array<Record<string, unknown>> }
    const save = async (value: unknown) => {
      const temporary = `${fixture.configPath}.tmp`
      await writeFile(temporary, typeof value === 'string' ? value : JSON.stringify(value))
      await rename(temporary, fixture.configPath)
    }
    try {
      await save({ servers: [...config.servers, { ...config.servers[0], id: 'extra' }] })
      await eventually(() => (changed > 0 ? true : undefined), 'tools/list_changed')
      const { tools } = await agent.listTools()
      expect(tools.map((tool) => tool.name)).toContain('extra__write_note')

      await save('{ "servers": [')
      await eventually(
        () => (stderr().includes('still serving notes, docs, asker, extra') ? true : undefined),
        'the refusal in the gateway log',
      )
      const after = await agent.listTools()
      expect(after.tools.map((tool) => tool.name)).toContain('extra__write_note')

      // mcp.json made a link to a file under another name, which no door
      // keeps for the person: what that file names is not started.
      const elsewhere = join(dirname(fixture.configPath), 'servers.json')
      await writeFile(
        elsewhere,
        JSON.stringify({ servers: [...config.servers, { ...config.servers[0], id: 'planted' }] }),
      )
      const link = `${fixture.configPath}.link`
      await symlink(elsewhere, link)
      await rename(link, fixture.configPath)
      const refused = `(it is ${await realpath(elsewhere)}). Name it mcp.json; still serving`
      await eventually(
        () => (stderr().includes(refused) ? true : undefined),
        'the refusal of the link in the gateway log',
      )
      const linked = await agent.listTools()
      expect(linked.tools.map((tool) => tool.name)).not.toContain('planted__write_note')
    } finally {
      await save(original)
    }
  })
})

describe('the MCP gateway keeps an agent with a short request timeout waiting', () => {
  /** What an agent gives one request; the person takes longer than that. */
  const AGENT_TIMEOUT_MS = scaledMs(2_000)
  let harness: RuntimeHarness
  let gateway: AssentGateway
  let agent: Client

  beforeAll(async () => {
    harness = await startHarness()
    const fixture = await writeNotesConfig(harness.root)
    gateway = new AssentGateway({
      config: parseMcpConfigFile(fixture.configPath),
      consent: new RuntimeConsentClient({
        dataDir: harness.dataDir,
        workspaceIdentity: pinnedFolder(harness.workspace),
        log: () => undefined,
      }),
      log: () => undefined,
      progressIntervalMs: Math.round(AGENT_TIMEOUT_MS / 8),
    })
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
    await gateway.start(serverSide)
    agent = new Client({ name: 'impatient-agent', version: '1.0.0' })
    await agent.connect(clientSide)
  })
  afterAll(async () => {
    await agent?.close()
    await gateway?.close()
    await harness?.close()
  })

  it('sends progress while the person decides, so a request timeout reset by progress never fires', async () => {
    const progress: number[] = []
    const startedAt = Date.now()
    const call = agent.callTool(
      { name: 'notes__write_note', arguments: { name: 'patient.txt', text: 'waited' } },
      undefined,
      {
        timeout: AGENT_TIMEOUT_MS,
        resetTimeoutOnProgress: true,
        onprogress: (update) => progress.push(update.progress),
      },
    )
    const view = await nextPendingApproval(harness)
    // The person takes more than twice the agent's timeout to decide.
    await eventually(
      () => (Date.now() - startedAt > 2 * AGENT_TIMEOUT_MS ? true : undefined),
      'twice the agent timeout to pass',
    )
    expect(await decide(harness, view, 'allow-once')).toBe(200)
    const result = await call
    expect(result.content).toEqual([{ type: 'text', text: 'wrote patient.txt' }])
    expect(progress.length).toBeGreaterThan(2)
    // Progress only ever grows, as MCP requires.
    expect(progress).toEqual([...progress].sort((a, b) => a - b))
    expect(new Set(progress).size).toBe(progress.length)
  })

  it('is what keeps it waiting: the same agent without the reset times out', async () => {
    const call = agent
      .callTool(
        { name: 'notes__write_note', arguments: { name: 'impatient.txt', text: 'gave up' } },
        undefined,
        { timeout: AGENT_TIMEOUT_MS, onprogress: () => undefined },
      )
      .catch((error: unknown) => error)
    const error = await call
    expect(error).toBeInstanceOf(McpError)
    expect((error as McpError).code).toBe(ErrorCode.RequestTimeout)
    // The SDK cancels the request it gave up on, and the gateway withdraws
    // its question: the person is not left deciding on it.
    const room = await gatewayRoom(harness)
    const record = await eventually(async () => {
      const { toolCalls } = await timeline(harness, room.id)
      const call = toolCalls.find((each) => each.arguments['name'] === 'impatient.txt')
      return call?.status === 'expired' ? call : undefined
    }, 'the question to be withdrawn')
    expect(record.result?.message).toEqual(CLIENT_CANCELLED)
  })
})
