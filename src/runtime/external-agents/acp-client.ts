import type {
  CancelNotification,
  InitializeRequest,
  NewSessionRequest,
  PromptRequest,
  RequestPermissionResponse,
  SetSessionModeRequest,
} from '@agentclientprotocol/sdk'
import type { AcpAgentConfig } from '../../contracts/agents-config.ts'
import type { PermissionMode } from '../../contracts/policy-axes.ts'
import {
  ASSENT_CLIENT_INFO,
  type AgentConnection,
  type ExternalAgentClientOptions,
} from './agent-connection.ts'
import {
  ACP_METHODS,
  ACP_PROTOCOL_VERSION,
  acpAnswerText,
  acpOutcomeFor,
  acpToolOutput,
  acpToolStatus,
  AcpEmptyResultSchema,
  AcpInitializeResultSchema,
  AcpMessageChunkSchema,
  AcpModeUpdateSchema,
  AcpNewSessionResultSchema,
  AcpPermissionRequestSchema,
  AcpPromptResultSchema,
  AcpSessionUpdateSchema,
  AcpToolCallSchema,
  type AcpPermissionOutcome,
  type AcpStopReason,
  type AcpToolCall,
} from './acp-messages.ts'
import { acpAction } from './acp-tool-call-reading.ts'
import {
  boundedText,
  BoundedTextBuilder,
  type ExternalAgentSession,
  type ExternalRefusalCode,
  type ExternalTurnOutcome,
} from './external-agent-port.ts'
import { ExternalAgentClient } from './external-agent-client.ts'
import { refuseCodexOwnAllowances } from './codex-own-allowances.ts'
import { refuseClaudeManagedSettings } from './claude-managed-settings.ts'
import type { RpcId } from './ndjson-rpc-peer.ts'

type Answer = RequestPermissionResponse

const PERMISSION_REQUEST = ACP_METHODS.requestPermission

/**
 * Assent as the client of any agent speaking the Agent Client Protocol
 * (JSON-RPC 2.0, one JSON object per line, on the agent's stdio). The client
 * offers no file system and no terminal of its own, so the agent acts
 * itself and asks `session/request_permission` first; every such request
 * goes to the asker, and the agent gets back the matching option id or
 * `cancelled`.
 */
/** The name an ACP agent built on Codex gives itself (codex-acp). */
const CODEX_BASED = /codex/i
/** The name an ACP agent built on Claude gives itself (claude-agent-acp). */
const CLAUDE_BASED = /claude/i

/**
 * Sent with every `session/new`: claude-agent-acp reads the Claude Agent
 * SDK's options from `_meta.claudeCode.options`, over its own, and other
 * agents ignore what they do not know (ACP reserves `_meta` for such
 * extensions). By default claude-agent-acp loads the person's and the
 * workspace's Claude settings files, whose permission rules let a command
 * or an edit run without the agent asking anyone, and whose hooks run
 * commands at its events: a repository that ships `.claude/settings.json`
 * allowing `Bash` had its commands run, and its hook, with Assent never
 * asked (0.23.1, tests/external-agents-claude-acp.test.ts). With no setting
 * source the agent asks before each action as its session mode says. It
 * loses what else those files give (CLAUDE.md, its model preference):
 * docs/agents-external.md says so.
 */
const AGENT_SETTINGS_OFF = { claudeCode: { options: { settingSources: [] } } }

export class AcpClient extends ExternalAgentClient<AcpAgentConfig> implements ExternalAgentSession {
  private sessionId: string | null = null
  private modeId: string | null = null
  /** Set once the agent left the session mode Assent chose: no further turn
   *  runs, because the agent may no longer ask before it acts. */
  private leftMode: string | null = null
  /** Every tool call of the turn as the agent last described it: a
   *  permission request may carry only the fields that changed. Emptied
   *  when the turn ends: kept for the session, every call it ever made
   *  (an edit's whole old and new text among them) stayed in memory until
   *  the agent stopped. */
  private readonly toolCalls = new Map<string, AcpToolCall>()
  private message: { id: string; text: BoundedTextBuilder } | null = null
  private messageCount = 0

  constructor(options: ExternalAgentClientOptions<AcpAgentConfig>) {
    super(options, '2.0', 'the agent')
  }

