import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js'
import {
  CompleteRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  type Prompt,
  type Resource,
  type ResourceTemplate,
  type ServerCapabilities,
  type ServerNotification,
} from '@modelcontextprotocol/sdk/types.js'
import type { McpConsentPort } from '../runtime/mcp/gated-mcp-call.ts'
import type { McpConnection } from '../runtime/mcp/mcp-connection.ts'
import type { McpConnectionPool } from '../runtime/mcp/mcp-connection-pool.ts'
import { isPlainMcpName } from '../runtime/mcp/mcp-plain-names.ts'
import { McpRefusal } from '../runtime/mcp/mcp-refusal.ts'
import { everyPage, type ListPage } from '../runtime/mcp/mcp-pages.ts'
import { namespacedToolName, splitNamespacedToolName } from '../runtime/mcp/mcp-tool-definition.ts'
import { namespacedContents, namespacedMessages } from './gateway-content.ts'
import { completionShown, refuseCompletion } from './gateway-completions.ts'
import { refuseSubscription, runGoverned } from '../runtime/mcp/governed-mcp-action.ts'
import { personOnlyNamed } from '../runtime/mcp/mcp-call-judgment.ts'

/**
 * What the gateway offers the agent besides tools: the union of what the
 * servers behind it offered when it started. A capability no server has is
 * not advertised, so the agent's client never asks for it.
 */
export function upstreamCapabilities(
  servers: ReadonlyArray<ServerCapabilities | undefined>,
): ServerCapabilities {
  const has = (key: keyof ServerCapabilities) => servers.some((caps) => caps?.[key] !== undefined)
  const subscribe = servers.some((caps) => caps?.resources?.subscribe === true)
  return {
    tools: { listChanged: true },
    ...(has('resources') ? { resources: { listChanged: true, subscribe } } : {}),
    ...(has('prompts') ? { prompts: { listChanged: true } } : {}),
    ...(has('completions') ? { completions: {} } : {}),
    ...(has('logging') ? { logging: {} } : {}),
  }
}

export interface ForwardingOptions {
  server: Server
  pool: McpConnectionPool
  consent: McpConsentPort
  workspace: string
  requestTimeoutMs: number
  log: (line: string) => void
  /** The resources the agent subscribed to, as it named them
   *  (`server__uri`), shared with the relay. */
  subscriptions: Set<string>
}

type Extra = {
  signal: AbortSignal
  sendNotification: (notification: ServerNotification) => Promise<void>
}
type Meta = { _meta?: { progressToken?: string | number } } | undefined

/**
 * Installs the gateway's handlers for resources, prompts, completions and
 * logging, for each capability `upstreamCapabilities` advertised. Names and
 * URIs are `server__name` both ways; what is not plain (mcp-plain-names.ts)
 * is left out of lists and refused by name. A resource read and a prompt
 * are governed (runGoverned); a completion or a subscription naming a
 * person-only path is refused, and a completion's value naming one left
 * out, as for a completion naming a place outside the workspace; the rest
 * changes nothing and passes.
 * The agent's progress token and cancellation go with each forwarded
 * request.
 */
