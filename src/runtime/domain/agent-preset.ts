import { z } from 'zod'
import { GATEWAY_AGENT_ID } from '../../contracts/mcp-gateway.ts'

/** What an agent may never exceed, whatever the room's mode says. */
export interface AgentCeilings {
  readOnly: boolean
  /** When present, every path the agent touches (read or write) must resolve
   *  inside one of these. An empty list allows no path at all. */
  allowedRepositoryRoots?: readonly string[]
}

/** An agent as a room sees it: who it is and the ceilings no room mode can
 *  lift. Strict, so a stored preset with an unknown key (say, a hand-added
 *  `fullAccess: true`) is rejected rather than silently carried along. */
export const AgentPresetSchema = z.strictObject({
  id: z.string().min(1).max(64),
  name: z.string().min(1).max(128),
  toolPolicy: z.strictObject({ readOnly: z.boolean() }),
  /** Every path the agent touches must resolve inside one of these. */
  allowedRepositoryRoots: z.array(z.string().min(1)).optional(),
  /** Tool names the agent may call; absent means every tool. */
  allowedTools: z.array(z.string().min(1)).optional(),
})
export type AgentPreset = z.infer<typeof AgentPresetSchema>

export const DEFAULT_AGENT_ID = 'assistant'

export { GATEWAY_AGENT_ID }

/** The tools that only read, for agents that may do nothing else. */
export const READ_ONLY_TOOLS: readonly string[] = Object.freeze(['read_file', 'list_dir'])

/**
 * The agents every install ships with:
 * - `assistant`, the default: every tool, no directory ceiling;
 * - `reader`: read-only, and only the reading tools;
 * - `scoped`: every tool, but only inside `scopedRoots`.
 *
 * `scopedRoots` is copied, so a caller editing its array later cannot move
 * the ceiling of an agent already handed out.
 */
export function builtInAgents(options: { scopedRoots: string[] }): AgentPreset[] {
  return [
    { id: DEFAULT_AGENT_ID, name: 'Assistant', toolPolicy: { readOnly: false } },
    {
      id: 'reader',
      name: 'Reader',
      toolPolicy: { readOnly: true },
      allowedTools: [...READ_ONLY_TOOLS],
    },
    {
      id: 'scoped',
      name: 'Scoped assistant',
      toolPolicy: { readOnly: false },
      allowedRepositoryRoots: [...options.scopedRoots],
    },
    {
      id: GATEWAY_AGENT_ID,
      name: 'MCP gateway',
      toolPolicy: { readOnly: true },
      allowedTools: [],
    },
  ]
}

export type FullAccessBlocker = 'read_only_agent' | 'agent_directory_limits'

/** Why full access cannot be offered for this agent, or null. A ceiling of
 *  any kind blocks it, even an empty root list: full access promises "this
 *  agent may go anywhere", which a ceiling would then silently contradict. */
export function fullAccessBlocker(agent: AgentPreset): FullAccessBlocker | null {
  if (agent.toolPolicy.readOnly) return 'read_only_agent'
  if (agent.allowedRepositoryRoots !== undefined) return 'agent_directory_limits'
  return null
}

/** The ceilings the sandbox check enforces for this agent. */
export function agentCeilings(agent: AgentPreset): AgentCeilings {
  return agent.allowedRepositoryRoots === undefined
    ? { readOnly: agent.toolPolicy.readOnly }
    : {
        readOnly: agent.toolPolicy.readOnly,
        allowedRepositoryRoots: [...agent.allowedRepositoryRoots],
      }
}

/** Whether the agent may call `toolName` at all, before any policy. */
export function agentMayUseTool(agent: AgentPreset, toolName: string): boolean {
  return agent.allowedTools === undefined || agent.allowedTools.includes(toolName)
}
