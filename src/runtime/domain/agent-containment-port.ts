// How an external agent's process is started: as it is, or inside a
// wrap that hides the person's credentials from it
// (src/runtime/sandbox/agent-containment.ts builds one).

/** How to start an agent contained: the program and the arguments that
 *  come before the agent's own command and arguments. */
export interface AgentWrap {
  program: string
  args: string[]
  /** What the wrap reads from the agent's descriptor 3 as it starts (a
   *  seccomp filter), given through a pipe of its own. */
  descriptor3?: Buffer
}

/** The wrap for an agent (null: started as it is), or why it must not
 *  start. */
export type AgentContainmentAnswer =
  { ok: true; wrap: AgentWrap | null } | { ok: false; reason: string }

/** What an agent client asks before it starts its agent. */
export interface AgentContainmentPort {
  wrapFor(request: AgentLaunchRequest): Promise<AgentContainmentAnswer>
}

export interface AgentLaunchRequest {
  /** The room's workspace (real path), where the agent starts. */
  workspace: string
  /** The agent's own environment (agent-process.ts `agentEnvironment`). */
  agentEnv: Readonly<Record<string, string>>
}