  protected async handshake(connection: AgentConnection, mode: PermissionMode): Promise<void> {
    const modes = this.options.agent.session_modes
    const modeId = modes[mode] ?? modes['ask-for-approval']
    const initialized = await this.starting(
      connection.peer.request(
        ACP_METHODS.initialize,
        {
          protocolVersion: ACP_PROTOCOL_VERSION,
          clientCapabilities: {
            fs: { readTextFile: false, writeTextFile: false },
            terminal: false,
          },
          clientInfo: { name: ASSENT_CLIENT_INFO.name, version: ASSENT_CLIENT_INFO.version },
        } satisfies InitializeRequest,
        AcpInitializeResultSchema,
      ),
      'ACP initialize',
    )
    if (initialized.protocolVersion !== ACP_PROTOCOL_VERSION) {
      throw new Error(`the agent speaks ACP version ${initialized.protocolVersion}, not 1`)
    }
    // An agent built on Codex (codex-acp names itself so) reads Codex's
    // own rules, hooks, notify command, MCP servers and plugins, which
    // would answer in Assent's place.
    const { agent, workspace, environment = process.env, machineSettings } = this.options
    if (CODEX_BASED.test(initialized.agentInfo?.name ?? '')) {
      refuseCodexOwnAllowances(agent, workspace, environment, mode, machineSettings?.codex)
    }
    // One built on Claude (claude-agent-acp names itself so) reads the
    // settings an administrator manages, which no session turns off.
    if (CLAUDE_BASED.test(initialized.agentInfo?.name ?? '')) {
      refuseClaudeManagedSettings(mode, machineSettings?.claude)
    }
    const session = await this.starting(
      connection.peer.request(
        ACP_METHODS.newSession,
        {
          cwd: this.options.workspace,
          mcpServers: [],
          _meta: AGENT_SETTINGS_OFF,
        } satisfies NewSessionRequest,
        AcpNewSessionResultSchema,
      ),
      'ACP session/new',
    )
    // The mode is what makes the agent ask before it acts. An agent that
    // does not offer the configured one cannot be held to the room's
    // policy, so its session is not used.
    const offered = session.modes?.availableModes.map((m) => m.id) ?? []
    if (!offered.includes(modeId)) {
      throw new Error(
        `the agent offers no session mode "${modeId}" (it offers: ${offered.join(', ') || 'none'})`,
      )
    }
    await this.starting(
      connection.peer.request(
        ACP_METHODS.setMode,
        { sessionId: session.sessionId, modeId } satisfies SetSessionModeRequest,
        AcpEmptyResultSchema,
      ),
      'ACP session/set_mode',
    )
    this.sessionId = session.sessionId
    this.modeId = modeId
  }

  async runTurn(text: string): Promise<ExternalTurnOutcome> {
    const connection = this.connection
    const sessionId = this.sessionId
    if (!connection || sessionId === null) throw new Error('the ACP session has not started')
    if (this.leftMode !== null) {
      throw new Error(`the agent left session mode ${this.modeId} for ${this.leftMode}`)
    }
    return this.playTurn((turn) => {
      connection.peer
        .request(
          ACP_METHODS.prompt,
          { sessionId, prompt: [{ type: 'text', text }] } satisfies PromptRequest,
          AcpPromptResultSchema,
        )
        .then(
          (result) => turn.end(outcomeOf(result.stopReason)),
          (error: Error) => turn.end({ status: 'failed', detail: error.message }),
        )
    })
  }

  protected override afterTurn(): void {
    this.flushMessage()
    this.toolCalls.clear()
  }

  async interrupt(): Promise<void> {
    // ACP: after session/cancel the client answers every pending permission
    // request with `cancelled`; withdrawing them does exactly that.
    this.approvals.withdrawAll()
    if (this.connection && this.sessionId !== null && this.turn) {
      this.turnCancelled = true
      this.connection.peer.notify(ACP_METHODS.cancel, {
        sessionId: this.sessionId,
      } satisfies CancelNotification)
    }
  }

  protected onRequest(method: string, params: unknown, id: RpcId): Promise<Answer> {
    if (method === PERMISSION_REQUEST) return this.onPermissionRequest(params, id)
    return this.refuseMethod(
      method,
      'Assent offers the agent no file system or terminal of its own',
    )
  }

  private async onPermissionRequest(params: unknown, id: RpcId): Promise<Answer> {
    const parsed = AcpPermissionRequestSchema.safeParse(params)
    if (!parsed.success)
      return this.refuse('unreadable', 'bad parameters', { outcome: 'cancelled' })
    const { sessionId, options } = parsed.data
    if (sessionId !== this.sessionId) {
      return this.refuse('other-session', sessionId, { outcome: 'cancelled' })
    }
    // ACP: once the client sent `session/cancel`, it answers every
    // permission request `cancelled`. An agent that left the mode Assent
    // chose no longer asks before it acts: nothing it asks is passed on
    // either. Neither is asked, so neither a grant nor full access allows
    // it with no window.
    if (this.turnCancelled || this.leftMode !== null) {
      const detail =
        this.leftMode === null
          ? 'after session/cancel'
          : `the agent left session mode ${this.modeId} for ${this.leftMode}`
      return this.refuse('turn-cancelled', detail, { outcome: 'cancelled' })
    }
    // An agent that gave "allow" and "reject" the same id could read any
    // answer as the one it liked.
    if (new Set(options.map((o) => o.optionId)).size !== options.length) {
      return this.refuse('ambiguous-options', 'option ids are not unique', { outcome: 'cancelled' })
    }
    const toolCall = this.remember(parsed.data.toolCall)
    // Without an allow-once option the only allow the agent takes is its own
    // persistent rule, which Assent never gives: refuse without asking.
    if (!options.some((option) => option.kind === 'allow_once')) {
      return this.refuse(
        'no-allow-once-option',
        options.map((o) => o.kind).join(', '),
        acpOutcomeFor('deny', options),
      )
    }
    const reading = acpAction(toolCall, this.options.workspace)
    if ('refused' in reading) {
      return this.refuse(reading.refused, reading.detail, acpOutcomeFor('deny', options))
    }
    const request = {
      requestId: `acp:${sessionId}:${toolCall.toolCallId}:${String(id)}`,
      protocol: 'acp' as const,
      sessionId,
      toolCallId: toolCall.toolCallId,
      reason: null,
      sandboxMode: 'danger-full-access' as const,
      action: reading.action,
    }
    this.emitToolCall(toolCall, 'awaiting-approval')
    const decision = await this.approvals.decide(`${typeof id}:${String(id)}`, request)
    const outcome = acpOutcomeFor(decision, options)
    this.options.onEvent({
      type: 'approval-answered',
      requestId: request.requestId,
      decision,
      answer: acpAnswerText(outcome),
    })
    // A refused tool call gets no further update from the agent (codex-acp
    // ends the turn), so the timeline is told here that it never ran.
    if (decision !== 'allow-once' && decision !== 'allow-always') {
      this.emitToolCall(toolCall, decision === 'expired' ? 'expired' : 'denied')
    }
    return { outcome }
  }

