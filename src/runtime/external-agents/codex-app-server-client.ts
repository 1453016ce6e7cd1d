import { resolve } from 'node:path'
import type { z } from 'zod'
import type { CodexAgentConfig } from '../../contracts/agents-config.ts'
import type { PermissionMode } from '../../contracts/policy-axes.ts'
import type { ToolCallStatus } from '../../contracts/room.ts'
import {
  ASSENT_CLIENT_INFO,
  type AgentConnection,
  type ExternalAgentClientOptions,
} from './agent-connection.ts'
import { CODEX_SANDBOX_POLICY_TYPES, CODEX_THREAD_SETTINGS } from './agent-mode-mapping.ts'
import {
  codexAnswerFor,
  codexCommandAction,
  codexFileChanges,
  codexItemStatus,
  codexSandboxAsAsked,
  CodexAgentMessageItemSchema,
  CodexCommandApprovalSchema,
  CodexCommandItemSchema,
  CodexEmptyResultSchema,
  CodexErrorNotificationSchema,
  CodexFileChangeApprovalSchema,
  CodexFileChangeItemSchema,
  CodexInitializeResultSchema,
  CodexItemNotificationSchema,
  CodexServerRequestResolvedSchema,
  CodexThreadStartResultSchema,
  CodexTurnCompletedSchema,
  CodexTurnStartResultSchema,
  CodexWarningSchema,
} from './codex-app-server-messages.ts'
import {
  actionTitle,
  boundedText,
  type ExternalAction,
  type ExternalActionRequest,
  type ExternalAgentSession,
  type ExternalRefusalCode,
  type ExternalTurnOutcome,
} from './external-agent-port.ts'
import { ExternalAgentClient } from './external-agent-client.ts'
import { refuseCodexOwnAllowances } from './codex-own-allowances.ts'
import type { RpcId } from './ndjson-rpc-peer.ts'

type FileChangeItem = z.infer<typeof CodexFileChangeItemSchema>
type Answer = { decision: 'accept' | 'decline' | 'cancel' }

const COMMAND_APPROVAL = 'item/commandExecution/requestApproval'
const FILE_CHANGE_APPROVAL = 'item/fileChange/requestApproval'

/**
 * Assent as the client of Codex's app-server (`codex app-server`, JSON-RPC
 * over stdio, one JSON object per line, no "jsonrpc" field). Every command
 * and file change Codex asks about goes to the asker, and Codex gets back
 * exactly the decision (`accept`, `decline`, `cancel`). A request Assent
 * cannot read is declined without asking anyone.
 */
