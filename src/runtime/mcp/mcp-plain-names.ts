import { McpToolNameSchema } from '../../contracts/mcp-config.ts'

/** How long a resource URI or URI template may be to be passed on. */
export const MAX_MCP_URI_LENGTH = 2_048

/**
 * The one rule for every name the gateway passes on from a server, so that
 * none can pass for another in the agent's list or the protected window:
 * - a tool or prompt name is what `allowed_tools` accepts (letters, digits,
 *   `_ . -`), the check mcp.json's tool names already get;
 * - a resource URI or URI template is printable ASCII without spaces (RFC
 *   3986 has no other characters; a server that sends an IRI spells it
 *   in letters that may look like others).
 * Plain ASCII has no confusable letters (confusable-names.ts never flags
 * it), so neither has anything that passes this rule. A name that fails it
 * is left out of lists and refused by name.
 */
export function isPlainMcpName(kind: 'tool' | 'prompt' | 'uri', value: string): boolean {
  if (kind === 'uri') {
    return value.length <= MAX_MCP_URI_LENGTH && /^[\x21-\x7e]+$/.test(value)
  }
  return McpToolNameSchema.safeParse(value).success
}
