import {
  argumentsText,
  MAX_MCP_ARGUMENTS_CHARS,
  MAX_MCP_DESCRIPTION_CHARS,
  MAX_MCP_PREVIEW_CHARS,
  MAX_SERVER_TOOLS,
} from '../../contracts/approval.ts'
import type { McpConsentRequest } from './gated-mcp-call.ts'
import type { McpConnection } from './mcp-connection.ts'
import { McpRefusal } from './mcp-refusal.ts'
import {
  inputSchemaHash,
  toolDefinitionHash,
  toolListHash,
  type McpToolDefinition,
} from './mcp-tool-definition.ts'
import { serverFolderOf } from './mcp-workspace.ts'
import { boundToServerStart } from './server-start-binding.ts'

// What the person is asked about an MCP action, built the one way every
// MCP door builds it, and refused rather than shown in part.

/** What the person is asked about one call of `tool`, one of the
 *  server's allowed `tools`: the one request every MCP door sends. */
export function toolConsentRequest(
  server: McpConnection['server'],
  tool: McpToolDefinition,
  tools: readonly McpToolDefinition[],
  args: Record<string, unknown>,
  preview: string | null,
): McpConsentRequest {
  if (tools.length > MAX_SERVER_TOOLS) {
    // More than a window can show whole: not what the person could read.
    throw new McpRefusal('not_allowed', `${server.id} offers more than ${MAX_SERVER_TOOLS} tools`)
  }
  return shownWhole({
    serverId: server.id,
    serverName: server.name,
    toolName: tool.name,
    toolDescription: tool.description ?? '',
    inputSchemaHash: inputSchemaHash(tool),
    // Both grants an "always allow" may leave (this tool, every tool of
    // the server) are bound to the server as it is started too.
    definitionHash: boundToServerStart(server, toolDefinitionHash(tool)),
    arguments: args,
    preview,
    serverTools: {
      names: tools.map((each) => each.name).sort(),
      hash: boundToServerStart(server, toolListHash(tools)),
    },
    serverFolder: serverFolderOf(server),
  })
}

/**
 * `request`, if what the person would be asked about fits what they are
 * shown whole: the tool's description, its preview and its arguments as
 * the protected window shows them. Longer, the call is refused
 * (`too_long_to_show`) rather than asked about in part: a person cannot
 * allow what they were not shown. The one rule for every MCP door: a
 * room's calls, the gateway's calls, and the resource reads and sampling
 * requests the gateway governs (`governedRequest`).
 */
export function shownWhole(request: McpConsentRequest): McpConsentRequest {
  const { serverId, toolName } = request
  const tooLong = (what: string, length: number, limit: number) =>
    new McpRefusal(
      'not_allowed',
      `${what} is ${length} characters, more than the ${limit} a person is shown; ${toolName} did not run`,
      'too_long_to_show',
    )
  const description = request.toolDescription.length
  if (description > MAX_MCP_DESCRIPTION_CHARS) {
    throw tooLong(
      `${serverId}'s description of ${toolName}`,
      description,
      MAX_MCP_DESCRIPTION_CHARS,
    )
  }
  const preview = request.preview?.length ?? 0
  if (preview > MAX_MCP_PREVIEW_CHARS) {
    throw tooLong(`the preview of ${toolName}`, preview, MAX_MCP_PREVIEW_CHARS)
  }
  const shown = argumentsText(request.arguments).length
  if (shown > MAX_MCP_ARGUMENTS_CHARS) {
    throw tooLong(`the text of ${toolName}'s arguments`, shown, MAX_MCP_ARGUMENTS_CHARS)
  }
  return request
}
