import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js'
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  McpError,
  RootsListChangedNotificationSchema,
  type CallToolResult,
  type Progress,
  type ServerCapabilities,
  type ServerNotification,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js'
import type { McpConfig } from '../contracts/mcp-config.ts'
import {
  runGatedMcpCall,
  type McpConsentPort,
  type McpConsentTicket,
} from '../runtime/mcp/gated-mcp-call.ts'
import { McpConnection, type McpServer } from '../runtime/mcp/mcp-connection.ts'
import { McpConnectionPool, type McpConfigChange } from '../runtime/mcp/mcp-connection-pool.ts'
import { McpElicitationRouter } from '../runtime/mcp/mcp-elicitation.ts'
import { McpRefusal } from '../runtime/mcp/mcp-refusal.ts'
import { askingAtMost } from '../runtime/mcp/waiting-asks.ts'
import {
  PREVIEW_SUFFIX,
  namespacedToolName,
  splitNamespacedToolName,
  type McpToolDefinition,
} from '../runtime/mcp/mcp-tool-definition.ts'
import { namespacedContent } from './gateway-content.ts'
import { installForwarding, upstreamCapabilities } from './gateway-forwarding.ts'
import { GatewayRelay } from './gateway-relay.ts'

/** Downstream requests may take this long. A downstream call starts only
 *  after consent, so this never races an approval's lifetime; it is long so a
 *  slow tool is not cut short either. */
export const DOWNSTREAM_REQUEST_TIMEOUT_MS = 300_000

/** How often a call that waits (for the person, or for the server) tells
 *  the agent it is still alive, when the agent asked for progress: well
 *  inside the 60 s request timeout MCP clients default to. */
export const GATEWAY_PROGRESS_INTERVAL_MS = 15_000

export interface GatewayServerOptions {
  config: McpConfig
  consent: McpConsentPort
  log: (line: string) => void
  /** The folder the gateway serves (the person-only rule reads paths
   *  against it); the current directory if not given. */
  workspace?: string
  /** `GATEWAY_PROGRESS_INTERVAL_MS` unless a test shortens it. */
  progressIntervalMs?: number
}

/** The call a server's elicitation belongs to: its consent ticket, once the
 *  person allowed it. */
interface GatewayCall {
  ticket: McpConsentTicket | undefined
}

/**
 * An MCP server that fronts the configured servers: it lists their allowed
 * tools as `server__tool` and runs each call through `runGatedMcpCall`, so
 * the person is asked in Assent's protected window before any gated tool
 * runs. A refused call is a JSON-RPC error whose `data.reason` says why.
 * Resources, prompts, completions and logging are forwarded
 * (gateway-forwarding.ts), the servers' own requests and notifications
 * relayed back (gateway-relay.ts); docs/mcp.md's conformance table lists
 * each method and what the policy does with it.
 *
 * While a call waits it sends `notifications/progress` to an agent that
 * gave a progress token; a server's elicitation during an allowed call is
 * passed on to the person as a form in the gateway room; `apply` takes a
 * new mcp.json for the calls that start after it.
 */
export class AssentGateway {
  private readonly options: GatewayServerOptions
  private readonly pool: McpConnectionPool
  private readonly elicitation: McpElicitationRouter<GatewayCall>
  private readonly workspace: string
  /** The agent's way to the person: `options.consent`, past
   *  MAX_WAITING_ASKS questions waiting refusing without asking
   *  (waiting-asks.ts). One gateway serves one client, so this is that
   *  client's count, for its tool calls, reads and prompts alike. */
  private readonly consent: McpConsentPort
  /** The resources the agent subscribed to (`server__uri`): the relay
   *  passes on updates for these alone. */
  private readonly subscriptions = new Set<string>()
  /** What the agent was offered at initialisation. */
  private offered: ServerCapabilities = {}
  readonly server: Server

