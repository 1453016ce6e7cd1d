import type { ExternalAgentConfig } from '../../contracts/agents-config.ts'
import type { PermissionMode } from '../../contracts/policy-axes.ts'
import {
  AGENT_START_TIMEOUT_MS,
  openAgentConnection,
  TurnInProgress,
  type AgentConnection,
  type ExternalAgentClientOptions,
} from './agent-connection.ts'
import type { AgentWrap } from '../domain/agent-containment-port.ts'
import { startsContained } from './agent-mode-mapping.ts'
import { agentEnvironment } from './agent-process.ts'
import { boundedText, type ExternalTurnOutcome } from './external-agent-port.ts'
import { RpcError, RPC_METHOD_NOT_FOUND } from '../domain/json-rpc-error.ts'
import type { RpcId } from './ndjson-rpc-peer.ts'
import { PendingApprovals, withTimeout } from './pending-approvals.ts'

/**
 * What both adapters share: the agent process and its JSON-RPC peer, the
 * approvals it waits on, the turn in progress, and how the session ends.
 * Each protocol adds its handshake, its requests and its notifications.
 */
export abstract class ExternalAgentClient<A extends ExternalAgentConfig> {
  protected connection: AgentConnection | null = null
  protected turn: TurnInProgress | null = null
  /**
   * Set once Assent told the agent to end the running turn (ACP's
   * `session/cancel`, Codex's `turn/interrupt`), until the next turn
   * starts. A request the agent sends meanwhile is for a turn Assent has
   * ended: each door refuses it without asking anyone, in its protocol's
   * terms (`turn-cancelled`). Asked, a grant or full access would allow it
   * with no window, and an agent that ignores the cancel would go on
   * acting.
   */
  protected turnCancelled = false
  protected readonly approvals: PendingApprovals
  protected readonly options: ExternalAgentClientOptions<A>
  private closing = false
  private readonly jsonrpc: '2.0' | null
  private readonly who: string

  /** `jsonrpc`: the JSON-RPC dialect; `who` names the agent in warnings. */
  constructor(options: ExternalAgentClientOptions<A>, jsonrpc: '2.0' | null, who: string) {
    this.options = options
    this.jsonrpc = jsonrpc
    this.who = who
    this.approvals = new PendingApprovals(options.asker, options.onEvent)
  }

  /** Starts the agent and its session under `mode`'s settings; if the
   *  handshake fails (or the agent did not take the settings), the agent is
   *  stopped and the session cannot be used. */
  async start(mode: PermissionMode): Promise<void> {
    if (this.connection) throw new Error(`this ${this.who} session has started already`)
    this.refuseToStart(mode)
    const wrap = await this.containedFor(mode)
    if (this.connection) throw new Error(`this ${this.who} session has started already`)
    this.connection = openAgentConnection(
      this.options,
      this.jsonrpc,
      {
        onRequest: (method, params, id) => this.onRequest(method, params, id),
        onNotification: (method, params) => this.onNotification(method, params),
        onProtocolError: (message) => this.warn(`${this.who} sent ${message}`),
        onClosed: (reason) => this.onClosed(reason),
      },
      wrap,
    )
    try {
      await this.handshake(this.connection, mode)
    } catch (error) {
      await this.close()
      throw error
    }
  }

  /**
   * How the agent is started under `mode`: with the person's credentials
   * hidden (the containment's wrap), except in full access, where the
   * person let it do everything. Throws, and nothing starts, where the
   * containment cannot hide them: an agent's own sandbox lets it read
   * anywhere unasked (codex-acp's read-only mode), so unhidden, a key
   * would reach its model.
   */
  private async containedFor(mode: PermissionMode): Promise<AgentWrap | null> {
    const containment = this.options.containment
    if (containment === undefined || !startsContained(mode)) return null
    const answer = await containment.wrapFor({
      workspace: this.options.workspace,
      agentEnv: agentEnvironment(this.options.agent, this.options.environment ?? process.env),
    })
    if (!answer.ok) throw new Error(`the agent is not started: ${answer.reason}`)
    return answer.wrap
  }

  /** Throws when the agent must not even be started for `mode`, before
   *  its process exists; nothing by default. */
  protected refuseToStart(_mode: PermissionMode): void {}

  /** Ends the agent process. Pending requests are answered as cancelled
   *  first, while the agent can still read the answer. */
  async close(): Promise<void> {
    this.closing = true
    this.approvals.withdrawAll()
    const connection = this.connection
    if (!connection) return
    // Let the cancelled answers reach the agent before its stdin closes.
    await new Promise((resolveTick) => setImmediate(resolveTick))
    await connection.process.stop()
    this.endTurn({ status: 'interrupted', detail: 'the agent was stopped' })
  }

  /** Waits for one step of the start-up handshake, within the start limit. */
  protected starting<T>(step: Promise<T>, what: string): Promise<T> {
    return withTimeout(step, this.options.startTimeoutMs ?? AGENT_START_TIMEOUT_MS, what)
  }

  /** Runs one turn: `send` starts it; the turn ends when the protocol says
   *  so (`endTurn`) or the connection does. */
  protected async playTurn(send: (turn: TurnInProgress) => void): Promise<ExternalTurnOutcome> {
    if (this.turn) throw new Error('a turn is already running')
    const turn = new TurnInProgress()
    this.turn = turn
    this.turnCancelled = false
    send(turn)
    const outcome = await turn.done
    // A request the agent left open when its turn ended is answered
    // cancelled now: the person's allow of it later must reach no agent,
    // and what the call would do then is watched by no turn.
    this.approvals.withdrawAll()
    this.turn = null
    this.afterTurn()
    this.options.onEvent({ type: 'turn-ended', outcome })
    return outcome
  }

  protected endTurn(outcome: ExternalTurnOutcome): void {
    this.turn?.end(outcome)
  }

  /** Answers a request this client does not serve with "method not found":
   *  an error, never a decision. */
  protected refuseMethod(method: string, detail: string): Promise<never> {
    this.options.onEvent({
      type: 'request-refused',
      method,
      code: 'unsupported-request',
      detail,
      answer: 'error: method not found',
    })
    return Promise.reject(new RpcError(RPC_METHOD_NOT_FOUND, `${method} is not supported`))
  }

  protected warn(text: string): void {
    this.options.onEvent({ type: 'agent-warning', text: boundedText(text) })
  }

  /** Clears what belonged to the turn that just ended. */
  protected afterTurn(): void {}

  /** Opens the protocol's session on a fresh connection. */
  protected abstract handshake(connection: AgentConnection, mode: PermissionMode): Promise<void>
  protected abstract onRequest(method: string, params: unknown, id: RpcId): Promise<unknown>
  protected abstract onNotification(method: string, params: unknown): void

  private onClosed(reason: Error): void {
    this.approvals.withdrawAll()
    this.endTurn(
      this.closing
        ? { status: 'interrupted', detail: 'the agent was stopped' }
        : { status: 'failed', detail: reason.message },
    )
  }
}
