import type { ToolCallRecord, ToolCallStatus, Turn } from '../../contracts/room.ts'
import type { AgentPreset } from '../domain/agent-preset.ts'

/** How one tool call ended, as recorded on it and handed to the model. */
export interface ToolCallOutcome {
  status: ToolCallStatus
  result: NonNullable<ToolCallRecord['result']>
}

/**
 * An agent's calls to MCP tools (`server__tool`) inside a room, for the
 * agent runner, which knows nothing of MCP itself.
 *
 * Invariants the adapter keeps: a gated call runs only after the person (or
 * a grant for the exact tool definition) allowed it and its `running` mark is
 * durable; the room's mode never lets a gated server skip consent; every
 * failure is an outcome, never a throw.
 */
export interface McpToolCalls {
  /** Whether `toolName` names an MCP tool (`server__tool`) rather than a
   *  built-in one. */
  handles(toolName: string): boolean
  run(turn: Turn, agent: AgentPreset, call: ToolCallRecord): Promise<ToolCallOutcome>
}
