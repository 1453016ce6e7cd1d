import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import {
  CreateMessageRequestSchema,
  ErrorCode,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  McpError,
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
  type ClientCapabilities,
  type ClientNotification,
  type CreateMessageRequest,
  type CreateMessageResult,
  type ListRootsResult,
  type Progress,
  type ServerNotification,
} from '@modelcontextprotocol/sdk/types.js'
import type { McpConsentPort } from '../runtime/mcp/gated-mcp-call.ts'
import type {
  McpClientRelay,
  McpElicitationHandler,
  McpServer,
} from '../runtime/mcp/mcp-connection.ts'
import { installElicitation } from '../runtime/mcp/mcp-elicitation.ts'
import { McpRefusal } from '../runtime/mcp/mcp-refusal.ts'
import { rootsInWorkspace } from '../runtime/mcp/mcp-roots.ts'
import { namespacedToolName } from '../runtime/mcp/mcp-tool-definition.ts'
import { runGoverned } from '../runtime/mcp/governed-mcp-action.ts'

export interface GatewayRelayOptions {
  /** The gateway's own server, facing the agent. */
  upstream: Server
  consent: McpConsentPort
  workspace: string
  /** How long the agent's client may take to answer a server's request. */
  requestTimeoutMs: number
  log: (line: string) => void
  /** Where a server's elicitation goes: the person, as a form in the
   *  gateway room, during the allowed call it came from. */
  elicit: McpElicitationHandler
  /** Whether a server's configuration is the one in force now (the pool's
   *  `isInForce`): a connection kept for a call that began before mcp.json
   *  was reloaded is no longer judged by what it was started with. */
  inForce: (server: McpServer) => boolean
}

/**
 * What the servers behind the gateway send towards the agent: their
 * requests (sampling, roots) and notifications (log messages, resource
 * updates, list changes), relayed to the agent's client, the one client
 * this gateway serves. Each connection to a server declares sampling and
 * roots on the agent's behalf; a request the agent's client does not
 * support is answered with an error saying so. Elicitation is the one
 * request that does not go to the agent: a form asks the person, so it goes
 * to the person (`elicit`, McpElicitationRouter in gateway-server.ts),
 * never to a model that could fill it in for them.
 */
export class GatewayRelay implements McpClientRelay {
  readonly capabilities: ClientCapabilities = {
    sampling: {},
    roots: { listChanged: true },
    elicitation: {},
  }
  private readonly options: GatewayRelayOptions

  constructor(options: GatewayRelayOptions) {
    this.options = options
  }

