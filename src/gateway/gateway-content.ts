import { personOnlyNamed } from '../runtime/mcp/governed-mcp-action.ts'
import type { McpServer } from '../runtime/mcp/mcp-connection.ts'
import { isPlainMcpName } from '../runtime/mcp/mcp-plain-names.ts'
import { McpRefusal } from '../runtime/mcp/mcp-refusal.ts'
import { namespacedToolName } from '../runtime/mcp/mcp-tool-definition.ts'

/** What a server's content answers, for the checks below. */
export interface ContentSource {
  server: McpServer
  /** What the agent asked for: `resources/read`, `prompts/get`, or the
   *  tool it called. */
  method: string
  /** The folder the gateway serves, for the person-only rule. */
  workspace: string
  /** The URI a read asked for, which the read was judged by (and on a
   *  gated server shown to the person under). */
  asked?: string
}

/**
 * Why a resource URI a server names may not reach the agent, or null. The
 * agent asked for none of what a server names on its own (an update, a
 * part of a read beside the one asked for, a resource in a prompt or a
 * tool's result), so nothing judged it:
 * - a URI that is not plain (mcp-plain-names.ts) may pass for another;
 *   lists leave it out and reading it by name is refused, so it does not
 *   reach the agent this way either;
 * - a person-only path (a repository's `.git`, a key, `.env`) is what no
 *   door passes unasked: a read-only server's read, prompt or tool runs
 *   unasked, and a gated one was allowed for what the person was shown (a
 *   URI, a prompt's name and arguments, a call's arguments), not for a
 *   file the server adds beside it. The URI asked for (`asked`) was judged
 *   already, and passes.
 */
export function withheldUri(source: ContentSource, uri: string): string | null {
  if (!isPlainMcpName('uri', uri)) {
    return `${shownUri(uri)} is not a plain resource name (printable ASCII without spaces)`
  }
  if (uri === source.asked) return null
  const named = personOnlyNamed(source.server, source.method, { uri }, source.workspace)
  return named === null
    ? null
    : `${uri} names ${named.path}, which nobody asked for: ${named.reason}`
}

/** A URI a server sent, as a log line or a refusal shows it: quoted, cut
 *  short, and every letter outside printable ASCII spelled as its code
 *  point, so a confusable name cannot read as the one it imitates. */
export function shownUri(uri: string): string {
  return JSON.stringify(uri.slice(0, 200)).replace(
    /[^\x20-\x7e]/gu,
    (letter) => `\\u{${(letter.codePointAt(0) ?? 0).toString(16)}}`,
  )
}

/**
 * Refuses a server's whole result when it names a URI `withheldUri` holds
 * back. The result fails rather than losing the entry: it is gone either
 * way, and a read, a prompt or a tool's result with a part quietly missing
 * would read as whole to the agent, while a refusal says what happened
 * and lets the client show it. A server that adds such a part unasked is
 * not one whose other parts the gateway vouches for either.
 */
function refuseWithheld(source: ContentSource, uri: string): void {
  const why = withheldUri(source, uri)
  if (why === null) return
  const name = namespacedToolName(source.server.id, source.method)
  throw new McpRefusal('not_allowed', `assent-gateway does not pass what ${name} returned: ${why}`)
}

/**
 * A server's content as the agent gets it through the gateway: every
 * resource URI in it (a `resource_link`, an embedded `resource`) is checked
 * (`refuseWithheld`, which fails the whole result) and then carries the
 * server's id the way the gateway's resource list does, so the agent can
 * read it back through the gateway, and the read goes to the server that
 * named it.
 */
export function namespacedContent<T>(source: ContentSource, items: readonly T[]): T[] {
  return items.map((item) => namespacedItem(source, item))
}

function namespacedItem<T>(source: ContentSource, item: T): T {
  if (typeof item !== 'object' || item === null) return item
  const record = item as Record<string, unknown>
  const id = source.server.id
  if (record.type === 'resource_link' && typeof record.uri === 'string') {
    refuseWithheld(source, record.uri)
    return { ...record, uri: namespacedToolName(id, record.uri) } as T
  }
  const resource = record.resource as Record<string, unknown> | undefined
  if (record.type === 'resource' && typeof resource?.uri === 'string') {
    refuseWithheld(source, resource.uri)
    return { ...record, resource: { ...resource, uri: namespacedToolName(id, resource.uri) } } as T
  }
  return item
}

/** The contents of a read of `asked`, each URI checked as above (a part
 *  beside the one asked for is something nobody asked for) and
 *  namespaced. */
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

/** A prompt's messages, each one's content checked and namespaced as
 *  above. */
export function namespacedMessages<T extends { content: unknown }>(
  source: ContentSource,
  messages: readonly T[],
): T[] {
  return messages.map((message) => ({
    ...message,
    content: namespacedItem(source, message.content),
  }))
}
