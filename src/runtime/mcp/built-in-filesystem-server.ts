import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js'
import { BUILT_IN_FILESYSTEM_SERVER_ID, type McpServerConfig } from '../../contracts/mcp-config.ts'
import { checkToolAccess } from '../policy/sandbox.ts'
import { writeFileTool } from '../tools/change-tools.ts'
import { listDirTool, readFileTool } from '../tools/read-tools.ts'
import type { ToolDefinition } from '../tools/tool-types.ts'

/** The built-in server's reads: inside the workspace, they run unasked. */
export const BUILT_IN_FILESYSTEM_READ_TOOLS: readonly string[] = Object.freeze([
  'read_file',
  'list_dir',
])

const TOOLS: Record<string, ToolDefinition<unknown>> = {
  read_file: readFileTool as ToolDefinition<unknown>,
  list_dir: listDirTool as ToolDefinition<unknown>,
  write_file: writeFileTool as ToolDefinition<unknown>,
}

const pathSchema = {
  type: 'string',
  description: 'relative to the workspace, or absolute inside it',
}
const DESCRIPTIONS = [
  {
    name: 'read_file',
    description: 'Reads a text file inside the workspace.',
    inputSchema: { type: 'object', properties: { path: pathSchema }, required: ['path'] },
  },
  {
    name: 'list_dir',
    description: 'Lists a folder inside the workspace.',
    inputSchema: { type: 'object', properties: { path: pathSchema }, required: ['path'] },
  },
  {
    name: 'write_file',
    description: 'Writes a text file inside the workspace, replacing what was there.',
    inputSchema: {
      type: 'object',
      properties: { path: pathSchema, content: { type: 'string' } },
      required: ['path', 'content'],
    },
  },
]

/**
 * The configuration of Assent's own filesystem server for one workspace.
 * It is not read from mcp.json: Assent vouches for it, so its read tools
 * run without consent, and its write tool is gated like any other.
 */
export function builtInFilesystemConfig(): McpServerConfig & {
  approvalFreeTools: readonly string[]
} {
  return {
    id: BUILT_IN_FILESYSTEM_SERVER_ID,
    name: 'Workspace files (built in)',
    transport: { type: 'stdio', command: '(in process)', args: [], env: {} },
    allowed_tools: DESCRIPTIONS.map((tool) => tool.name),
    requires_approval: true,
    manifest: { readonly: false },
    approvalFreeTools: BUILT_IN_FILESYSTEM_READ_TOOLS,
  }
}

/**
 * Serves the built-in filesystem tools for one workspace on `transport`
 * (an in-memory pair: it runs inside the runtime). Every path goes through
 * the same containment check as Assent's own tools, confined to the
 * workspace for reads as well as writes, and the tool acts only on the real
 * path that check returned.
 */
export async function serveBuiltInFilesystem(
  workspace: string,
  transport: Transport,
): Promise<Server> {
  const server = new Server(
    { name: 'assent-filesystem', version: '0.1.0' },
    { capabilities: { tools: {} } },
  )
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: DESCRIPTIONS }))
  server.setRequestHandler(CallToolRequestSchema, async (request) =>
    runInWorkspace(workspace, request.params.name, request.params.arguments ?? {}),
  )
  await server.connect(transport)
  return server
}

async function runInWorkspace(
  workspace: string,
  name: string,
  rawArgs: Record<string, unknown>,
): Promise<CallToolResult> {
  const failure = (text: string): CallToolResult => ({
    content: [{ type: 'text', text }],
    isError: true,
  })
  const tool = Object.hasOwn(TOOLS, name) ? TOOLS[name] : undefined
  if (!tool) return failure(`unknown tool ${name}`)
  const parsed = tool.argsSchema.safeParse(rawArgs)
  if (!parsed.success) return failure(`invalid arguments: ${parsed.error.issues[0]?.message}`)
  // Checked as a write under workspace-write whatever the tool does: that is
  // the check that confines a path to the workspace, reads included.
  const access = await checkToolAccess({
    sandboxMode: 'workspace-write',
    effect: 'write',
    paths: tool.targetPaths(parsed.data),
    workspace,
    agent: { readOnly: false },
  })
  if (!access.allowed) return failure(access.reason)
  const result = await tool.run(parsed.data, {
    workspace,
    resolvedPaths: access.paths,
    timeoutMs: 30_000,
  })
  return { content: [{ type: 'text', text: result.output }], isError: !result.ok }
}
