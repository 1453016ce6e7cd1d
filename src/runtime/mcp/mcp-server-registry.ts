import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { BUILT_IN_FILESYSTEM_SERVER_ID, type McpConfig } from '../../contracts/mcp-config.ts'
import { DEFAULT_APPROVAL_TTL_MS } from '../domain/approval.ts'
import { builtInFilesystemConfig, serveBuiltInFilesystem } from './built-in-filesystem-server.ts'
import { McpConnection, type McpElicitationHandler } from './mcp-connection.ts'

/** How long the runtime's own MCP requests may take: past the longest
 *  consent window it runs with, plus a minute, so the SDK never cuts a call
 *  short while the person is still deciding. */
export function runtimeMcpTimeoutMs(approvalTtlMs: number): number {
  return Math.max(approvalTtlMs, DEFAULT_APPROVAL_TTL_MS) + 60_000
}

/**
 * The MCP servers the runtime's agents may call: those of mcp.json, and the
 * built-in `filesystem` server, one per workspace, always on. Connections
 * open on first use and reopen after a server goes away.
 */
export class McpServerRegistry {
  private readonly configured = new Map<string, McpConnection>()
  private readonly builtIn = new Map<string, McpConnection>()
  private readonly timeoutMs: number
  private readonly onElicitation: McpElicitationHandler | undefined

  constructor(
    config: McpConfig,
    options: { requestTimeoutMs: number; onElicitation?: McpElicitationHandler },
  ) {
    this.timeoutMs = options.requestTimeoutMs
    this.onElicitation = options.onElicitation
    for (const server of config.servers) {
      this.configured.set(
        server.id,
        new McpConnection(server, {
          requestTimeoutMs: this.timeoutMs,
          ...(this.onElicitation ? { onElicitation: this.onElicitation } : {}),
        }),
      )
    }
  }

  get serverIds(): string[] {
    return [BUILT_IN_FILESYSTEM_SERVER_ID, ...this.configured.keys()]
  }

  /** The connection for `serverId` in a room whose workspace is
   *  `workspace`, or undefined for a server nobody configured. */
  connectionFor(serverId: string, workspace: string): McpConnection | undefined {
    if (serverId !== BUILT_IN_FILESYSTEM_SERVER_ID) return this.configured.get(serverId)
    let connection = this.builtIn.get(workspace)
    if (!connection) {
      connection = new McpConnection(builtInFilesystemConfig(), {
        requestTimeoutMs: this.timeoutMs,
        transportFactory: () => {
          const [client, server] = InMemoryTransport.createLinkedPair()
          void serveBuiltInFilesystem(workspace, server)
          return client
        },
      })
      this.builtIn.set(workspace, connection)
    }
    return connection
  }

  async close(): Promise<void> {
    const all = [...this.configured.values(), ...this.builtIn.values()]
    await Promise.allSettled(all.map((connection) => connection.close()))
  }
}
