import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import {
  ListPromptsRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js'
import { afterEach, describe, expect, it } from 'vitest'
import { McpConfigSchema } from '../src/contracts/mcp-config.ts'
import { installForwarding, upstreamCapabilities } from '../src/gateway/gateway-forwarding.ts'
import { McpConnection } from '../src/runtime/mcp/mcp-connection.ts'
import { McpConnectionPool } from '../src/runtime/mcp/mcp-connection-pool.ts'
import { MAX_LIST_ENTRIES, MAX_LIST_PAGES } from '../src/runtime/mcp/mcp-pages.ts'

// A server's lists are read page by page, following its cursors, at every
// door that reads one whole: a connection's tool list (a room's MCP calls
// in the runtime, the gateway's calls and its own tools/list) and the lists
// the gateway gathers for its agent (resources, resource templates,
// prompts). A server that never stops paging would hold the caller for
// ever and grow its memory until it ran out. One table of such servers,
// walked through every door: each list is refused whole, after a bounded
// number of pages, and a well-behaved list of many pages is read whole.

/** How a server pages: each answer to the page after `cursor`. */
type Paging = (cursor: string | undefined) => { count: number; next?: string; names?: string[] }

const SERVERS: Array<{ name: string; paging: Paging; refused: RegExp | null; pages: number }> = [
  {
    name: 'a list of five pages, read whole',
    paging: (cursor) => {
      const page = cursor === undefined ? 1 : Number(cursor) + 1
      return { count: 3, ...(page < 5 ? { next: String(page) } : {}) }
    },
    refused: null,
    pages: 5,
  },
  {
    name: 'a new cursor on every page, for ever',
    paging: (cursor) => ({ count: 1, next: `${Number(cursor ?? 0) + 1}` }),
    refused: new RegExp(`in more than ${MAX_LIST_PAGES} pages; the list was refused`),
    pages: MAX_LIST_PAGES,
  },
  {
    name: 'a cursor it sent before (paging in a circle)',
    paging: (cursor) => ({ count: 1, next: cursor === 'a' ? 'b' : 'a' }),
    refused: /cursor it had sent before; the list was refused/,
    pages: 3,
  },
  {
    name: 'more entries than anyone could read, a page at a time',
    paging: (cursor) => ({ count: 4_000, next: `${Number(cursor ?? 0) + 1}` }),
    refused: new RegExp(`more than ${MAX_LIST_ENTRIES} .* the list was refused`),
    pages: Math.ceil((MAX_LIST_ENTRIES + 1) / 4_000),
  },
]

type Door = 'tools' | 'resources' | 'resource templates' | 'prompts'
const DOORS: Door[] = ['tools', 'resources', 'resource templates', 'prompts']

/** A real SDK server in process whose four lists page as `paging` says;
 *  counts the pages asked for. */
function pagingServer(paging: Paging) {
  const asked = { pages: 0 }
  const [client, server] = InMemoryTransport.createLinkedPair()
  const sdk = new Server(
    { name: 'pager', version: '1.0.0' },
    { capabilities: { tools: {}, resources: {}, prompts: {} } },
  )
  let names: string[] | undefined
  const page = <T>(cursor: string | undefined, item: (index: number) => T) => {
    asked.pages += 1
    const answer = paging(cursor)
    names = answer.names
    const items = Array.from({ length: answer.count }, (_, index) => item(index))
    return { items, ...(answer.next === undefined ? {} : { nextCursor: answer.next }) }
  }
  const name = (cursor: string | undefined, index: number) =>
    names?.[index] ?? `p${cursor ?? 0}_${index}`
  sdk.setRequestHandler(ListToolsRequestSchema, ({ params }) => {
    const { items, ...rest } = page(params?.cursor, (index) => ({
      name: name(params?.cursor, index),
      inputSchema: { type: 'object' as const },
    }))
    return { tools: items, ...rest }
  })
  sdk.setRequestHandler(ListResourcesRequestSchema, ({ params }) => {
    const { items, ...rest } = page(params?.cursor, (index) => ({
      uri: `note://${name(params?.cursor, index)}`,
      name: name(params?.cursor, index),
    }))
    return { resources: items, ...rest }
  })
  sdk.setRequestHandler(ListResourceTemplatesRequestSchema, ({ params }) => {
    const { items, ...rest } = page(params?.cursor, (index) => ({
      uriTemplate: `note://${name(params?.cursor, index)}/{id}`,
      name: name(params?.cursor, index),
    }))
    return { resourceTemplates: items, ...rest }
  })
  sdk.setRequestHandler(ListPromptsRequestSchema, ({ params }) => {
    const { items, ...rest } = page(params?.cursor, (index) => ({
      name: name(params?.cursor, index),
    }))
    return { prompts: items, ...rest }
  })
  void sdk.connect(server)
  return { transport: client, asked }
}

const closers: Array<() => Promise<void>> = []
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()))
})