export function installForwarding(options: ForwardingOptions, caps: ServerCapabilities): void {
  const { server, workspace } = options
  const forward = new Forwarder(options)
  if (caps.resources) {
    server.setRequestHandler(ListResourcesRequestSchema, async () => ({
      resources: await forward.listAll('resources', 'resources', (client, cursor) =>
        client.listResources(cursor === undefined ? {} : { cursor }).then((page) => ({
          items: page.resources,
          next: page.nextCursor,
        })),
      ),
    }))
    server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
      resourceTemplates: await forward.listAll(
        'resources',
        'resource templates',
        (client, cursor) =>
          client.listResourceTemplates(cursor === undefined ? {} : { cursor }).then((page) => ({
            items: page.resourceTemplates,
            next: page.nextCursor,
          })),
      ),
    }))
    server.setRequestHandler(ReadResourceRequestSchema, (request, extra) =>
      forward.to('uri', request.params.uri, (connection, uri) =>
        runGoverned({
          consent: options.consent,
          server: connection.server,
          method: 'resources/read',
          args: { uri },
          workspace: options.workspace,
          signal: extra.signal,
          // The read was judged (on a gated server, shown) by its URI: a
          // part of the answer naming another that is person-only or not
          // plain fails it, on any server (gateway-content.ts).
          run: async () => {
            const read = await (
              await connection.downstream()
            ).readResource({ uri }, forward.requestOptions(request.params, extra))
            const source = { server: connection.server, workspace }
            return { ...read, contents: namespacedContents(source, uri, read.contents) }
          },
          outcome: (read) => `read ${uri} (${read.contents.length} part(s))`,
        }),
      ),
    )
    if (caps.resources.subscribe === true) {
      // A subscription reads nothing, so nobody is asked; but its updates
      // say when the resource changes, and for a person-only path (a
      // repository's `.git/HEAD`, a key) or a file outside the workspace
      // that is already more than any door passes unasked, so one naming
      // such a place is refused, as a completion is. Unsubscribing is never refused. The relay passes on
      // updates only for what the agent subscribed to (`subscriptions`),
      // kept before the server is asked (its first update may come before
      // its answer) and let go if it refuses.
      server.setRequestHandler(SubscribeRequestSchema, (request, extra) =>
        forward.to('uri', request.params.uri, async (connection, uri) => {
          refuseSubscription(connection.server, uri, options.workspace)
          const client = await forward.subscriber(connection)
          const key = namespacedToolName(connection.server.id, uri)
          options.subscriptions.add(key)
          try {
            return await client.subscribeResource(
              { uri },
              forward.requestOptions(request.params, extra),
            )
          } catch (error) {
            options.subscriptions.delete(key)
            throw error
          }
        }),
      )
      // Let go before the server is asked: whatever it answers, the agent
      // has said it wants no more updates.
      server.setRequestHandler(UnsubscribeRequestSchema, (request, extra) =>
        forward.to('uri', request.params.uri, async (connection, uri) => {
          options.subscriptions.delete(namespacedToolName(connection.server.id, uri))
          return (await forward.subscriber(connection)).unsubscribeResource(
            { uri },
            forward.requestOptions(request.params, extra),
          )
        }),
      )
    }
  }
  if (caps.prompts) {
    server.setRequestHandler(ListPromptsRequestSchema, async () => ({
      prompts: await forward.listAll('prompts', 'prompts', (client, cursor) =>
        client.listPrompts(cursor === undefined ? {} : { cursor }).then((page) => ({
          items: page.prompts,
          next: page.nextCursor,
        })),
      ),
    }))
    // A prompt is a read: it may embed a resource's content, and a server
    // may read any path its arguments name. So it runs as a resource read
    // does (runGoverned): unasked on a read-only server unless it names a
    // person-only path, asked on a gated one.
    server.setRequestHandler(GetPromptRequestSchema, (request, extra) =>
      forward.to('prompt', request.params.name, (connection, name) =>
        runGoverned({
          consent: options.consent,
          server: connection.server,
          method: 'prompts/get',
          args: { name, arguments: request.params.arguments ?? {} },
          workspace: options.workspace,
          signal: extra.signal,
          run: async () => {
            // Only what the person was shown goes on: the name and the
            // arguments. The agent's `_meta` (anything but the progress
            // token, which requestOptions carries) was not shown, so a
            // server that acted on it would act on something nobody saw.
            const prompt = await (
              await connection.downstream()
            ).getPrompt(
              {
                name,
                ...(request.params.arguments ? { arguments: request.params.arguments } : {}),
              },
              forward.requestOptions(request.params, extra),
            )
            // A resource the prompt embeds was not asked for: one naming a
            // person-only path or not plain fails it (gateway-content.ts).
            const source = { server: connection.server, method: 'prompts/get', workspace }
            return { ...prompt, messages: namespacedMessages(source, prompt.messages) }
          },
          outcome: (prompt) => `got prompt ${name} (${prompt.messages.length} message(s))`,
        }),
      ),
    )
  }
  if (caps.completions) {
    server.setRequestHandler(CompleteRequestSchema, (request, extra) => {
      const { ref } = request.params
      const [kind, name] =
        ref.type === 'ref/prompt' ? (['prompt', ref.name] as const) : (['uri', ref.uri] as const)
      return forward.to(kind, name, async (connection, inner) => {
        // A completion changes nothing and is asked for at each keystroke,
        // so nobody is asked; but one that names a person-only path (a
        // server completing `.git/` lists what is in it), or a place
        // outside the workspace that a read would ask for, is refused.
        // What it completes: the argument so far, the other arguments, and
        // for a resource template its URI (`file:///w/.git/{name}`), as
        // written and filled in (gateway-completions.ts).
        const { argument, context } = request.params
        const template = ref.type === 'ref/resource' ? { uri: inner } : {}
        const asked = { argument, context, template }
        refuseCompletion(connection.server, asked, options.workspace)
        // What was checked goes on, nothing else (the agent's `_meta`
        // but its progress token is left behind, as for a prompt).
        const answer = await (
          await connection.downstream()
        ).complete(
          {
            argument,
            ...(context ? { context } : {}),
            ref: ref.type === 'ref/prompt' ? { ...ref, name: inner } : { ...ref, uri: inner },
          },
          forward.requestOptions(request.params, extra),
        )
        // And what comes back is judged as what was asked: a value naming
        // a person-only path or a place outside the workspace is left out
        // (gateway-completions.ts).
        return completionShown(connection.server, asked, answer, workspace, options.log)
      })
    })
  }
  if (caps.logging) {
    server.setRequestHandler(SetLevelRequestSchema, async (request, extra) => {
      for (const connection of options.pool.connections()) {
        try {
          const client = await connection.downstream()
          if (client.getServerCapabilities()?.logging === undefined) continue
          await client.setLoggingLevel(request.params.level, { signal: extra.signal })
        } catch (error) {
          options.log(
            `assent-gateway: ${connection.server.id} kept its log level: ${String(error)}`,
          )
        }
      }
      return {}
    })
  }
}

