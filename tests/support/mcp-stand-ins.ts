import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import type { McpConsentPort, McpConsentRequest } from '../../src/runtime/mcp/gated-mcp-call.ts'
import type { McpConnection, McpServer } from '../../src/runtime/mcp/mcp-connection.ts'
import type { McpToolDefinition } from '../../src/runtime/mcp/mcp-tool-definition.ts'

// Stand-ins for what surrounds runGatedMcpCall, for tests that only ask
// whether a call was asked about or run: no server process is started.

/** A consent port that records what it would ask the person, and denies
 *  it: what a test reads to tell an asked call from one run unasked. */
export function denyingConsent(): { port: McpConsentPort; asked: McpConsentRequest[] } {
  const asked: McpConsentRequest[] = []
  const port: McpConsentPort = {
    ask: (request) => {
      asked.push(request)
      return Promise.resolve({ status: 'denied', reason: 'no', report: () => Promise.resolve() })
    },
  }
  return { port, asked }
}

/** A connection to `server` offering `tool` only, whose calls do nothing
 *  but count (`runs()`). */
export function countingConnection(
  server: McpServer,
  tool: McpToolDefinition,
): { connection: McpConnection; runs: () => number } {
  let runs = 0
  const connection = {
    server,
    listAllowedTools: () => Promise.resolve([tool]),
    findTool: () => Promise.resolve(tool),
    callTool: (): Promise<CallToolResult> => {
      runs += 1
      return Promise.resolve({ content: [] })
    },
  } as unknown as McpConnection
  return { connection, runs: () => runs }
}
