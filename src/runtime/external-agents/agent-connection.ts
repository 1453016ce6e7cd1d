import type { ExternalAgentConfig } from '../../contracts/agents-config.ts'
import type { AgentContainmentPort, AgentWrap } from '../domain/agent-containment-port.ts'
import { startAgentProcess, type AgentProcess } from './agent-process.ts'
import type {
  ExternalAgentEventSink,
  ExternalApprovalAsker,
  ExternalTurnOutcome,
} from './external-agent-port.ts'
import { NdjsonRpcPeer, type RpcPeerHandlers } from './ndjson-rpc-peer.ts'

/** How long an agent has to answer `initialize` and open its session. Codex
 *  took 0.5-5 s on a busy two-core machine; a minute is a ceiling for a
 *  loaded one, not an estimate. */
export const AGENT_START_TIMEOUT_MS = 60_000

/** Who Assent says it is in `initialize`. */
export const ASSENT_CLIENT_INFO = Object.freeze({
  name: 'assent',
  title: 'Assent',
  version: '0.1.0',
})

export interface ExternalAgentClientOptions<A extends ExternalAgentConfig = ExternalAgentConfig> {
  agent: A
  /** The room's workspace: the agent's working directory and its session's. */
  workspace: string
  asker: ExternalApprovalAsker
  onEvent: ExternalAgentEventSink
  /** Where passed-through variables come from; `process.env` by default. */
  environment?: NodeJS.ProcessEnv
  /** Where Codex and Claude read the machine's own settings, which may let
   *  them act unasked (`/etc/codex`, and claudeManagedFolder() by default);
   *  tests give folders of their own. */
  machineSettings?: { codex: string; claude: string }
  startTimeoutMs?: number
  /** Told of the agent process as soon as it is spawned, before it can do
   *  anything (the runtime notes it, to end it after a crash). */
  onProcessStarted?: (process: AgentProcess) => void
  /** Starts the agent with the person's credentials hidden from it and
   *  from what it runs (sandbox/agent-containment.ts), in every mode but
   *  full access; absent, it starts as it is. */
  containment?: AgentContainmentPort
}

/** The agent process and the JSON-RPC peer on its stdio. */
export interface AgentConnection {
  process: AgentProcess
  peer: NdjsonRpcPeer
}

/** Starts the agent and speaks JSON-RPC with it. When the agent's output
 *  ends, the peer closes, and every pending request fails. */
export function openAgentConnection(
  options: ExternalAgentClientOptions,
  jsonrpc: '2.0' | null,
  handlers: RpcPeerHandlers,
  wrap: AgentWrap | null = null,
): AgentConnection {
  const process = startAgentProcess(options.agent, options.workspace, options.environment, wrap)
  options.onProcessStarted?.(process)
  const peer = new NdjsonRpcPeer(process.stdout, process.stdin, jsonrpc, handlers)
  void process.exited.then((exit) => {
    const how = exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`
    peer.close(new Error(`the agent exited (${how})`))
  })
  return { process, peer }
}

/** The turn in progress: resolved once, by the agent's end of turn or by
 *  the connection's end. */
export class TurnInProgress {
  private settle: ((outcome: ExternalTurnOutcome) => void) | null = null
  readonly done: Promise<ExternalTurnOutcome>

  constructor() {
    this.done = new Promise((resolve) => {
      this.settle = resolve
    })
  }

  end(outcome: ExternalTurnOutcome): void {
    this.settle?.(outcome)
    this.settle = null
  }
}
