import { z } from 'zod'

/** An agent id names the agent in a room and in the audit log: lowercase,
 *  digits and dashes, like an MCP server id. */
export const ExternalAgentIdSchema = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]{0,31}$/, 'must be 1-32 lowercase letters, digits or dashes')

/** The two protocols Assent speaks with a real agent over its stdio. */
export const ExternalAgentProtocolSchema = z.enum(['codex-app-server', 'acp'])
export type ExternalAgentProtocol = z.infer<typeof ExternalAgentProtocolSchema>

/** A POSIX environment variable name. */
export const EnvironmentNameSchema = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, 'must be an environment variable name')

/**
 * The variables every agent process gets from Assent's own environment, when
 * Assent has them. Nothing else passes unless the agent's entry names it in
 * `pass_env`, so a secret in Assent's environment (a token, a key for another
 * service) never reaches an agent nobody gave it to.
 */
export const BASE_AGENT_ENVIRONMENT: readonly string[] = Object.freeze([
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'LANG',
  'LC_ALL',
  'LC_CTYPE',
  'TERM',
  'TZ',
  'TMPDIR',
])

const ExternalAgentFieldsSchema = {
  id: ExternalAgentIdSchema,
  /** What the workbench and the protected window call the agent. */
  name: z.string().trim().min(1).max(80).optional(),
  /** The program: an absolute path, or a name looked up on the agent's PATH. */
  command: z.string().min(1).max(4096),
  args: z.array(z.string().max(4096)).max(64).default([]),
  /** Names of further variables passed through from Assent's environment
   *  (for instance the provider key the agent's own settings name). */
  pass_env: z.array(EnvironmentNameSchema).max(64).default([]),
  /** Variables set to fixed values; they win over passed-through ones. */
  set_env: z.record(EnvironmentNameSchema, z.string().max(32_768)).default({}),
}

/**
 * The ACP session mode Assent asks the agent for in each room mode. ACP mode
 * ids are the agent's own words, so there is no default: an entry names the
 * mode in which the agent asks its client before every action the room's
 * policy leaves to the person (docs/agents-external.md lists them for known
 * agents). A session whose agent does not offer the named mode is not started.
 */
export const AcpSessionModesSchema = z.strictObject({
  /** Plan mode; the ask-for-approval mode when absent (every request the
   *  agent makes in plan mode is refused on Assent's side anyway). */
  plan: z.string().min(1).max(128).optional(),
  'ask-for-approval': z.string().min(1).max(128),
  'approve-for-me': z.string().min(1).max(128),
  'full-access': z.string().min(1).max(128),
})
export type AcpSessionModes = z.infer<typeof AcpSessionModesSchema>

export const CodexAgentConfigSchema = z.strictObject({
  ...ExternalAgentFieldsSchema,
  protocol: z.literal('codex-app-server'),
})

export const AcpAgentConfigSchema = z.strictObject({
  ...ExternalAgentFieldsSchema,
  protocol: z.literal('acp'),
  session_modes: AcpSessionModesSchema,
})

export const ExternalAgentConfigSchema = z
  .discriminatedUnion('protocol', [CodexAgentConfigSchema, AcpAgentConfigSchema])
  .transform((agent) => ({ ...agent, name: agent.name ?? agent.id }))
export type ExternalAgentConfig = z.infer<typeof ExternalAgentConfigSchema>
export type CodexAgentConfig = Extract<ExternalAgentConfig, { protocol: 'codex-app-server' }>
export type AcpAgentConfig = Extract<ExternalAgentConfig, { protocol: 'acp' }>

/**
 * The ids of the agents every install ships with
 * (src/runtime/domain/agent-preset.ts). An agents.json entry may not take
 * one: a room names its agent by id, and an id that meant a built-in agent
 * in one room and a program in another would let a config edit swap the
 * agent behind an existing room.
 */
export const BUILT_IN_AGENT_IDS: readonly string[] = Object.freeze([
  'assistant',
  'reader',
  'scoped',
  'mcp-gateway',
])

export const AgentsConfigSchema = z
  .strictObject({
    agents: z.array(ExternalAgentConfigSchema).max(32),
  })
  .superRefine((config, context) => {
    const seen = new Set<string>()
    for (const [index, agent] of config.agents.entries()) {
      if (BUILT_IN_AGENT_IDS.includes(agent.id)) {
        context.addIssue({
          code: 'custom',
          path: ['agents', index, 'id'],
          message: `${agent.id} is the id of a built-in agent`,
        })
      }
      if (seen.has(agent.id)) {
        context.addIssue({
          code: 'custom',
          path: ['agents', index, 'id'],
          message: `duplicate agent id ${agent.id}`,
        })
      }
      seen.add(agent.id)
    }
  })
export type AgentsConfig = z.infer<typeof AgentsConfigSchema>

export const EMPTY_AGENTS_CONFIG: AgentsConfig = Object.freeze({ agents: [] }) as AgentsConfig

/** An agent a room can be created with, as the workbench lists it: who it
 *  is, never its command or environment. */
export const AgentSummarySchema = z.strictObject({
  id: z.string().min(1).max(64),
  name: z.string().min(1).max(128),
  /** Shipped with Assent (offline), or an agents.json entry. */
  kind: z.enum(['built-in', 'external']),
  protocol: ExternalAgentProtocolSchema.nullable(),
})
export type AgentSummary = z.infer<typeof AgentSummarySchema>

/** `GET /v1/agents`. */
export const AgentListSchema = z.strictObject({ agents: z.array(AgentSummarySchema) })
export type AgentList = z.infer<typeof AgentListSchema>
