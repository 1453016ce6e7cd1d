import {
  refuseWithheld,
  refuseWithheldContent,
  type ContentSource,
} from '../runtime/mcp/mcp-result-uris.ts'
import { namespacedToolName } from '../runtime/mcp/mcp-tool-definition.ts'

/**
 * A server's content as the agent gets it through the gateway: every
 * resource URI in it (a `resource_link`, an embedded `resource`) carries
 * the server's id the way the gateway's resource list does, so the agent
 * can read it back through the gateway, and the read goes to the server
 * that named it. A tool's result was checked where every door's call runs
 * (`runGatedMcpCall`); a prompt's messages are checked here.
 */
export function namespacedContent<T>(serverId: string, items: readonly T[]): T[] {
  return items.map((item) => namespacedItem(serverId, item))
}

function namespacedItem<T>(serverId: string, item: T): T {
  if (typeof item !== 'object' || item === null) return item
  const record = item as Record<string, unknown>
  if (record.type === 'resource_link' && typeof record.uri === 'string') {
    return { ...record, uri: namespacedToolName(serverId, record.uri) } as T
  }
  const resource = record.resource as Record<string, unknown> | undefined
  if (record.type === 'resource' && typeof resource?.uri === 'string') {
    return {
      ...record,
      resource: { ...resource, uri: namespacedToolName(serverId, resource.uri) },
    } as T
  }
  return item
}

/** The contents of a read of `asked`, each URI checked (a part beside the
 *  one asked for is something nobody asked for: mcp-result-uris.ts, which
 *  fails the whole read) and namespaced. */
export function namespacedContents<T extends { uri: string }>(
  from: Pick<ContentSource, 'server' | 'workspace'>,
  asked: string,
  contents: readonly T[],
): T[] {
  const source = { ...from, method: 'resources/read', asked }
  return contents.map((content) => {
    refuseWithheld(source, content.uri)
    return { ...content, uri: namespacedToolName(source.server.id, content.uri) }
  })
}

/** A prompt's messages, each one's content checked (mcp-result-uris.ts)
 *  and namespaced. */
export function namespacedMessages<T extends { content: unknown }>(
  source: ContentSource,
  messages: readonly T[],
): T[] {
  refuseWithheldContent(
    source,
    messages.map((message) => message.content),
  )
  return messages.map((message) => ({
    ...message,
    content: namespacedItem(source.server.id, message.content),
  }))
}
