import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import type {
  CallToolResult,
  ClientCapabilities,
  ElicitResult,
} from '@modelcontextprotocol/sdk/types.js'
import type { McpServerConfig } from '../../contracts/mcp-config.ts'
import { boundedFetch } from './bounded-fetch.ts'
import { installElicitation } from './mcp-elicitation.ts'
import { everyPage } from './mcp-pages.ts'
import type { McpToolDefinition } from './mcp-tool-definition.ts'

/**
 * Where MCP elicitation (a server asking the person for input through a
 * form) plugs in: McpElicitationRouter's, in the runtime and in the
 * gateway. It gets the request's params as they arrived, unparsed, and
 * whether the request the form came during is the only one the server has
 * not answered (`installElicitation`), and a signal that aborts when the
 * server cancels its request (`notifications/cancelled`): a form it no
 * longer waits for is withdrawn. Without a handler or a relay the client does not
 * declare the capability, so a conforming server never asks, and one that
 * asks anyway gets "method not found".
 */
export type McpElicitationHandler = (
  serverId: string,
  params: unknown,
  alone: boolean,
  cancelled: AbortSignal,
) => Promise<ElicitResult>

/** A configured server, plus what only Assent itself may add: tools of its
 *  built-in server that run without consent. mcp.json cannot set this. */
export type McpServer = McpServerConfig & { approvalFreeTools?: readonly string[] }

/**
 * What a front for many servers (the gateway) adds to each connection: the
 * client capabilities it declares on its agent's behalf, and the handlers
 * it installs for the server's requests and notifications. Installed on
 * every (re)connect, so a restarted server is relayed too.
 */
export interface McpClientRelay {
  capabilities: ClientCapabilities
  install(client: Client, server: McpServer): void
}

export interface McpConnectionOptions {
  /** How long one downstream request may take. Must outlast the consent
   *  window: a call the person is still reading must never be cut short by
   *  the SDK (its default is 60 s, an approval's lifetime, 120 s). */
  requestTimeoutMs: number
  onElicitation?: McpElicitationHandler
  relay?: McpClientRelay
  /** Where a stdio server's stderr goes; `inherit` by default. */
  stderr?: 'inherit' | 'ignore'
  /** Replaces the configured transport (the built-in server runs in
   *  process, over an in-memory pair). */
  transportFactory?: () => Transport | Promise<Transport>
}

/**
 * The SDK's client side, loaded when the first connection opens rather
 * than when the runtime starts: it (with its schemas and its JSON Schema
 * validator) is a large part of what a runtime that never calls an MCP
 * server would load and keep. Loaded once.
 */
let clientSdk: Promise<ClientSdk> | undefined
type ClientSdk = Awaited<ReturnType<typeof importClientSdk>>
async function importClientSdk() {
  const [{ Client }, { DescriptorSafeStdioTransport }, { StreamableHTTPClientTransport }] =
    await Promise.all([
      import('@modelcontextprotocol/sdk/client/index.js'),
      import('./stdio-transport.ts'),
      import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    ])
  return { Client, DescriptorSafeStdioTransport, StreamableHTTPClientTransport }
}

/**
 * One downstream MCP server, reached with the SDK's own client. It lists
 * only the tools the configuration names, and calls only those: a tool
 * outside `allowed_tools` is neither visible nor callable through here.
 */
export class McpConnection {
  readonly server: McpServer
  private readonly options: McpConnectionOptions
  private client: Client | undefined
  private closed = false

  constructor(server: McpServer, options: McpConnectionOptions) {
    this.server = server
    this.options = options
  }

  async connect(): Promise<void> {
    const sdk = await (clientSdk ??= importClientSdk())
    const client = new sdk.Client(
      { name: 'assent', version: '0.1.0' },
      {
        capabilities: {
          ...this.options.relay?.capabilities,
          ...(this.options.onElicitation ? { elicitation: {} } : {}),
        },
      },
    )
    this.options.relay?.install(client, this.server)
    const onElicitation = this.options.onElicitation
    if (onElicitation) {
      installElicitation(client, (params, alone, cancelled) =>
        onElicitation(this.server.id, params, alone, cancelled),
      )
    }
    client.onclose = () => {
      this.client = undefined
    }
    await client.connect(await this.transport(sdk), { timeout: this.options.requestTimeoutMs })
    this.client = client
  }