  install(client: Client, server: McpServer): void {
    client.setRequestHandler(CreateMessageRequestSchema, (request, extra) =>
      this.sample(server, request.params, extra),
    )
    installElicitation(client, (params) => this.options.elicit(server.id, params))
    client.setRequestHandler(ListRootsRequestSchema, (_request, extra) =>
      this.roots(server, extra.signal),
    )
    client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
      const { logger } = notification.params
      this.notify({
        method: 'notifications/message',
        params: {
          ...notification.params,
          logger: logger === undefined ? server.id : namespacedToolName(server.id, logger),
        },
      })
    })
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
      this.notify({
        method: 'notifications/resources/updated',
        params: { uri: namespacedToolName(server.id, notification.params.uri) },
      })
    })
    client.setNotificationHandler(ToolListChangedNotificationSchema, () =>
      this.notify({ method: 'notifications/tools/list_changed' }),
    )
    client.setNotificationHandler(PromptListChangedNotificationSchema, () =>
      this.notify({ method: 'notifications/prompts/list_changed' }),
    )
    client.setNotificationHandler(ResourceListChangedNotificationSchema, () =>
      this.notify({ method: 'notifications/resources/list_changed' }),
    )
  }

  /**
   * A server's `roots/list`: the agent's roots, each narrowed to the
   * workspace (mcp-roots.ts), since a server takes them as the folders it
   * may work in. While the workspace is not the folder the gateway pinned,
   * none is named: the server gets an error saying why.
   */
  private async roots(server: McpServer, signal: AbortSignal): Promise<ListRootsResult> {
    this.requireClient('roots', 'roots/list')
    try {
      this.options.consent.checkWorkspace?.()
      const given = await this.options.upstream.listRoots(undefined, {
        signal,
        timeout: this.options.requestTimeoutMs,
      })
      // Again: the folder may have moved while the agent answered.
      this.options.consent.checkWorkspace?.()
      const { roots, dropped } = rootsInWorkspace(this.options.workspace, given.roots)
      for (const root of dropped) {
        this.options.log(
          `assent-gateway: ${server.id} is not shown the root ${root.uri}: ${root.why} (the workspace is ${this.options.workspace})`,
        )
      }
      return { roots }
    } catch (error) {
      if (!(error instanceof McpRefusal)) throw error
      this.options.log(`assent-gateway: ${server.id} is shown no roots: ${error.message}`)
      throw new McpError(error.code, error.message, error.data)
    }
  }

  /** A server's sampling request: governed like a read of that server
   *  (the person sees the whole request before the agent's model does),
   *  then sent to the agent's client. */
  private async sample(
    server: McpServer,
    params: CreateMessageRequest['params'],
    extra: {
      signal: AbortSignal
      sendNotification: (notification: ClientNotification) => Promise<void>
    },
  ): Promise<CreateMessageResult> {
    // The agent's progress on the request goes back under the server's
    // own token; without one the agent is given none to report on.
    const token = params._meta?.progressToken
    const onprogress =
      token === undefined
        ? undefined
        : (progress: Progress) => {
            void extra
              .sendNotification({
                method: 'notifications/progress',
                params: { ...progress, progressToken: token },
              })
              .catch(() => undefined)
          }
    this.requireClient('sampling', 'sampling/createMessage')
    // Judged by the configuration it was connected with, a server that
    // mcp.json has since changed (a read-only manifest taken away) or
    // removed would still reach the agent's model unasked: its requests
    // are refused until its call ends and the connection goes.
    if (!this.options.inForce(server)) {
      throw new McpError(
        ErrorCode.InvalidRequest,
        `${server.id}'s configuration changed (mcp.json was reloaded) while its call ran; assent-gateway passes on no request of the connection made before`,
      )
    }
    try {
      return await runGoverned({
        consent: this.options.consent,
        server,
        method: 'sampling/createMessage',
        args: params as Record<string, unknown>,
        workspace: this.options.workspace,
        signal: extra.signal,
        run: () =>
          this.options.upstream.createMessage(params, {
            signal: extra.signal,
            timeout: this.options.requestTimeoutMs,
            ...(onprogress === undefined ? {} : { onprogress, resetTimeoutOnProgress: true }),
          }) as Promise<CreateMessageResult>,
        outcome: (result) =>
          result.content.type === 'text' ? result.content.text : `[${result.content.type}]`,
      })
    } catch (error) {
      if (error instanceof McpRefusal) throw new McpError(error.code, error.message, error.data)
      throw error
    }
  }

  /** Refuses a server's request the agent's client did not declare, with
   *  a reason the server can pass on. */
  private requireClient(capability: 'sampling' | 'roots', method: string): void {
    if (this.options.upstream.getClientCapabilities()?.[capability] === undefined) {
      throw new McpError(
        ErrorCode.MethodNotFound,
        `the agent's client behind assent-gateway does not support ${method}`,
      )
    }
  }

  /** A notification to the agent; one the agent's session was not set up
   *  for (a capability no server had when it connected) is dropped. */
  private notify(notification: ServerNotification): void {
    void this.options.upstream.notification(notification).catch((error: unknown) => {
      this.options.log(`assent-gateway: ${notification.method} not passed on: ${String(error)}`)
    })
  }
}
