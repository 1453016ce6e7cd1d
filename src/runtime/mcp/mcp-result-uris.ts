import { personOnlyNamed } from './mcp-call-judgment.ts'
import type { McpServer } from './mcp-connection.ts'
import { isPlainMcpName } from './mcp-plain-names.ts'
import { McpRefusal } from './mcp-refusal.ts'
import { namespacedToolName } from './mcp-tool-definition.ts'

// The resources a server's answer names on its own, at every door an MCP
// answer passes (the gateway, and a call in a room: runGatedMcpCall).

/** What a server's content answers, for the checks below. */
export interface ContentSource {
  server: McpServer
  /** What the agent asked for: `resources/read`, `prompts/get`, or the
   *  tool it called. */
  method: string
  /** The workspace the call is made for, for the person-only rule. */
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
 * not one whose other parts Assent vouches for either.
 */
export function refuseWithheld(source: ContentSource, uri: string): void {
  const why = withheldUri(source, uri)
  if (why === null) return
  const name = namespacedToolName(source.server.id, source.method)
  throw new McpRefusal('not_allowed', `Assent does not pass on what ${name} returned: ${why}`)
}

/**
 * Refuses a tool's result (`content`) when a resource it embeds or links
 * is one `withheldUri` holds back: whether the call ran unasked (a
 * read-only manifest) or the person allowed it for its arguments, nobody
 * asked for what the result adds beside them.
 */
export function refuseWithheldContent(source: ContentSource, content: readonly unknown[]): void {
  for (const item of content) {
    if (typeof item !== 'object' || item === null) continue
    const record = item as Record<string, unknown>
    const resource = record.resource as Record<string, unknown> | undefined
    if (record.type === 'resource_link' && typeof record.uri === 'string') {
      refuseWithheld(source, record.uri)
    } else if (record.type === 'resource' && typeof resource?.uri === 'string') {
      refuseWithheld(source, resource.uri)
    }
  }
}
