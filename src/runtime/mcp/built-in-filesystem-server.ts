import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { canonicalJson } from '../../contracts/canonical-json.ts'
import type { FileTarget } from '../../contracts/file-target.ts'
import { BUILT_IN_FILESYSTEM_SERVER_ID, type McpServerConfig } from '../../contracts/mcp-config.ts'
import { privateReadReason } from '../policy/read-reach.ts'
import { checkToolAccess } from '../policy/sandbox.ts'
import { writeFileTool } from '../tools/change-tools.ts'
import { fileChangeText } from '../tools/file-change-preview.ts'
import { describeTarget } from '../tools/file-target.ts'
import { listDirTool, readFileTool } from '../tools/read-tools.ts'
import type { FileObservation, ToolDefinition } from '../tools/tool-types.ts'

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

/** The write's side-effect-free preview (gated-mcp-call.ts shows it to the
 *  person and fetches it again after an allow: it must not have changed). */
const WRITE_PREVIEW = 'write_file.preview'

/** Previews remembered for the write that follows them; more are dropped
 *  oldest first (a write whose preview was dropped is refused, as is one
 *  whose path resolves elsewhere than its preview's did). */
const MAX_REMEMBERED_PREVIEWS = 64

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
  {
    name: WRITE_PREVIEW,
    description:
      'Says what write_file would do, without doing it: whether it creates or replaces the file, and the numbered diff.',
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
 * path that check returned, through the same safe file operations.
 *
 * Its reads run without consent, so they refuse what Assent's own
 * `read_file` would ask about: a credential, a shell start-up file, a git
 * hook or a file with several names. Its write has a preview: what the
 * person is shown and the runtime checks again after the allow. The target
 * that preview observed (identity and content hash) is remembered and
 * handed to the write that follows, which refuses if the file is another
 * by then; a write that finds no preview of the same arguments on the same
 * resolved paths is refused, never made unbound.
 */
export async function serveBuiltInFilesystem(
  workspace: string,
  transport: Transport,
): Promise<Server> {
  // Loaded with the first MCP call, not at start: the SDK and its schemas
  // are a fifth of what the runtime would otherwise load and keep.
  const [{ Server }, { CallToolRequestSchema, ListToolsRequestSchema }] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/index.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ])
  const server = new Server(
    { name: 'assent-filesystem', version: '0.1.0' },
    { capabilities: { tools: {} } },
  )
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: DESCRIPTIONS }))
  const previews = new Map<string, FileTarget>()
  server.setRequestHandler(CallToolRequestSchema, async (request) =>
    runInWorkspace(workspace, request.params.name, request.params.arguments ?? {}, previews),
  )
  await server.connect(transport)
  return server
}

async function runInWorkspace(
  workspace: string,
  name: string,
  rawArgs: Record<string, unknown>,
  previews: Map<string, FileTarget>,
): Promise<CallToolResult> {
  const previewing = name === WRITE_PREVIEW
  const toolName = previewing ? 'write_file' : name
  const tool = Object.hasOwn(TOOLS, toolName) ? TOOLS[toolName] : undefined
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
  const key = canonicalJson({ args: parsed.data, paths: access.paths })
  if (previewing) return preview(tool, parsed.data, access.paths, key, previews)
  if (tool.effect === 'read') {
    const reach = privateReadReason({
      workspace,
      requested: tool.targetPaths(parsed.data),
      resolved: access.paths,
    })
    if (reach !== null) {
      return failure(
        `${reach}: this server reads without asking, so it does not read that; Assent's read_file asks the person`,
      )
    }
  }
  const bound = previews.get(key)
  previews.delete(key)
  // A write runs only on what its preview showed: the same arguments on
  // the same resolved paths, bound to the file the preview observed. A
  // path that resolves elsewhere now finds no preview and writes nothing.
  if (tool.effect !== 'read' && bound === undefined) {
    return failure(
      `${access.paths.join(', ')} is not what the preview of this write showed (the path resolves elsewhere now, or it was never previewed); it did not run`,
    )
  }
  const result = await tool.run(parsed.data, {
    workspace,
    resolvedPaths: access.paths,
    timeoutMs: 30_000,
    readReach: 'workspace',
    ...(bound === undefined ? {} : { boundTarget: bound }),
  })
  return { content: [{ type: 'text', text: result.output }], isError: !result.ok }
}

/** The write's preview as text: what it does to which file, the numbered
 *  diff, and the identity of the file it replaces (so a file swapped in
 *  since shows as a changed preview, and the call is refused). */
async function preview(
  tool: ToolDefinition<unknown>,
  args: unknown,
  paths: string[],
  key: string,
  previews: Map<string, FileTarget>,
): Promise<CallToolResult> {
  const observed = await tool.observe?.(args, paths)
  if (observed === undefined) return failure('this tool has no preview')
  if ('ok' in observed) return failure(observed.output)
  remember(previews, key, observed.target)
  return { content: [{ type: 'text', text: previewText(observed) }] }
}

function previewText(observed: FileObservation): string {
  const { target, fileChange } = observed
  const what = target.exists ? `Replaces ${target.path}` : `Creates ${target.path}`
  const lines = [what, `The file now: ${describeTarget(target)}`]
  if (fileChange) lines.push(fileChangeText(fileChange))
  return lines.join('\n')
}

function remember(previews: Map<string, FileTarget>, key: string, target: FileTarget): void {
  previews.delete(key)
  previews.set(key, target)
  while (previews.size > MAX_REMEMBERED_PREVIEWS) {
    const oldest = previews.keys().next().value
    if (oldest === undefined) break
    previews.delete(oldest)
  }
}

function failure(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true }
}
