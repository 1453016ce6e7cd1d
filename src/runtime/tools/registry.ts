import { deleteFileTool, writeFileTool } from './change-tools.ts'
import { listDirTool, readFileTool } from './read-tools.ts'
import { runCommandTool } from './run-command.ts'
import type { ToolDefinition } from './tool-types.ts'

/** Every tool the runtime can run, by name. Frozen: the set of things an
 *  agent can do is fixed at build time, never extended by a request. */
export const TOOLS = Object.freeze({
  read_file: readFileTool,
  list_dir: listDirTool,
  write_file: writeFileTool,
  delete_file: deleteFileTool,
  run_command: runCommandTool,
})

export type ToolName = keyof typeof TOOLS

export const TOOL_NAMES: readonly ToolName[] = Object.freeze(Object.keys(TOOLS) as ToolName[])

/** Looks a tool up by name. Own properties only, so `constructor` or
 *  `__proto__` from a model's output finds nothing. */
export function getTool(name: string): ToolDefinition<unknown> | undefined {
  if (!Object.hasOwn(TOOLS, name)) return undefined
  return TOOLS[name as ToolName] as ToolDefinition<unknown>
}

export interface PreparedToolCall {
  tool: ToolDefinition<unknown>
  /** The arguments as the tool's schema parsed them. */
  args: unknown
  destructive: boolean
  targetPaths: string[]
  summary: string
}

/** Parses a requested call once, at the edge: an unknown tool or arguments
 *  that fail the tool's strict schema are refused with a message naming
 *  the problem, and nothing else sees the raw input. */
export function prepareToolCall(
  name: string,
  rawArgs: unknown,
): { ok: true; call: PreparedToolCall } | { ok: false; reason: string } {
  const tool = getTool(name)
  if (tool === undefined) return { ok: false, reason: `unknown tool ${JSON.stringify(name)}` }
  const parsed = tool.argsSchema.safeParse(rawArgs)
  if (!parsed.success) {
    const issues = parsed.error.issues
      .map(
        (issue) =>
          `${issue.path.length > 0 ? issue.path.join('.') : '(arguments)'}: ${issue.message}`,
      )
      .join('; ')
    return { ok: false, reason: `invalid arguments for ${name}: ${issues}` }
  }
  const args = parsed.data
  return {
    ok: true,
    call: {
      tool,
      args,
      destructive: tool.destructive(args),
      targetPaths: tool.targetPaths(args),
      summary: tool.summarize(args),
    },
  }
}
