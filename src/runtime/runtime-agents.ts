import { randomUUID } from 'node:crypto'
import { homedir } from 'node:os'
import type { AgentSummary, ExternalAgentConfig } from '../contracts/agents-config.ts'
import type { AgentModel } from './agent/agent-model.ts'
import { AgentRunner, type AgentRunnerOptions } from './agent/agent-runner.ts'
import { OfflineModel } from './agent/offline-model.ts'
import { builtInAgents, GATEWAY_AGENT_ID, type AgentPreset } from './domain/agent-preset.ts'
import { AgentProcessLedger } from './external-agents/agent-process-ledger.ts'
import type { AgentContainmentPort } from './domain/agent-containment-port.ts'
import { openExternalSession } from './external-agents/external-session-factory.ts'
import { loadAgentsConfigAtStart } from './external-turns/agents-config-at-start.ts'
import { ExternalAgentBackend } from './external-turns/external-agent-backend.ts'
import type { McpToolCalls } from './ports/mcp-tool-calls.ts'
import type { SqliteAuditLog } from './store/audit-log.ts'
import type { SqliteConversationRepository } from './store/conversation-repository.ts'

export interface RuntimeAgentsOptions extends Omit<
  AgentRunnerOptions,
  'model' | 'agentFor' | 'conversations' | 'newId' | 'mcp'
> {
  dataDir: string
  /** agents.json; `<dataDir>/agents.json` when absent. */
  agentsConfigPath: string | undefined
  /** Where external agents start (sandbox/agent-containment.ts). */
  containment?: AgentContainmentPort
  scopedRoots: readonly string[] | undefined
  /** What decides the built-in agent's steps; the offline model by default. */
  model: AgentModel | undefined
  conversations: SqliteConversationRepository
  mcp: McpToolCalls
  audit: SqliteAuditLog
  onError: (error: unknown) => void
}

/** The agents of one runtime instance: the built-in ones and agents.json's,
 *  the runner of the built-in agents' turns and the backend of the external
 *  ones'. */
export interface RuntimeAgents {
  agents: AgentPreset[]
  external: readonly ExternalAgentConfig[]
  runner: AgentRunner
  externalTurns: ExternalAgentBackend
}

/** Reads agents.json (its problems audited), ends the agents an earlier
 *  runtime left running, and wires the runners of both kinds of agent. */
export function startAgents(options: RuntimeAgentsOptions): RuntimeAgents {
  const { conversations, grants, requester, events, now, durable, room } = options
  const external = loadAgentsConfigAtStart(
    options.dataDir,
    options.agentsConfigPath,
    options.audit,
    now,
    options.onError,
  ).agents
  const agents = [
    ...builtInAgents({ scopedRoots: [...(options.scopedRoots ?? [homedir()])] }),
    ...external.map(externalAgentPreset),
  ]
  // Agents an earlier runtime left running (it crashed) are ended before
  // anything starts: their turns are over, and nobody answers for them.
  const agentProcesses = new AgentProcessLedger(options.dataDir)
  agentProcesses.reapLeftovers()
  const externalTurns = new ExternalAgentBackend({
    agents: external,
    openSession: (sessionOptions) =>
      openExternalSession({
        ...sessionOptions,
        onProcessStarted: (process) => agentProcesses.track(process, sessionOptions.agent.id),
        ...(options.containment === undefined ? {} : { containment: options.containment }),
      }),
    requester,
    grants,
    conversations,
    events,
    now,
    durable,
    room,
    newId: randomUUID,
  })
  const runner = new AgentRunner({
    conversations,
    grants,
    requester,
    inputs: options.inputs,
    events,
    model: options.model ?? new OfflineModel(),
    agentFor: (agentId) => agents.find((agent) => agent.id === agentId),
    now,
    durable,
    mcp: options.mcp,
    commands: options.commands,
    room,
  })
  return { agents, external, runner, externalTurns }
}

/** An external agent as a room sees it: no ceilings of its own (the room's
 *  sandbox and policy confine what it asks for) and none of the built-in
 *  tools, which only the offline agent calls. */
function externalAgentPreset(agent: ExternalAgentConfig): AgentPreset {
  return { id: agent.id, name: agent.name, toolPolicy: { readOnly: false }, allowedTools: [] }
}

/** The agents a person may create a room with: the built-in ones (not the
 *  MCP gateway's, whose rooms the gateway makes) and agents.json's. */
export function agentSummaries(
  agents: readonly AgentPreset[],
  external: readonly ExternalAgentConfig[],
): AgentSummary[] {
  return agents
    .filter((agent) => agent.id !== GATEWAY_AGENT_ID)
    .map((agent) => {
      const config = external.find((candidate) => candidate.id === agent.id)
      return {
        id: agent.id,
        name: agent.name,
        kind: config ? 'external' : 'built-in',
        protocol: config?.protocol ?? null,
      }
    })
}