/**
 * Reads one list through `door`: the list's length, or the reason it was
 * refused. Tools are read as every door that calls a tool reads them
 * (`listAllowedTools`, with every name allowed); the rest as the gateway's
 * agent asks for them, where a refused server is left out and logged.
 */
async function readThrough(door: Door, paging: Paging) {
  const { transport, asked } = pagingServer(paging)
  const config = McpConfigSchema.parse({
    servers: [
      {
        id: 'pager',
        transport: { type: 'stdio', command: 'unused-in-process' },
        allowed_tools: ['p0_0'],
      },
    ],
  })
  const pool = new McpConnectionPool(
    config,
    (server) =>
      new McpConnection(server, { requestTimeoutMs: 10_000, transportFactory: () => transport }),
  )
  closers.push(() => pool.close())
  const connection = pool.connections()[0]!
  if (door === 'tools') {
    const read = await connection.listAllowedTools().then(
      (tools) => ({ length: tools.length, refused: null }),
      (error: Error) => ({ length: 0, refused: error.message }),
    )
    return { ...read, pages: asked.pages }
  }

  const logged: string[] = []
  const upstream = new Server({ name: 'gateway', version: '0' }, { capabilities: {} })
  const capabilities = upstreamCapabilities([
    (await connection.downstream()).getServerCapabilities(),
  ])
  upstream.registerCapabilities(capabilities)
  installForwarding(
    {
      server: upstream,
      pool,
      consent: { ask: () => Promise.reject(new Error('nobody is asked for a list')) },
      workspace: process.cwd(),
      requestTimeoutMs: 10_000,
      log: (line) => logged.push(line),
      subscriptions: new Set(),
    },
    capabilities,
  )
  const [agentSide, gatewaySide] = InMemoryTransport.createLinkedPair()
  await upstream.connect(gatewaySide)
  const agent = new Client({ name: 'agent', version: '0' })
  await agent.connect(agentSide)
  closers.push(() => agent.close())
  const length =
    door === 'resources'
      ? (await agent.listResources()).resources.length
      : door === 'resource templates'
        ? (await agent.listResourceTemplates()).resourceTemplates.length
        : (await agent.listPrompts()).prompts.length
  const refusal = logged.find((line) => line.includes('the list was refused'))
  return { length, refused: refusal ?? null, pages: asked.pages }
}

describe("a server's tool list, read by every door that calls a tool", () => {
  it('refuses a list that names an allowed tool twice, on one page or across two', async () => {
    const onePage: Paging = () => ({ count: 2, names: ['p0_0', 'p0_0'] })
    const twoPages: Paging = (cursor) =>
      cursor === undefined
        ? { count: 1, names: ['p0_0'], next: 'second' }
        : { count: 1, names: ['p0_0'] }
    for (const paging of [onePage, twoPages]) {
      const read = await readThrough('tools', paging)
      expect(read.refused).toMatch(/^pager lists p0_0 twice; the list was refused$/)
    }
  })
})

describe("a server's paged lists, at every door that reads one whole", () => {
  for (const door of DOORS) {
    for (const server of SERVERS) {
      it(`${door}: ${server.name}`, async () => {
        const read = await readThrough(door, server.paging)
        expect(read.pages).toBe(server.pages)
        if (server.refused === null) {
          expect(read.refused).toBeNull()
          // Tools: only the allowed name of the first page is kept.
          expect(read.length).toBe(door === 'tools' ? 1 : 15)
        } else {
          expect(read.refused).toMatch(server.refused)
          expect(read.refused).toMatch(/^(assent-gateway: pager did not list .*: Error: )?pager /)
          // Refused whole: nothing of a list cut short is used.
          expect(read.length).toBe(0)
        }
      })
    }
  }
})
