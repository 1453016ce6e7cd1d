import type { Turn } from '../../contracts/room.ts'
import type { AgentPreset } from '../domain/agent-preset.ts'
import { isPlanPolicy, runsWithoutConsent } from '../policy/permission-modes.ts'
import type { ToolDefinition } from '../tools/tool-types.ts'

/** Whether the agent is offered this built-in tool in this turn: it may use
 *  it at all, and in plan mode it runs with nobody asked. */
export function offeredTo(
  agent: AgentPreset,
  turn: Turn,
  tool: Pick<ToolDefinition<unknown>, 'name' | 'effect'>,
): boolean {
  if (agent.allowedTools && !agent.allowedTools.includes(tool.name)) return false
  return !isPlanPolicy(turn.policy) || runsWithoutConsent(turn.policy, tool.effect)
}
