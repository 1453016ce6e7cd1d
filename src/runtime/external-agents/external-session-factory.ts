import { AcpClient } from './acp-client.ts'
import type { ExternalAgentClientOptions } from './agent-connection.ts'
import { CodexAppServerClient } from './codex-app-server-client.ts'
import type { ExternalAgentSession } from './external-agent-port.ts'

/** A session with the agent an agents.json entry describes, in the
 *  protocol it names. Nothing runs until `start`. */
export function openExternalSession(options: ExternalAgentClientOptions): ExternalAgentSession {
  const { agent } = options
  return agent.protocol === 'acp'
    ? new AcpClient({ ...options, agent })
    : new CodexAppServerClient({ ...options, agent })
}
