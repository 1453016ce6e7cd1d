import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  McpError,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js'
import type { McpConfig } from '../contracts/mcp-config.ts'
import { runGatedMcpCall, type McpConsentPort } from '../runtime/mcp/gated-mcp-call.ts'
import { McpConnection } from '../runtime/mcp/mcp-connection.ts'
import { McpRefusal } from '../runtime/mcp/mcp-refusal.ts'
import {
  PREVIEW_SUFFIX,
  namespacedToolName,
  splitNamespacedToolName,
} from '../runtime/mcp/mcp-tool-definition.ts'

/** Downstream requests may take this long. A downstream call starts only
 *  after consent, so this never races the consent window; it is long so a
 *  slow tool is not cut short either. */
export const DOWNSTREAM_REQUEST_TIMEOUT_MS = 300_000

export interface GatewayServerOptions {
  config: McpConfig
  consent: McpConsentPort
  log: (line: string) => void
}

/**
 * An MCP server that fronts the configured servers: it lists their allowed
 * tools as `server__tool` and runs each call through `runGatedMcpCall`, so
 * the person is asked in Assent's protected window before any gated tool
 * runs. A refused call is a JSON-RPC error whose `data.reason` says why.
 */
export class AssentGateway {
  private readonly options: GatewayServerOptions
  private readonly connections = new Map<string, McpConnection>()
  readonly server: Server

  constructor(options: GatewayServerOptions) {
    this.options = options
    for (const config of options.config.servers) {
      this.connections.set(
        config.id,
        new McpConnection(config, {
          requestTimeoutMs: DOWNSTREAM_REQUEST_TIMEOUT_MS,
          stderr: 'inherit',
        }),
      )
    }
    this.server = new Server(
      { name: 'assent-gateway', version: '0.1.0' },
      { capabilities: { tools: {} } },
    )
    this.server.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: await this.listTools(),
    }))
    this.server.setRequestHandler(CallToolRequestSchema, async (request) => {
      const { name, arguments: args = {} } = request.params
      return this.callTool(name, args)
    })
  }

  async start(transport: Transport): Promise<void> {
    for (const connection of this.connections.values()) {
      await connection.connect().catch((error: unknown) => {
        this.options.log(
          `assent-gateway: ${connection.server.id} did not start: ${(error as Error).message}`,
        )
      })
    }
    await this.server.connect(transport)
  }

  async close(): Promise<void> {
    await this.server.close()
    for (const connection of this.connections.values()) await connection.close()
  }

  /** The allowed tools of every server that answers. A server that is down
   *  is left out (and logged) rather than failing the whole list. */
  private async listTools(): Promise<Tool[]> {
    const tools: Tool[] = []
    for (const [serverId, connection] of this.connections) {
      try {
        for (const tool of await connection.listAllowedTools()) {
          // Previews are Assent's to call, before asking; not the agent's.
          if (tool.name.endsWith(PREVIEW_SUFFIX)) continue
          tools.push({
            name: namespacedToolName(serverId, tool.name),
            ...(tool.title === undefined ? {} : { title: tool.title }),
            description: tool.description ?? '',
            inputSchema: tool.inputSchema as Tool['inputSchema'],
            ...(tool.annotations === undefined ? {} : { annotations: tool.annotations }),
          })
        }
      } catch (error) {
        this.options.log(`assent-gateway: ${serverId} did not list tools: ${String(error)}`)
      }
    }
    return tools
  }

  private async callTool(name: string, args: Record<string, unknown>) {
    const parts = splitNamespacedToolName(name)
    const connection = parts ? this.connections.get(parts.serverId) : undefined
    try {
      if (!parts || !connection || parts.toolName.endsWith(PREVIEW_SUFFIX)) {
        throw new McpRefusal('not_allowed', `no allowed tool named ${name}`)
      }
      return await runGatedMcpCall(connection, parts.toolName, args, this.options.consent)
    } catch (error) {
      if (error instanceof McpRefusal) throw new McpError(error.code, error.message, error.data)
      throw error
    }
  }
}