  get connected(): boolean {
    return this.client !== undefined
  }

  /** Reconnects a server that went away (crashed, restarted) on next use. */
  private async ready(): Promise<Client> {
    if (this.closed) throw new Error(`the MCP server ${this.server.id} was closed`)
    if (!this.client) await this.connect()
    if (!this.client) throw new Error(`the MCP server ${this.server.id} is not connected`)
    return this.client
  }

  /** The connected client, for what a relay forwards as it is (resources,
   *  prompts, completions, logging); tools go through `callTool`. */
  async downstream(): Promise<Client> {
    return this.ready()
  }

  /** The server's current definitions of the allowed tools, fetched afresh
   *  on every call so a changed definition is seen before it is trusted. */
  async listAllowedTools(): Promise<McpToolDefinition[]> {
    const client = await this.ready()
    const allowed = new Set(this.server.allowed_tools)
    const listed = await everyPage(this.server.id, 'tools', async (cursor) => {
      const page = await client.listTools(cursor === undefined ? {} : { cursor }, {
        timeout: this.options.requestTimeoutMs,
      })
      return { items: page.tools, next: page.nextCursor }
    })
    const tools: McpToolDefinition[] = []
    const named = new Set<string>()
    for (const tool of listed) {
      if (!allowed.has(tool.name)) continue
      // Two definitions under one name: which one a call runs is the
      // server's choice, and the person is shown one. Refused, not guessed.
      if (named.has(tool.name)) {
        throw new Error(`${this.server.id} lists ${tool.name} twice; the list was refused`)
      }
      named.add(tool.name)
      tools.push({
        name: tool.name,
        ...(tool.title === undefined ? {} : { title: tool.title }),
        ...(tool.description === undefined ? {} : { description: tool.description }),
        inputSchema: tool.inputSchema as Record<string, unknown>,
        ...(tool.annotations === undefined
          ? {}
          : { annotations: tool.annotations as Record<string, unknown> }),
      })
    }
    return tools
  }

  async findTool(name: string): Promise<McpToolDefinition | undefined> {
    return (await this.listAllowedTools()).find((tool) => tool.name === name)
  }

  /** Calls an allowed tool. Refuses a name outside `allowed_tools` here too,
   *  whatever the caller checked, so no path reaches a hidden tool. */
  async callTool(
    name: string,
    args: Record<string, unknown>,
    options: RequestOptions = {},
  ): Promise<CallToolResult> {
    if (!this.server.allowed_tools.includes(name)) {
      throw new Error(`${name} is not in allowed_tools of ${this.server.id}`)
    }
    const client = await this.ready()
    return (await client.callTool({ name, arguments: args }, undefined, {
      timeout: this.options.requestTimeoutMs,
      ...options,
    })) as CallToolResult
  }

  async close(): Promise<void> {
    this.closed = true
    const client = this.client
    this.client = undefined
    await client?.close()
  }

  private async transport(sdk: ClientSdk): Promise<Transport> {
    if (this.options.transportFactory) return this.options.transportFactory()
    const transport = this.server.transport
    if (transport.type === 'streamable-http') {
      // Each answer read within a bound, as stdio's lines are (bounded-fetch.ts).
      return new sdk.StreamableHTTPClientTransport(new URL(transport.url), {
        fetch: boundedFetch(),
      })
    }
    // Not the SDK's own stdio transport: the server gets no descriptor of
    // the runtime's but its three (stdio-transport.ts).
    return new sdk.DescriptorSafeStdioTransport({
      command: transport.command,
      args: transport.args,
      ...(transport.env === undefined ? {} : { env: transport.env }),
      ...(transport.cwd === undefined ? {} : { cwd: transport.cwd }),
      stderr: this.options.stderr ?? 'inherit',
    })
  }
}

/** The text of a tool result, for cards, previews and audit entries. */
export function resultText(result: CallToolResult): string {
  return result.content
    .map((part) => (part.type === 'text' ? part.text : `[${part.type}]`))
    .join('\n')
}