export class CodexAppServerClient
  extends ExternalAgentClient<CodexAgentConfig>
  implements ExternalAgentSession
{
  private threadId: string | null = null
  private turnId: string | null = null
  /** Settles once `turn/start` has answered (with the running turn's id,
   *  or not at all); null while no turn is starting or running. */
  private turnStarting: Promise<void> | null = null
  /** File-change items announced in `item/started`, by item id: Codex's
   *  approval request names the item, and the changes are only here. */
  private readonly fileChanges = new Map<string, { turnId: string; item: FileChangeItem }>()
  /** Items declined because nobody answered in time: Codex reports them as
   *  declined, the timeline as expired. */
  private readonly expired = new Set<string>()

  constructor(options: ExternalAgentClientOptions<CodexAgentConfig>) {
    super(options, null, 'Codex')
  }

  /** Not started while Codex's own rules, hooks, notify command, MCP servers or plugins would
   *  answer in Assent's place (codex-own-allowances.ts). */
  protected override refuseToStart(mode: PermissionMode): void {
    const { agent, workspace, environment = process.env, machineSettings } = this.options
    refuseCodexOwnAllowances(agent, workspace, environment, mode, machineSettings?.codex)
  }

  protected async handshake(connection: AgentConnection, mode: PermissionMode): Promise<void> {
    const settings = CODEX_THREAD_SETTINGS[mode]
    await this.starting(
      connection.peer.request(
        'initialize',
        {
          clientInfo: ASSENT_CLIENT_INFO,
          capabilities: { experimentalApi: false, requestAttestation: false },
        },
        CodexInitializeResultSchema,
      ),
      'Codex initialize',
    )
    connection.peer.notify('initialized')
    const thread = await this.starting(
      connection.peer.request(
        'thread/start',
        { cwd: this.options.workspace, ...settings },
        CodexThreadStartResultSchema,
      ),
      'Codex thread/start',
    )
    // Codex's own configuration (or an administrator's) can override what
    // a client asks for. A thread that does not run under exactly the
    // settings the room's mode needs could act without asking, so it is
    // not used at all.
    const sandboxType = CODEX_SANDBOX_POLICY_TYPES[settings.sandbox]
    if (
      thread.approvalPolicy !== settings.approvalPolicy ||
      thread.approvalsReviewer !== settings.approvalsReviewer ||
      !codexSandboxAsAsked(thread.sandbox, sandboxType, this.options.workspace) ||
      resolve(thread.cwd) !== resolve(this.options.workspace)
    ) {
      throw new Error(
        `Codex did not take the room's settings: asked for ${settings.approvalPolicy}, ` +
          `${sandboxType}, reviewer ${settings.approvalsReviewer} in ${this.options.workspace}; ` +
          `got ${JSON.stringify(thread.approvalPolicy)}, ${JSON.stringify(thread.sandbox)}, ` +
          `reviewer ${thread.approvalsReviewer} in ${thread.cwd}`,
      )
    }
    this.threadId = thread.thread.id
  }

  async runTurn(text: string): Promise<ExternalTurnOutcome> {
    const connection = this.connection
    const threadId = this.threadId
    if (!connection || threadId === null) throw new Error('the Codex session has not started')
    return this.playTurn((turn) => {
      this.turnStarting = connection.peer
        .request(
          'turn/start',
          { threadId, input: [{ type: 'text', text, text_elements: [] }] },
          CodexTurnStartResultSchema,
        )
        .then(
          (started) => {
            this.turnId = started.turn.id
            // Interrupted before Codex named the turn: the interrupt can
            // be sent only now.
            if (this.turnCancelled) void this.interrupt()
          },
          (error: Error) => turn.end({ status: 'failed', detail: error.message }),
        )
    })
  }

  protected override afterTurn(): void {
    this.turnId = null
    this.turnStarting = null
    this.fileChanges.clear()
    this.expired.clear()
  }

  async interrupt(): Promise<void> {
    this.approvals.withdrawAll()
    // From now on this turn's requests are refused, even before Codex
    // named the turn (the interrupt is sent once it has).
    if (this.turn) this.turnCancelled = true
    const turnId = this.turnId
    if (!this.connection || this.threadId === null || !this.turn || !turnId) return
    await this.connection.peer
      .request('turn/interrupt', { threadId: this.threadId, turnId }, CodexEmptyResultSchema)
      .catch(() => undefined)
  }

  protected onRequest(method: string, params: unknown, id: RpcId): Promise<Answer> {
    if (method === COMMAND_APPROVAL) return this.onCommandApproval(params, id)
    if (method === FILE_CHANGE_APPROVAL) return this.onFileChangeApproval(params, id)
    return this.refuseMethod(method, 'Assent does not answer this request')
  }

  private async onCommandApproval(params: unknown, id: RpcId): Promise<Answer> {
    const parsed = CodexCommandApprovalSchema.safeParse(params)
    if (!parsed.success) return this.refuse(COMMAND_APPROVAL, 'unreadable', 'bad parameters')
    const shown = codexCommandAction(parsed.data)
    if ('refused' in shown) return this.refuse(COMMAND_APPROVAL, shown.refused, shown.detail)
    const { threadId, turnId, itemId, approvalId } = parsed.data
    if (threadId !== this.threadId) return this.refuse(COMMAND_APPROVAL, 'other-session', threadId)
    const outside = await this.outsideRunningTurn(COMMAND_APPROVAL, turnId)
    if (outside) return outside
    const suffix = approvalId == null ? '' : `:${approvalId}`
    return this.ask(id, {
      requestId: `codex:${threadId}:${turnId}:${itemId}${suffix}`,
      protocol: 'codex-app-server',
      sessionId: threadId,
      toolCallId: itemId,
      reason: parsed.data.reason ?? null,
      sandboxMode: 'danger-full-access',
      action: shown.action,
    })
  }

  private async onFileChangeApproval(params: unknown, id: RpcId): Promise<Answer> {
    const parsed = CodexFileChangeApprovalSchema.safeParse(params)
    if (!parsed.success) return this.refuse(FILE_CHANGE_APPROVAL, 'unreadable', 'bad parameters')
    const { threadId, turnId, itemId, grantRoot } = parsed.data
    // A grant root asks for every later write under a folder, not for the
    // changes shown: more than the person would see.
    if (grantRoot != null) return this.refuse(FILE_CHANGE_APPROVAL, 'grant-root', grantRoot)
    if (threadId !== this.threadId)
      return this.refuse(FILE_CHANGE_APPROVAL, 'other-session', threadId)
    const outside = await this.outsideRunningTurn(FILE_CHANGE_APPROVAL, turnId)
    if (outside) return outside
    const announced = this.fileChanges.get(itemId)
    if (!announced || announced.turnId !== turnId) {
      return this.refuse(FILE_CHANGE_APPROVAL, 'unannounced-changes', `item ${itemId}`)
    }
    return this.ask(id, {
      requestId: `codex:${threadId}:${turnId}:${itemId}`,
      protocol: 'codex-app-server',
      sessionId: threadId,
      toolCallId: itemId,
      reason: parsed.data.reason ?? null,
      sandboxMode: 'danger-full-access',
      action: {
        kind: 'file-changes',
        changes: codexFileChanges(announced.item, this.options.workspace),
      },
    })
  }

  /**
   * The refusal of a request that is not for the turn running now: one
   * that names another turn (one Assent ended, its approvals withdrawn and
   * its timeline closed, or one it never started), one that came when no
   * turn runs or whose turn never got an id, and one that came after
   * Assent interrupted the turn. None is asked: a grant or full access
   * would allow it with no window, in a turn nobody watches. Null for a
   * request of the running turn.
   *
   * A request that comes while `turn/start` has not yet answered waits for
   * that answer (Codex may send it in the same read as the answer, before
   * the answer is handled): which turn is running is known only then. It
   * is never asked before, nor guessed: without an id it is refused.
   */
  private async outsideRunningTurn(method: string, turnId: string): Promise<Answer | null> {
    if (this.turnId === null) await this.turnStarting
    if (this.turnId === null || turnId !== this.turnId) {
      return this.refuse(method, 'other-turn', `turn ${turnId}, running ${this.turnId ?? 'none'}`)
    }
    if (this.turnCancelled) {
      return this.refuse(method, 'turn-cancelled', `turn ${turnId} after turn/interrupt`, 'cancel')
    }
    return null
  }

  private async ask(id: RpcId, request: ExternalActionRequest): Promise<Answer> {
    this.toolCall(request.toolCallId, 'awaiting-approval', request.action)
    const decision = await this.approvals.decide(requestKey(id), request)
    if (decision === 'expired') this.expired.add(request.toolCallId)
    const answer = codexAnswerFor(decision)
    this.options.onEvent({
      type: 'approval-answered',
      requestId: request.requestId,
      decision,
      answer,
    })
    return { decision: answer }
  }

  private refuse(
    method: string,
    code: ExternalRefusalCode,
    detail: string,
    answer: 'decline' | 'cancel' = 'decline',
  ): Promise<Answer> {
    this.options.onEvent({ type: 'request-refused', method, code, detail, answer })
    return Promise.resolve({ decision: answer })
  }

  protected onNotification(method: string, params: unknown): void {
    switch (method) {
      case 'item/started':
      case 'item/completed':
        this.onItem(params, method === 'item/completed')
        return
      case 'turn/completed':
        this.onTurnCompleted(params)
        return
      case 'serverRequest/resolved': {
        const parsed = CodexServerRequestResolvedSchema.safeParse(params)
        if (parsed.success) this.approvals.withdraw(requestKey(parsed.data.requestId))
        return
      }
      case 'warning':
      case 'configWarning': {
        const parsed = CodexWarningSchema.safeParse(params)
        if (parsed.success) this.warn(parsed.data.message)
        return
      }
      case 'error': {
        const parsed = CodexErrorNotificationSchema.safeParse(params)
        if (parsed.success) this.warn(parsed.data.error.message)
        return
      }
    }
  }

  private onItem(params: unknown, completed: boolean): void {
    const parsed = CodexItemNotificationSchema.safeParse(params)
    if (!parsed.success || parsed.data.threadId !== this.threadId) return
    const { item, turnId } = parsed.data
    const command = CodexCommandItemSchema.safeParse(item)
    if (command.success) {
      const { cwd, exitCode, aggregatedOutput } = command.data
      this.toolCall(
        command.data.id,
        codexItemStatus(command.data.status, exitCode),
        { kind: 'command', commandLine: command.data.command, argv: null, cwd },
        aggregatedOutput ?? null,
        exitCode ?? null,
      )
      return
    }
    const fileChange = CodexFileChangeItemSchema.safeParse(item)
    if (fileChange.success) {
      this.fileChanges.set(fileChange.data.id, { turnId, item: fileChange.data })
      const changes = codexFileChanges(fileChange.data, this.options.workspace)
      this.toolCall(fileChange.data.id, codexItemStatus(fileChange.data.status, null), {
        kind: 'file-changes',
        changes,
      })
      return
    }
    const message = CodexAgentMessageItemSchema.safeParse(item)
    if (message.success && completed && message.data.text !== '') {
      this.options.onEvent({
        type: 'agent-message',
        messageId: message.data.id,
        text: boundedText(message.data.text),
      })
    }
  }

  private onTurnCompleted(params: unknown): void {
    const parsed = CodexTurnCompletedSchema.safeParse(params)
    if (!parsed.success || !this.turn || parsed.data.threadId !== this.threadId) return
    if (this.turnId !== null && parsed.data.turn.id !== this.turnId) return
    const { status, error } = parsed.data.turn
    this.endTurn({
      status: status === 'inProgress' ? 'failed' : status,
      detail: error?.message ?? null,
    })
  }

  private toolCall(
    toolCallId: string,
    status: ToolCallStatus,
    action: ExternalAction,
    output: string | null = null,
    exitCode: number | null = null,
  ): void {
    this.options.onEvent({
      type: 'tool-call',
      toolCallId,
      title: actionTitle(action),
      status: status === 'denied' && this.expired.has(toolCallId) ? 'expired' : status,
      action,
      output: output === null ? null : boundedText(output),
      exitCode,
    })
  }
}

/** Codex numbers its requests; the key keeps a number and a string apart. */
function requestKey(id: RpcId): string {
  return `${typeof id}:${id}`
}
