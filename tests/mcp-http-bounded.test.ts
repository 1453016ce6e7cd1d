import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { McpConfigSchema } from '../src/contracts/mcp-config.ts'
import { MAX_MCP_MESSAGE_BYTES } from '../src/runtime/mcp/bounded-fetch.ts'
import { McpConnection } from '../src/runtime/mcp/mcp-connection.ts'

// A server behind mcp.json's `streamable-http` transport is read within
// MAX_MCP_MESSAGE_BYTES a message, as the SDK reads a stdio server's lines:
// an answer that never ends (a JSON body, or one event of a stream) fails
// the request after a bounded number of bytes instead of filling the
// memory of the process that asked, while an event stream of many small
// events, larger in all, is read whole. Each case runs against a real
// HTTP server on loopback through McpConnection, the connection a room's
// MCP calls (in the runtime) and the gateway's both use.

const CHUNK = Buffer.alloc(64 * 1024, 'x')

type Answer = (res: ServerResponse, id: unknown, wrote: (bytes: number) => void) => void

const TOOL = { name: 'echo', inputSchema: { type: 'object' } }
const result = (id: unknown) => JSON.stringify({ jsonrpc: '2.0', id, result: { tools: [TOOL] } })

/** Writes `prefix`, then chunks for as long as the client reads them. */
function endless(res: ServerResponse, prefix: string, wrote: (bytes: number) => void): void {
  res.write(prefix)
  const more = () => {
    while (!res.destroyed && res.write(CHUNK)) wrote(CHUNK.length)
    if (!res.destroyed) res.once('drain', more)
  }
  more()
}

const CASES: Array<{ name: string; answer: Answer; refused: boolean }> = [
  {
    name: 'a JSON answer, read whole',
    answer: (res, id) => {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(result(id))
    },
    refused: false,
  },
  {
    name: 'an event stream of many small events, more than the limit in all, read whole',
    answer: (res, id, wrote) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      // Comments: events the parser skips, each well under the limit.
      const comment = `: ${'k'.repeat(1_000)}\n\n`
      const count = Math.ceil((MAX_MCP_MESSAGE_BYTES * 1.5) / comment.length)
      for (let n = 0; n < count; n += 1) res.write(comment)
      wrote(count * comment.length)
      res.end(`event: message\ndata: ${result(id)}\n\n`)
    },
    refused: false,
  },
  {
    name: 'a JSON answer that never ends',
    answer: (res, id, wrote) => {
      res.writeHead(200, { 'content-type': 'application/json' })
      endless(res, `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"tools":[],"x":"`, wrote)
    },
    refused: true,
  },
  {
    name: 'one event that never ends',
    answer: (res, _id, wrote) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      endless(res, 'event: message\ndata: ', wrote)
    },
    refused: true,
  },
]

/** A streamable-HTTP MCP server on loopback that answers `tools/list` with
 *  `answer`, and everything else as a plain server would. */
async function httpServer(answer: Answer) {
  const sent = { bytes: 0, closed: false }
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'POST') {
      res.writeHead(405).end()
      return
    }
    let body = ''
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')))
    req.on('end', () => {
      const message = JSON.parse(body) as { id?: unknown; method: string; params?: unknown }
      if (message.id === undefined) {
        res.writeHead(202).end()
        return
      }
      if (message.method === 'initialize') {
        const { protocolVersion } = message.params as { protocolVersion: string }
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end(
          JSON.stringify({
            jsonrpc: '2.0',
            id: message.id,
            result: {
              protocolVersion,
              capabilities: { tools: {} },
              serverInfo: { name: 'http', version: '1.0.0' },
            },
          }),
        )
        return
      }
      res.on('close', () => (sent.closed = true))
      answer(res, message.id, (bytes) => (sent.bytes += bytes))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return { url: `http://127.0.0.1:${port}/mcp`, sent, close: () => server.close() }
}

describe('a streamable-HTTP server is read within a bound a message', () => {
  const closers: Array<() => unknown> = []
  afterEach(async () => {
    for (const close of closers.splice(0)) await close()
  })

  for (const each of CASES) {
    it(each.name, async () => {
      const server = await httpServer(each.answer)
      closers.push(() => server.close())
      const config = McpConfigSchema.parse({
        servers: [
          {
            id: 'http',
            name: 'HTTP',
            transport: { type: 'streamable-http', url: server.url },
            allowed_tools: ['echo'],
          },
        ],
      })
      // Far longer than any case takes: a refusal comes from the bound.
      const connection = new McpConnection(config.servers[0]!, { requestTimeoutMs: 300_000 })
      closers.push(() => connection.close())
      const read = await connection.listAllowedTools().then(
        (tools) => ({ tools: tools.map((tool) => tool.name), error: null }),
        (error: Error) => ({ tools: [], error: error.message }),
      )
      if (!each.refused) {
        expect(read).toEqual({ tools: ['echo'], error: null })
        return
      }
      expect(read.error).toMatch(
        `the MCP server sent more than ${MAX_MCP_MESSAGE_BYTES} bytes in one message`,
      )
      // The client stopped reading, and hung up, soon after the limit:
      // what it had read was never more than the limit and what was on
      // its way in the sockets' buffers.
      await expect.poll(() => server.sent.closed).toBe(true)
      expect(server.sent.bytes).toBeLessThan(MAX_MCP_MESSAGE_BYTES + 8 * 1024 * 1024)
    })
  }
})