type Listed = Resource | ResourceTemplate | Prompt

class Forwarder {
  private readonly options: ForwardingOptions

  constructor(options: ForwardingOptions) {
    this.options = options
  }

  /** Every page of one list (`what`) from every server that offers
   *  `capability`, each name namespaced; a server that is down, or whose
   *  list is refused (mcp-pages.ts), is left out (and logged) rather than
   *  failing the whole list. */
  async listAll<T extends Listed>(
    capability: 'resources' | 'prompts',
    what: string,
    page: (client: Client, cursor: string | undefined) => Promise<ListPage<T>>,
  ): Promise<T[]> {
    const out: T[] = []
    for (const connection of this.options.pool.connections()) {
      const id = connection.server.id
      try {
        const client = await connection.downstream()
        if (client.getServerCapabilities()?.[capability] === undefined) continue
        const listed = await everyPage(id, what, (cursor) => page(client, cursor))
        for (const item of listed) {
          const named = namespacedItem(id, item)
          if (named === undefined || this.personOnlyListed(connection, item)) continue
          out.push(named)
        }
      } catch (error) {
        this.options.log(`assent-gateway: ${id} did not list ${what}: ${String(error)}`)
      }
    }
    return out
  }

  /** Whether a listed resource or template names a person-only path
   *  (`file:///w/.git/config`, a key): such an entry is left out, and
   *  logged, because a list is passed unasked and would tell the agent
   *  what is in a folder only the person may look into, as a completion
   *  of `.git/` would (reading it is still asked, by name). */
  personOnlyListed(connection: McpConnection, item: Listed): boolean {
    const uri = 'uriTemplate' in item ? item.uriTemplate : 'uri' in item ? item.uri : undefined
    if (uri === undefined) return false
    const named = personOnlyNamed(
      connection.server,
      'resources/list',
      { uri },
      this.options.workspace,
    )
    if (named === null) return false
    this.options.log(
      `assent-gateway: ${connection.server.id} listed ${named.path}, left out: ${named.reason}`,
    )
    return true
  }

  /** Runs `run` on the server a namespaced name belongs to, holding its
   *  connection to the end; a name of no server, or one that is not
   *  plain, is refused as `not_allowed`. */
  async to<T>(
    kind: 'prompt' | 'uri',
    name: string,
    run: (connection: McpConnection, inner: string) => Promise<T>,
  ): Promise<T> {
    const parts = splitNamespacedToolName(name)
    const lease = parts ? this.options.pool.lease(parts.serverId) : undefined
    try {
      if (!parts || !lease || !isPlainMcpName(kind, parts.toolName)) {
        const what = kind === 'uri' ? 'resource' : 'prompt'
        throw new McpRefusal('not_allowed', `no ${what} named ${name} behind assent-gateway`)
      }
      return await run(lease.connection, parts.toolName)
    } catch (error) {
      if (error instanceof McpRefusal) throw new McpError(error.code, error.message, error.data)
      throw error
    } finally {
      lease?.release()
    }
  }

  /** The server's client, if it offers subscriptions; refused otherwise. */
  async subscriber(connection: McpConnection): Promise<Client> {
    const client = await connection.downstream()
    if (client.getServerCapabilities()?.resources?.subscribe !== true) {
      throw new McpRefusal(
        'not_allowed',
        `${connection.server.id} does not offer resource subscriptions`,
      )
    }
    return client
  }

  /** The agent's cancellation and progress token, carried to the server. */
  requestOptions(params: Meta, extra: Extra): RequestOptions {
    const token = params?._meta?.progressToken
    return {
      signal: extra.signal,
      timeout: this.options.requestTimeoutMs,
      ...(token === undefined
        ? {}
        : {
            resetTimeoutOnProgress: true,
            onprogress: (progress) => {
              void extra
                .sendNotification({
                  method: 'notifications/progress',
                  params: { ...progress, progressToken: token },
                })
                .catch(() => undefined)
            },
          }),
    }
  }
}

/** A listed item under its namespaced name, or undefined when its name is
 *  not plain (it is then left out). */
function namespacedItem<T extends Listed>(serverId: string, item: T): T | undefined {
  if ('uriTemplate' in item) {
    if (!isPlainMcpName('uri', item.uriTemplate)) return undefined
    return { ...item, uriTemplate: namespacedToolName(serverId, item.uriTemplate) }
  }
  if ('uri' in item) {
    if (!isPlainMcpName('uri', item.uri)) return undefined
    return { ...item, uri: namespacedToolName(serverId, item.uri) }
  }
  if (!isPlainMcpName('prompt', item.name)) return undefined
  return { ...item, name: namespacedToolName(serverId, item.name) }
}