  constructor(options: GatewayServerOptions) {
    this.options = options
    this.workspace = options.workspace ?? process.cwd()
    this.consent = askingAtMost(options.consent, undefined, options.log)
    this.server = new Server(
      { name: 'assent-gateway', version: '0.1.0' },
      { capabilities: { tools: { listChanged: true } } },
    )
    this.elicitation = new McpElicitationRouter<GatewayCall>(
      async (call, form, over) => {
        // The router asks nobody before the call runs as allowed (a
        // preview asking, a read-only manifest's call nobody was asked
        // about), nor beside another request to its server; a ticket
        // without a way to the person (an asker that cannot reach them)
        // asks nobody either.
        if (!call.ticket?.elicit) return { action: 'cancel' }
        return call.ticket.elicit(form, over)
      },
      (error) => options.log(`assent-gateway: a form was not shown: ${String(error)}`),
    )
    const relay = new GatewayRelay({
      upstream: this.server,
      consent: options.consent,
      workspace: this.workspace,
      requestTimeoutMs: DOWNSTREAM_REQUEST_TIMEOUT_MS,
      log: options.log,
      elicit: this.elicitation.handle,
      inForce: (server) => this.pool.isInForce(server),
      subscriptions: this.subscriptions,
    })
    this.pool = new McpConnectionPool(
      options.config,
      (config) =>
        new McpConnection(config, {
          requestTimeoutMs: DOWNSTREAM_REQUEST_TIMEOUT_MS,
          stderr: 'inherit',
          relay,
        }),
    )
    this.server.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: await this.listTools(),
    }))
    this.server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const { name, arguments: args = {} } = request.params
      const progress = this.progress(request.params._meta?.progressToken, extra)
      try {
        return await this.callTool(name, args, {
          signal: extra.signal,
          ...(progress.relay === undefined
            ? {}
            : { onprogress: progress.relay, resetTimeoutOnProgress: true }),
        })
      } finally {
        progress.stop()
      }
    })
    this.server.setNotificationHandler(RootsListChangedNotificationSchema, async () => {
      for (const connection of this.pool.connections()) {
        if (!connection.connected) continue
        await (await connection.downstream()).sendRootsListChanged().catch(() => undefined)
      }
    })
  }

  async start(transport: Transport): Promise<void> {
    // All at once: the agent's `initialize` waits for the slowest server,
    // not for the sum of them.
    await Promise.all(
      this.pool.connections().map((connection) =>
        connection.connect().catch((error: unknown) => {
          this.options.log(
            `assent-gateway: ${connection.server.id} did not start: ${(error as Error).message}`,
          )
        }),
      ),
    )
    // What the agent is offered is what the servers offered as they
    // started: MCP fixes capabilities at initialisation.
    const offered = []
    for (const connection of this.pool.connections()) {
      if (!connection.connected) continue
      offered.push((await connection.downstream()).getServerCapabilities())
    }
    const capabilities = upstreamCapabilities(offered)
    this.offered = capabilities
    this.server.registerCapabilities(capabilities)
    installForwarding(
      {
        server: this.server,
        pool: this.pool,
        consent: this.consent,
        workspace: this.workspace,
        requestTimeoutMs: DOWNSTREAM_REQUEST_TIMEOUT_MS,
        log: this.options.log,
        subscriptions: this.subscriptions,
      },
      capabilities,
    )
    await this.server.connect(transport)
  }

  /** A new mcp.json, for the calls that start from now on; the agent is
   *  told its tool list changed. */
  apply(config: McpConfig): McpConfigChange {
    const change = this.pool.apply(config)
    void this.server.sendToolListChanged().catch(() => undefined)
    const capabilities = this.offered
    if (capabilities.prompts) void this.server.sendPromptListChanged().catch(() => undefined)
    if (capabilities.resources) void this.server.sendResourceListChanged().catch(() => undefined)
    return change
  }

  /** Closing the agent's side aborts every call still in flight; the
   *  gateway then waits until their questions to the person are withdrawn
   *  and every outcome is recorded. */
  async close(): Promise<void> {
    await this.server.close()
    await this.pool.close()
    await this.options.consent.drain?.()
  }

  /** The allowed tools of every server that answers. A server that is down
   *  is left out (and logged) rather than failing the whole list. */
  private async listTools(): Promise<Tool[]> {
    const tools: Tool[] = []
    for (const connection of this.pool.connections()) {
      const serverId = connection.server.id
      try {
        for (const tool of await connection.listAllowedTools()) {
          // Previews are Assent's to call, before asking; not the agent's.
          if (tool.name.endsWith(PREVIEW_SUFFIX)) continue
          tools.push({
            name: namespacedToolName(serverId, tool.name),
            ...(tool.title === undefined ? {} : { title: tool.title }),
            description: tool.description ?? '',
            inputSchema: tool.inputSchema as Tool['inputSchema'],
            ...annotationsFor(connection.server, tool),
          })
        }
      } catch (error) {
        this.options.log(`assent-gateway: ${serverId} did not list tools: ${String(error)}`)
      }
    }
    return tools
  }

  private async callTool(
    name: string,
    args: Record<string, unknown>,
    run: RequestOptions,
  ): Promise<CallToolResult> {
    const parts = splitNamespacedToolName(name)
    // Held to the end of the call: a new mcp.json applies to calls that
    // start after it, never to one the person is deciding on.
    const lease = parts ? this.pool.lease(parts.serverId) : undefined
    try {
      if (!parts || !lease || parts.toolName.endsWith(PREVIEW_SUFFIX)) {
        throw new McpRefusal('not_allowed', `no allowed tool named ${name}`)
      }
      const call: GatewayCall = { ticket: undefined }
      const result = await this.elicitation.during(parts.serverId, call, (running) => {
        const consent: McpConsentPort = {
          ask: async (request, signal) => {
            call.ticket = await this.consent.ask(request, signal)
            return call.ticket
          },
          checkWorkspace: () => this.consent.checkWorkspace?.(),
          mayRun: (tool) => this.consent.mayRun?.(tool),
          // The server's forms reach the person from here on only.
          beforeRun: running,
        }
        return runGatedMcpCall(lease.connection, parts.toolName, args, consent, this.workspace, run)
      })
      return { ...result, content: namespacedContent(parts.serverId, result.content) }
    } catch (error) {
      if (error instanceof McpRefusal) throw new McpError(error.code, error.message, error.data)
      throw error
    } finally {
      lease?.release()
    }
  }

  /**
   * Progress for the caller's token: every interval while the call waits
   * (for the person, or for the server), then the server's own progress
   * passed on once it reports some, which stops the gateway's. The
   * server's values are offset past the gateway's so the agent sees them
   * increase, as MCP requires. Nothing without a token (MCP sends progress
   * only to a caller that asked for it).
   */
  private progress(
    token: string | number | undefined,
    extra: { sendNotification: (notification: ServerNotification) => Promise<void> },
  ): { relay?: (progress: Progress) => void; stop: () => void } {
    if (token === undefined) return { stop: () => undefined }
    let sent = 0
    let offset: number | undefined
    const send = (params: Omit<Progress, 'progressToken'>) => {
      void extra
        .sendNotification({
          method: 'notifications/progress',
          params: { ...params, progressToken: token },
        })
        .catch(() => undefined)
    }
    const timer = setInterval(() => {
      sent += 1
      send({
        progress: sent,
        message: 'waiting: for the person to decide in Assent, or for the server',
      })
    }, this.options.progressIntervalMs ?? GATEWAY_PROGRESS_INTERVAL_MS)
    return {
      relay: (progress) => {
        clearInterval(timer)
        offset ??= sent
        send({
          progress: offset + progress.progress,
          ...(progress.total === undefined ? {} : { total: offset + progress.total }),
          ...(progress.message === undefined ? {} : { message: progress.message }),
        })
      },
      stop: () => clearInterval(timer),
    }
  }
}

/**
 * The annotations the agent sees. A tool that asks the person is marked
 * destructive and not read-only whatever its server claims: an agent (or
 * its host) that trusts `readOnlyHint` to skip its own confirmation or to
 * run a call unattended must not be told a gated call is harmless on the
 * server's word. A tool that runs without consent keeps the server's
 * annotations, which are hints either way.
 */
function annotationsFor(
  server: McpServer,
  tool: McpToolDefinition,
): { annotations?: Tool['annotations'] } {
  const gated = server.requires_approval && server.approvalFreeTools?.includes(tool.name) !== true
  if (!gated) return tool.annotations === undefined ? {} : { annotations: tool.annotations }
  return { annotations: { ...tool.annotations, readOnlyHint: false, destructiveHint: true } }
}
