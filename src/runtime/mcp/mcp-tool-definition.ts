import { canonicalJson } from '../../contracts/canonical-json.ts'
import { sha256Hex } from '../domain/sha256.ts'

/** A tool as a server describes it. Everything in it is the server's claim:
 *  annotations such as `readOnlyHint` are hints, never trust. */
export interface McpToolDefinition {
  name: string
  title?: string
  description?: string
  inputSchema: Record<string, unknown>
  annotations?: Record<string, unknown>
}

/** The suffix of a tool's side-effect-free preview companion. */
export const PREVIEW_SUFFIX = '.preview'

/** The separator between server id and tool name in the gateway's names.
 *  Server ids never contain `_`, so the first `__` always splits correctly. */
export const NAMESPACE_SEPARATOR = '__'

export function namespacedToolName(serverId: string, toolName: string): string {
  return `${serverId}${NAMESPACE_SEPARATOR}${toolName}`
}

export function splitNamespacedToolName(
  name: string,
): { serverId: string; toolName: string } | undefined {
  const at = name.indexOf(NAMESPACE_SEPARATOR)
  if (at <= 0) return undefined
  const toolName = name.slice(at + NAMESPACE_SEPARATOR.length)
  return toolName === '' ? undefined : { serverId: name.slice(0, at), toolName }
}

export function inputSchemaHash(tool: McpToolDefinition): string {
  return sha256Hex(canonicalJson(toJson(tool.inputSchema)))
}

/**
 * What an "always allow" grant is bound to: the tool's name, description,
 * input schema and annotations. If a server changes any of them, the hash
 * changes and the grant no longer answers for the tool: the person allowed
 * the tool they were shown, not whatever the server later calls by that name.
 */
export function toolDefinitionHash(tool: McpToolDefinition): string {
  return sha256Hex(
    canonicalJson(
      toJson({
        name: tool.name,
        title: tool.title ?? null,
        description: tool.description ?? null,
        inputSchema: tool.inputSchema,
        annotations: tool.annotations ?? null,
      }),
    ),
  )
}

/**
 * What a server-wide "always allow" is bound to: every allowed tool the
 * server offers, each by its whole definition (`toolDefinitionHash`), in
 * name order. A server that adds a tool, drops one or changes any of them
 * has another list hash, and the grant no longer answers for any of its
 * tools: the person allowed the server as it was shown, not what it
 * becomes.
 */
export function toolListHash(tools: readonly McpToolDefinition[]): string {
  const entries = tools
    .map((tool) => ({ name: tool.name, definitionHash: toolDefinitionHash(tool) }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  return sha256Hex(canonicalJson(entries))
}

/** Drops `undefined` (which JSON cannot hold) the way the wire would, so a
 *  definition hashes the same on both sides of a connection. */
function toJson(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value ?? null)) as unknown
}
