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
import { MCP_REFUSAL_CODES, McpRefusal } from '../runtime/mcp/mcp-refusal.ts'
import { rootsInWorkspace } from '../runtime/mcp/mcp-roots.ts'
import { namespacedToolName } from '../runtime/mcp/mcp-tool-definition.ts'
import { fileOutsideWorkspace, runGoverned } from '../runtime/mcp/governed-mcp-action.ts'
import { shownUri, withheldUri } from '../runtime/mcp/mcp-result-uris.ts'

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
  /** The resources the agent subscribed to, as it named them
   *  (`server__uri`), kept by the forwarding of `resources/subscribe`. */
  subscriptions: ReadonlySet<string>
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
    // One sampling request of a server at a time: each asks the person
    // (or, from a read-only server, reaches the agent's model unasked), and
    // a server sending them as fast as it can would bury the person in
    // questions until one is allowed to make it stop, or drive the model
    // at will. A second while one waits is refused, with the reason.
    let sampling = false
    client.setRequestHandler(CreateMessageRequestSchema, async (request, extra) => {
      if (sampling) {
        throw new McpError(
          ErrorCode.InvalidRequest,
          `${server.id} already has a sampling request waiting; assent-gateway passes on one at a time`,
        )
      }
      sampling = true
      try {
        return await this.sample(server, request.params, extra)
      } finally {
        sampling = false
      }
    })
    installElicitation(client, (params, alone, cancelled) =>
      this.options.elicit(server.id, params, alone, cancelled),
    )
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
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) =>
      this.updated(server, notification.params.uri),
    )
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
   * A server's `notifications/resources/updated`, passed on only for a
   * resource the agent subscribed to through the gateway and has not let
   * go of: an update says when something changed, and one the agent never
   * asked for would tell it, unasked, about whatever the server likes to
   * name. Even then, one naming a person-only path (a repository's
   * `.git/HEAD`, which a subscription is refused for), a URI that is not
   * plain (which may pass for another: mcp-result-uris.ts) or a file that
   * now leads outside the workspace (a name made a link to one since) is
   * dropped, as its subscription would be refused now. What is dropped is
   * logged.
   */
  private updated(server: McpServer, uri: string): void {
    const { workspace } = this.options
    const named = namespacedToolName(server.id, uri)
    const why = this.options.subscriptions.has(named)
      ? (withheldUri({ server, method: 'resources/updated', workspace }, uri) ??
        fileOutsideWorkspace(server, 'resources/updated', uri, workspace))
      : 'the agent did not subscribe to it through assent-gateway'
    if (why !== null) {
      this.options.log(
        `assent-gateway: ${server.id}'s update for ${shownUri(uri)} was dropped: ${why}`,
      )
      return
    }
    this.notify({ method: 'notifications/resources/updated', params: { uri: named } })
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
    asked: CreateMessageRequest['params'],
    extra: {
      signal: AbortSignal
      sendNotification: (notification: ClientNotification) => Promise<void>
    },
  ): Promise<CreateMessageResult> {
    // To the agent's client the gateway is one server, so "thisServer"
    // and "allServers" alike would have it add what every server behind
    // the gateway, and the agent, put in its context: a server would read
    // another's results, unasked. The request goes on (and is shown) with
    // none.
    const params = dropContext(server, asked, this.options.log)
    refuseUnseenContent(server, params)
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

/** A sampling request with `includeContext` (if any) set to "none", the
 *  one value that adds nothing the server did not write itself. */
function dropContext(
  server: McpServer,
  params: CreateMessageRequest['params'],
  log: (line: string) => void,
): CreateMessageRequest['params'] {
  if (params.includeContext === undefined || params.includeContext === 'none') return params
  log(
    `assent-gateway: ${server.id}'s sampling request asked for includeContext "${params.includeContext}"; it goes on with "none"`,
  )
  return { ...params, includeContext: 'none' }
}

/**
 * Refuses a sampling request that holds content other than text (an
 * image, audio, or one inside a tool's result), before anyone is asked or
 * anything reaches the model. The protected window shows a request as
 * text, so an image would be shown as its base64 and the person would
 * allow what they could not see, while the model reads it (instructions
 * drawn in a picture); and the person-only rule, which keeps a read-only
 * server's request from naming a key unasked, reads words, not pictures.
 * Refused, not dropped: the request's other messages were written around
 * it, and a request changed by the gateway is not the server's.
 */
function refuseUnseenContent(server: McpServer, params: CreateMessageRequest['params']): void {
  const unseen = params.messages.flatMap((each) => unseenTypes(each.content))
  if (unseen.length === 0) return
  throw new McpError(
    MCP_REFUSAL_CODES.not_allowed,
    `${server.id}'s sampling request holds ${[...new Set(unseen)].join(', ')} content, which the person cannot be shown (the protected window shows a request as text); assent-gateway passes on sampling requests of text only`,
    { reason: 'not_allowed', detail: 'cannot_be_shown' },
  )
}

/** The types of the parts of `content` that are not text a person reads
 *  as the model does: a tool's use is its name and input, shown as JSON;
 *  a tool's result is judged by its own parts. */
function unseenTypes(content: unknown): string[] {
  if (Array.isArray(content)) return content.flatMap(unseenTypes)
  const part = content as { type?: unknown; content?: unknown }
  if (part.type === 'text' || part.type === 'tool_use') return []
  if (part.type === 'tool_result') return unseenTypes(part.content ?? [])
  return [typeof part.type === 'string' ? part.type : 'unknown']
}
