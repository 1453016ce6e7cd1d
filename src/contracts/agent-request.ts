import { z } from 'zod'
import { ExternalAgentIdSchema, ExternalAgentProtocolSchema } from './agents-config.ts'
import { FileChangeSchema } from './file-change.ts'

/**
 * What an external agent (agents.json) asks to do, as an approval's
 * arguments: the runtime builds them from the agent's request when it opens
 * the approval, so they are under the action digest a consent token is bound
 * to, and main reads them with these schemas to draw the protected window.
 * Each kind has a tool name of its own, which no built-in or MCP tool has.
 */

/** A command line the agent will run. */
export const AGENT_COMMAND_TOOL = 'agent_command'
/** Files the agent will change. */
export const AGENT_FILE_CHANGE_TOOL = 'agent_file_change'
/** Any other tool call of an ACP agent (a fetch, an MCP tool, ...). */
export const AGENT_TOOL_CALL_TOOL = 'agent_tool'

export const AGENT_REQUEST_TOOLS: readonly string[] = Object.freeze([
  AGENT_COMMAND_TOOL,
  AGENT_FILE_CHANGE_TOOL,
  AGENT_TOOL_CALL_TOOL,
])

/** Which agent asks: its agents.json id and name, and the protocol it
 *  speaks. */
export const AgentIdentitySchema = z.strictObject({
  id: ExternalAgentIdSchema,
  name: z.string().min(1).max(80),
  protocol: ExternalAgentProtocolSchema,
})
export type AgentIdentity = z.infer<typeof AgentIdentitySchema>

export const AgentCommandArgumentsSchema = z.strictObject({
  agent: AgentIdentitySchema,
  /** The command line exactly as the agent will run it. */
  commandLine: z.string().min(1),
  /** The same as an argument vector, when the agent gave one. */
  argv: z.array(z.string()).min(1).nullable(),
  /** Where it runs: absolute, as the agent wrote it. */
  cwd: z.string().min(1),
  /** The real folder `cwd` leads to, when a link on the way makes it
   *  another: where the command runs, so the window shows it and an allow
   *  is bound to it. Absent when `cwd` is the real folder. */
  realCwd: z.string().min(1).optional(),
})
export type AgentCommandArguments = z.infer<typeof AgentCommandArgumentsSchema>

const Sha256Schema = z.string().regex(/^[0-9a-f]{64}$/)

/** One file the agent will change. */
export const AgentFileChangeSchema = z.strictObject({
  /** Absolute, as the agent will write it. */
  path: z.string().min(1),
  change: z.enum(['add', 'update', 'delete']),
  /** Where an update moves the file to, if it does. */
  movePath: z.string().min(1).nullable(),
  /** The real file `path` leads to, and the real place `movePath` does,
   *  when a link makes either another: the agent follows the link, so
   *  this is where it acts, what the window shows beside the name, and
   *  what an allow is bound to. Absent when the path is the real one. */
  realPath: z.string().min(1).optional(),
  realMovePath: z.string().min(1).optional(),
  /** The change as the window shows it: a new file's content, the changed
   *  lines of an update, or what a delete removes. Null when the runtime
   *  could not read the agent's diff; `agentDiff` is then shown as sent. */
  preview: FileChangeSchema.nullable(),
  /** The agent's own diff text, when there is no preview or the preview was
   *  cut short. */
  agentDiff: z.string().nullable(),
  /** SHA-256 of what the agent sent for this file (its diff, or its old and
   *  new text): the preview is derived from it, and the digest covers both. */
  sourceSha256: Sha256Schema,
})
export type AgentFileChange = z.infer<typeof AgentFileChangeSchema>

/** The most files one approval changes. */
export const MAX_AGENT_FILE_CHANGES = 256

export const AgentFileChangesArgumentsSchema = z.strictObject({
  agent: AgentIdentitySchema,
  changes: z.array(AgentFileChangeSchema).min(1).max(MAX_AGENT_FILE_CHANGES),
})
export type AgentFileChangesArguments = z.infer<typeof AgentFileChangesArgumentsSchema>

export const AgentToolCallArgumentsSchema = z.strictObject({
  agent: AgentIdentitySchema,
  /** The agent's own kind for the call (ACP: `fetch`, `other`, ...). */
  toolKind: z.string().max(64),
  /** The agent's own title for it. */
  title: z.string(),
  /** Its raw input as the agent sent it. */
  input: z.unknown(),
  /** The files the agent says the call touches (ACP's `locations`). */
  locations: z.array(z.string()).optional(),
  /** Where a link makes a place the call names (a location, a folder its
   *  raw input runs in) lead, when elsewhere: shown and bound with it. */
  leadsTo: z
    .array(z.strictObject({ path: z.string(), realPath: z.string() }))
    .max(256)
    .optional(),
})
export type AgentToolCallArguments = z.infer<typeof AgentToolCallArgumentsSchema>

/** An agent's request as main reads it back from an approval's tool name
 *  and arguments, or null when they are not one (any other tool). */
export type AgentRequestArguments =
  | { tool: typeof AGENT_COMMAND_TOOL; args: AgentCommandArguments }
  | { tool: typeof AGENT_FILE_CHANGE_TOOL; args: AgentFileChangesArguments }
  | { tool: typeof AGENT_TOOL_CALL_TOOL; args: AgentToolCallArguments }

/** Reads an approval's arguments as an agent's request, strictly: arguments
 *  of another shape are not one, and are never guessed at. */
export function readAgentRequest(
  toolName: string,
  args: Record<string, unknown>,
): AgentRequestArguments | null {
  switch (toolName) {
    case AGENT_COMMAND_TOOL: {
      const parsed = AgentCommandArgumentsSchema.safeParse(args)
      return parsed.success ? { tool: AGENT_COMMAND_TOOL, args: parsed.data } : null
    }
    case AGENT_FILE_CHANGE_TOOL: {
      const parsed = AgentFileChangesArgumentsSchema.safeParse(args)
      return parsed.success ? { tool: AGENT_FILE_CHANGE_TOOL, args: parsed.data } : null
    }
    case AGENT_TOOL_CALL_TOOL: {
      const parsed = AgentToolCallArgumentsSchema.safeParse(args)
      return parsed.success ? { tool: AGENT_TOOL_CALL_TOOL, args: parsed.data } : null
    }
    default:
      return null
  }
}
