import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { afterEach, describe, expect, it } from 'vitest'
import { McpConfigSchema, type McpConfig } from '../../contracts/mcp-config.ts'
import { McpConnection } from './mcp-connection.ts'
import { McpConnectionPool } from './mcp-connection-pool.ts'

/** A real SDK server in process, offering `write_note` and `read_note`. */
function inProcessServer() {
  const [client, server] = InMemoryTransport.createLinkedPair()
  const sdk = new Server({ name: 'notes', version: '1.0.0' }, { capabilities: { tools: {} } })
  sdk.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: ['write_note', 'read_note'].map((name) => ({
      name,
      inputSchema: { type: 'object' as const },
    })),
  }))
  void sdk.connect(server)
  return client
}

function config(servers: Array<{ id: string; allowed_tools: string[] }>): McpConfig {
  return McpConfigSchema.parse({
    servers: servers.map((server) => ({
      ...server,
      transport: { type: 'stdio', command: 'unused-in-process' },
    })),
  })
}

const pools: McpConnectionPool[] = []
function pool(initial: McpConfig) {
  const opened: McpConnection[] = []
  const created = new McpConnectionPool(initial, (server) => {
    const connection = new McpConnection(server, {
      requestTimeoutMs: 10_000,
      transportFactory: inProcessServer,
    })
    opened.push(connection)
    return connection
  })
  pools.push(created)
  return { pool: created, opened }
}

const toolNames = async (connection: McpConnection) =>
  (await connection.listAllowedTools()).map((tool) => tool.name)

afterEach(async () => {
  await Promise.all(pools.splice(0).map((each) => each.close()))
})

describe('McpConnectionPool', () => {
  it('keeps a leased connection working for its call after a new mcp.json changes the server, and closes it once released', async () => {
    const { pool: connections } = pool(config([{ id: 'notes', allowed_tools: ['write_note'] }]))
    const lease = connections.lease('notes')
    if (!lease) throw new Error('no lease')
    expect(await toolNames(lease.connection)).toEqual(['write_note'])

    const change = connections.apply(
      config([{ id: 'notes', allowed_tools: ['write_note', 'read_note'] }]),
    )
    expect(change).toEqual({ added: [], changed: ['notes'], removed: [] })
    // The call that started before the edit still talks to what it was shown.
    expect(await toolNames(lease.connection)).toEqual(['write_note'])
    // A call that starts now gets the new configuration.
    const next = connections.lease('notes')
    expect(next?.connection).not.toBe(lease.connection)
    expect(await toolNames(next?.connection ?? lease.connection)).toEqual([
      'write_note',
      'read_note',
    ])
    next?.release()

    lease.release()
    await expect(lease.connection.listAllowedTools()).rejects.toThrow(/was closed/)
  })

  it('closes a retired connection at once when no call holds it', async () => {
    const { pool: connections, opened } = pool(
      config([{ id: 'notes', allowed_tools: ['write_note'] }]),
    )
    const change = connections.apply(config([]))
    expect(change).toEqual({ added: [], changed: [], removed: ['notes'] })
    expect(connections.lease('notes')).toBeUndefined()
    await expect(opened[0]?.listAllowedTools()).rejects.toThrow(/was closed/)
  })

  it('keeps the connection of a server whose configuration did not change, and opens one for a new server', async () => {
    const { pool: connections } = pool(config([{ id: 'notes', allowed_tools: ['write_note'] }]))
    const before = connections.lease('notes')
    before?.release()
    const change = connections.apply(
      config([
        { id: 'notes', allowed_tools: ['write_note'] },
        { id: 'docs', allowed_tools: ['read_note'] },
      ]),
    )
    expect(change).toEqual({ added: ['docs'], changed: [], removed: [] })
    const after = connections.lease('notes')
    expect(after?.connection).toBe(before?.connection)
    after?.release()
    expect(connections.serverIds).toEqual(['notes', 'docs'])
  })

  it('releases a lease once, however often release is called', async () => {
    const { pool: connections } = pool(config([{ id: 'notes', allowed_tools: ['write_note'] }]))
    const first = connections.lease('notes')
    const second = connections.lease('notes')
    first?.release()
    first?.release()
    connections.apply(config([]))
    // The second call still holds it: a repeated release must not count for it.
    expect(await toolNames(second?.connection as McpConnection)).toEqual(['write_note'])
    second?.release()
    await expect(second?.connection.listAllowedTools()).rejects.toThrow(/was closed/)
  })
})
