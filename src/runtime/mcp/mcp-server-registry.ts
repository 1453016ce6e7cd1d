import { BUILT_IN_FILESYSTEM_SERVER_ID, type McpConfig } from '../../contracts/mcp-config.ts'
import { DEFAULT_APPROVAL_TTL_MS } from '../../contracts/approval.ts'
import { builtInFilesystemConfig, serveBuiltInFilesystem } from './built-in-filesystem-server.ts'
import { McpConnection, type McpElicitationHandler } from './mcp-connection.ts'
import {
  McpConnectionPool,
  type McpConfigChange,
  type McpConnectionLease,
} from './mcp-connection-pool.ts'

/** How long the runtime's own MCP requests may take: past the longest
 *  approval lifetime it runs with, plus a minute, so the SDK never cuts a call
 *  short while the person is still deciding. */
export function runtimeMcpTimeoutMs(approvalTtlMs: number): number {
  return Math.max(approvalTtlMs, DEFAULT_APPROVAL_TTL_MS) + 60_000
}

/**
 * The MCP servers the runtime's agents may call: those of mcp.json (which
 * `apply` replaces when the file changes), and the built-in `filesystem`
 * server, one per workspace, always on. Connections open on first use and
 * reopen after a server goes away.
 */
export class McpServerRegistry {
  private readonly configured: McpConnectionPool
  private readonly builtIn = new Map<string, McpConnection>()
  private readonly timeoutMs: number

  constructor(
    config: McpConfig,
    options: { requestTimeoutMs: number; onElicitation?: McpElicitationHandler },
  ) {
    this.timeoutMs = options.requestTimeoutMs
    const onElicitation = options.onElicitation
    this.configured = new McpConnectionPool(
      config,
      (server) =>
        new McpConnection(server, {
          requestTimeoutMs: this.timeoutMs,
          ...(onElicitation ? { onElicitation } : {}),
        }),
    )
  }

  get serverIds(): string[] {
    return [BUILT_IN_FILESYSTEM_SERVER_ID, ...this.configured.serverIds]
  }

  /** A new mcp.json, for calls that start from now on. */
  apply(config: McpConfig): McpConfigChange {
    return this.configured.apply(config)
  }

  /** The connection for `serverId` in a room whose workspace is
   *  `workspace`, held until `release`, or undefined for a server nobody
   *  configured. */
  lease(serverId: string, workspace: string): McpConnectionLease | undefined {
    if (serverId !== BUILT_IN_FILESYSTEM_SERVER_ID) return this.configured.lease(serverId)
    let connection = this.builtIn.get(workspace)
    if (!connection) {
      connection = new McpConnection(builtInFilesystemConfig(), {
        requestTimeoutMs: this.timeoutMs,
        transportFactory: async () => {
          // Loaded with the first call, as the client is (mcp-connection.ts).
          const { InMemoryTransport } = await import('@modelcontextprotocol/sdk/inMemory.js')
          const [client, server] = InMemoryTransport.createLinkedPair()
          void serveBuiltInFilesystem(workspace, server)
          return client
        },
      })
      this.builtIn.set(workspace, connection)
    }
    return { connection, release: () => undefined }
  }

  async close(): Promise<void> {
    await Promise.allSettled([
      this.configured.close(),
      ...[...this.builtIn.values()].map((connection) => connection.close()),
    ])
  }
}