  private refuse(
    code: ExternalRefusalCode,
    detail: string,
    outcome: AcpPermissionOutcome,
  ): Promise<Answer> {
    this.options.onEvent({
      type: 'request-refused',
      method: PERMISSION_REQUEST,
      code,
      detail,
      answer: acpAnswerText(outcome),
    })
    return Promise.resolve({ outcome })
  }

  protected onNotification(method: string, params: unknown): void {
    if (method !== ACP_METHODS.sessionUpdate) return
    const parsed = AcpSessionUpdateSchema.safeParse(params)
    if (!parsed.success || parsed.data.sessionId !== this.sessionId) return
    const update = parsed.data.update
    if (update.sessionUpdate === 'agent_message_chunk') {
      const chunk = AcpMessageChunkSchema.safeParse(update)
      if (chunk.success) this.appendMessage(chunk.data.content.text)
      return
    }
    this.flushMessage()
    switch (update.sessionUpdate) {
      case 'tool_call':
      case 'tool_call_update': {
        const toolCall = AcpToolCallSchema.safeParse(update)
        if (toolCall.success) this.emitToolCall(this.remember(toolCall.data))
        return
      }
      case 'current_mode_update': {
        const mode = AcpModeUpdateSchema.safeParse(update)
        if (mode.success && mode.data.currentModeId !== this.modeId) {
          this.onModeLeft(mode.data.currentModeId)
        }
        return
      }
    }
  }

  /** The agent switched itself out of the mode that makes it ask: the turn
   *  is cancelled and no further turn runs in this session. */
  private onModeLeft(currentModeId: string): void {
    this.leftMode = currentModeId
    this.warn(`the agent left session mode ${this.modeId} for ${currentModeId}; its turn is ended`)
    void this.interrupt()
  }

  private remember(update: AcpToolCall): AcpToolCall {
    const merged: AcpToolCall = {
      ...this.toolCalls.get(update.toolCallId),
      ...dropUndefined(update),
      toolCallId: update.toolCallId,
    }
    this.toolCalls.set(update.toolCallId, merged)
    return merged
  }

  private emitToolCall(toolCall: AcpToolCall, status = acpToolStatus(toolCall.status)): void {
    const reading = acpAction(toolCall, this.options.workspace)
    // A call whose request would be refused is shown by its title alone.
    const action = 'action' in reading ? reading.action : null
    const output = acpToolOutput(toolCall)
    this.options.onEvent({
      type: 'tool-call',
      toolCallId: toolCall.toolCallId,
      title: boundedText(toolCall.title ?? ''),
      status,
      action,
      output: output === null ? null : boundedText(output),
      exitCode: null,
    })
  }

  private appendMessage(text: string): void {
    if (!this.message) {
      const id = `${this.sessionId}:message:${++this.messageCount}`
      this.message = { id, text: new BoundedTextBuilder() }
    }
    this.message.text.append(text)
  }

  private flushMessage(): void {
    const message = this.message
    this.message = null
    if (!message || message.text.empty) return
    this.options.onEvent({
      type: 'agent-message',
      messageId: message.id,
      text: message.text.text(),
    })
  }
}

function outcomeOf(stopReason: AcpStopReason): ExternalTurnOutcome {
  switch (stopReason) {
    case 'end_turn':
      return { status: 'completed', detail: null }
    case 'cancelled':
      return { status: 'interrupted', detail: stopReason }
    case 'refusal':
      return { status: 'refused', detail: stopReason }
    case 'max_tokens':
    case 'max_turn_requests':
      return { status: 'failed', detail: stopReason }
  }
}

function dropUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>
}
