import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import {
  CreateMessageRequestSchema,
  ErrorCode,
  ListRootsRequestSchema,
  McpError,
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { EMPTY_MCP_CONFIG, McpConfigSchema } from '../src/contracts/mcp-config.ts'
import { installForwarding, upstreamCapabilities } from '../src/gateway/gateway-forwarding.ts'
import { GatewayRelay } from '../src/gateway/gateway-relay.ts'
import { AssentGateway } from '../src/gateway/gateway-server.ts'
import { RAW_REQUEST_METHODS } from '../src/runtime/mcp/mcp-elicitation.ts'
import { refusalOf } from './support/mcp-gateway-harness.ts'
import { ODD_NAMES_SERVER } from './support/mcp-real-servers.ts'
import { eventually } from './support/runtime-harness.ts'

const ROOT = fileURLToPath(new URL('..', import.meta.url))

interface Row {
  method: string
  from: 'agent' | 'server'
  gateway: 'passed' | 'governed' | 'refused'
  test: string
}

async function conformanceTable(): Promise<Row[]> {
  const doc = await readFile(join(ROOT, 'docs/mcp.md'), 'utf8')
  const section = doc.slice(doc.indexOf('\n## Conformance'))
  return [...section.matchAll(/^\| `([^`]+)` +\| (\w+) +\| (\w+) +\| (\S+) +\|$/gm)].map((match) =>
    RowSchema.parse({ method: match[1], from: match[2], gateway: match[3], test: match[4] }),
  )
}
const RowSchema = z.strictObject({
  method: z.string(),
  from: z.enum(['agent', 'server']),
  gateway: z.enum(['passed', 'governed', 'refused']),
  test: z.string(),
})

type Handlers = {
  _requestHandlers: Map<string, unknown>
  _notificationHandlers: Map<string, unknown>
  fallbackRequestHandler?: unknown
}
const methodsOf = (protocol: unknown) => {
  const handlers = protocol as Handlers
  // Elicitation is answered by the fallback, reading the request raw.
  const raw = handlers.fallbackRequestHandler === undefined ? [] : RAW_REQUEST_METHODS
  return [
    ...handlers._requestHandlers.keys(),
    ...raw,
    ...handlers._notificationHandlers.keys(),
  ].sort()
}

/** What the gateway answers from the agent with every capability a server
 *  can offer, and what each connection answers from a server. */
function handledMethods(): { agent: string[]; server: string[] } {
  const log = () => undefined
  const consent = { ask: () => Promise.reject(new Error('nobody is asked here')) }
  const gateway = new AssentGateway({ config: EMPTY_MCP_CONFIG, consent, log })
  const every = upstreamCapabilities([
    { resources: { subscribe: true }, prompts: {}, completions: {}, logging: {}, tools: {} },
  ])
  gateway.server.registerCapabilities(every)
  installForwarding(
    {
      server: gateway.server,
      pool: undefined as never,
      consent,
      workspace: ROOT,
      requestTimeoutMs: 1,
      log,
      subscriptions: new Set(),
    },
    every,
  )
  const relay = new GatewayRelay({
    upstream: gateway.server,
    consent,
    workspace: ROOT,
    requestTimeoutMs: 1,
    log,
    elicit: () => Promise.resolve({ action: 'cancel' }),
    inForce: () => true,
    subscriptions: new Set(),
  })
  const connection = new Client(
    { name: 'assent', version: '0' },
    { capabilities: relay.capabilities },
  )
  relay.install(connection, undefined as never)
  return { agent: methodsOf(gateway.server), server: methodsOf(connection) }
}

describe('the conformance table in docs/mcp.md', () => {
  it('lists exactly the methods the gateway handles, refused ones unhandled, each with its test', async () => {
    const rows = await conformanceTable()
    const handled = handledMethods()
    for (const from of ['agent', 'server'] as const) {
      const served = rows.filter((row) => row.from === from && row.gateway !== 'refused')
      expect(served.map((row) => row.method).sort()).toEqual(handled[from])
      for (const row of rows.filter((each) => each.from === from && each.gateway === 'refused')) {
        expect(handled[from]).not.toContain(row.method)
      }
    }
    for (const row of rows) expect(existsSync(join(ROOT, row.test)), row.test).toBe(true)
  })
})

/** The gateway in process, in front of the odd-names fixture (read-only,
 *  so nobody is asked), for what server-everything does not exercise. */
describe('assent-gateway: ping, tasks, roots changes, list changes, progress and cancellation of a server request', () => {
  let gateway: AssentGateway
  let agent: Client
  let dir: string
  const aborted: string[] = []

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'assent-conformance-'))
    await mkdir(join(dir, 'odd'))
    const config = McpConfigSchema.parse({
      servers: [
        {
          id: 'odd',
          transport: {
            type: 'stdio',
            command: process.execPath,
            args: [ODD_NAMES_SERVER],
            env: { ODD_DIR: join(dir, 'odd') },
          },
          allowed_tools: ['grow', 'sample_until_cancelled', 'ping_client'],
          manifest: { readonly: true },
        },
      ],
    })
    gateway = new AssentGateway({
      config,
      consent: { ask: () => Promise.reject(new Error('nobody is asked here')) },
      log: () => undefined,
      workspace: dir,
    })
    const [agentSide, gatewaySide] = InMemoryTransport.createLinkedPair()
    await gateway.start(gatewaySide)
    agent = new Client(
      { name: 'test-host', version: '1.0.0' },
      { capabilities: { sampling: {}, roots: { listChanged: true } } },
    )
    agent.setRequestHandler(ListRootsRequestSchema, () => ({
      roots: [{ uri: pathToFileURL(dir).href, name: 'workspace' }],
    }))
    agent.setRequestHandler(CreateMessageRequestSchema, async (request, extra) => {
      const token = request.params._meta?.progressToken
      if (token !== undefined) {
        await extra.sendNotification({
          method: 'notifications/progress',
          params: { progressToken: token, progress: 1 },
        })
      }
      await new Promise<void>((resolve) => extra.signal.addEventListener('abort', () => resolve()))
      aborted.push(JSON.stringify(request.params.messages))
      return { role: 'assistant', model: 'scripted', content: { type: 'text', text: 'late' } }
    })
    await agent.connect(agentSide)
  })
  afterAll(async () => {
    await agent?.close()
    await gateway?.close()
    await rm(dir, { recursive: true, force: true })
  })

  it('answers ping from the agent and from a server', async () => {
    expect(await agent.ping()).toEqual({})
    const pinged = await agent.callTool({ name: 'odd__ping_client', arguments: {} })
    expect(pinged.content).toEqual([{ type: 'text', text: 'pong' }])
  })

  it('refuses the tasks methods as not found: it offers no tasks', async () => {
    for (const method of ['tasks/get', 'tasks/result', 'tasks/cancel'] as const) {
      const error = await refusalOf(
        agent.request({ method, params: { taskId: 'task-1' } }, z.object({}).loose()),
      )
      expect(error.code).toBe(ErrorCode.MethodNotFound)
    }
    const list = await refusalOf(agent.request({ method: 'tasks/list' }, z.object({}).loose()))
    expect(list).toBeInstanceOf(McpError)
    expect(list.code).toBe(ErrorCode.MethodNotFound)
  })

  it("passes the agent's roots change to the servers, which list the roots through it", async () => {
    await agent.sendRootsListChanged()
    const roots = await eventually(
      async () =>
        existsSync(join(dir, 'odd', 'roots.json'))
          ? (JSON.parse(await readFile(join(dir, 'odd', 'roots.json'), 'utf8')) as unknown)
          : undefined,
      'the server to list the roots',
    )
    expect(roots).toEqual([{ uri: pathToFileURL(dir).href, name: 'workspace' }])
  })

  it('passes on each kind of list change a server sends', async () => {
    const changed = (
      schema:
        | typeof ToolListChangedNotificationSchema
        | typeof PromptListChangedNotificationSchema
        | typeof ResourceListChangedNotificationSchema,
    ) =>
      new Promise<string>((resolve) =>
        agent.setNotificationHandler(schema, (notification) => resolve(notification.method)),
      )
    const all = Promise.all([
      changed(ToolListChangedNotificationSchema),
      changed(PromptListChangedNotificationSchema),
      changed(ResourceListChangedNotificationSchema),
    ])
    await agent.callTool({ name: 'odd__grow', arguments: {} })
    expect(await all).toEqual([
      'notifications/tools/list_changed',
      'notifications/prompts/list_changed',
      'notifications/resources/list_changed',
    ])
  })

  it("carries the agent's progress on a server's sampling request back, and the server's cancellation to the agent", async () => {
    const result = await agent.callTool({ name: 'odd__sample_until_cancelled', arguments: {} })
    expect(JSON.stringify(result.content)).toContain('cancelled: ')
    await eventually(
      () => aborted.find((each) => each.includes('cancel me')),
      'the agent to see the cancellation',
    )
  })
})
