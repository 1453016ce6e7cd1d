import { namespacedToolName } from '../runtime/mcp/mcp-tool-definition.ts'

/**
 * A server's content as the agent gets it through the gateway: every
 * resource URI in it (a `resource_link`, an embedded `resource`, a read's
 * contents) carries the server's id the way the gateway's resource list
 * does, so the agent can read it back through the gateway, and the read
 * goes to the server that named it.
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

/** The contents of a resource read, each URI namespaced. */
export function namespacedContents<T extends { uri: string }>(
  serverId: string,
  contents: readonly T[],
): T[] {
  return contents.map((content) => ({
    ...content,
    uri: namespacedToolName(serverId, content.uri),
  }))
}
