import { randomUUID } from 'node:crypto'
import type { DatabaseSync } from 'node:sqlite'
import type { ApprovalRecord } from '../contracts/approval.ts'
import { dispositionFor, grantsHonoured } from '../contracts/policy.ts'
import type { ToolCallRecord, Turn } from '../contracts/room.ts'
import type { EventBus } from '../events/event-bus.ts'
import type { ApprovalGate } from '../gate/approval-gate.ts'
import { reviewFailClosed, type ActionReviewer } from '../policy/reviewer.ts'
import { checkToolAccess } from '../policy/sandbox.ts'
import { getTool } from '../tools/registry.ts'
import type { ToolDefinition, ToolResult } from '../tools/tool-types.ts'
import type { AuditAppender } from '../store/audit-log.ts'
import type { SqliteConversationRepository } from '../store/conversation-repository.ts'
import { inTransaction } from '../store/database.ts'
import type { SqliteGrantRepository } from '../store/grant-repository.ts'
import { McpRoomCalls } from '../mcp/mcp-room-calls.ts'
import { fullAccessBlocker, type AgentPreset } from './agents.ts'
import type { InputRequestService } from '../input/input-request-service.ts'
import { askInTurn } from './input-steps.ts'
import type { AgentModel } from './offline-model.ts'

export const DEFAULT_TOOL_TIMEOUT_MS = 30_000
export const REVIEWER_TIMEOUT_MS = 5_000

export interface AgentRunnerOptions {
  db: DatabaseSync
  conversations: SqliteConversationRepository
  grants: SqliteGrantRepository
  audit: AuditAppender
  gate: ApprovalGate
  inputs: InputRequestService
  events: EventBus
  model: AgentModel
  reviewer: ActionReviewer
  agentFor: (agentId: string) => AgentPreset | undefined
  now: () => number
  approvalTtlMs: () => number
  /** Resolves once every write committed so far is on disk (the store's
   *  group commit, store/durability.ts). */
  durable: () => Promise<void>
  /** MCP tool calls (`server__tool`); without it, such a name is unknown. */
  mcp?: McpRoomCalls
  newId?: () => string
}

interface PlannedCall {
  tool: string
  arguments: Record<string, unknown>
}

/**
 * Runs one turn of the agent: every tool call goes through the turn's frozen
 * policy, the sandbox, the agent's ceilings and, where the policy asks, the
 * approval gate. A tool runs only after its tool call is durably marked
 * `running`, which happens only after an allowing decision is committed.
 */
export class AgentRunner {
  private readonly options: AgentRunnerOptions
  private readonly newId: () => string
  private readonly active = new Set<Promise<void>>()

  constructor(options: AgentRunnerOptions) {
    this.options = options
    this.newId = options.newId ?? randomUUID
  }

  /** Starts the turn in the background; `settled()` waits for all of them. */
  start(turn: Turn, agentId: string): void {
    const work = this.runTurn(turn, agentId).finally(() => this.active.delete(work))
    this.active.add(work)
  }

  async settled(): Promise<void> {
    while (this.active.size > 0) await Promise.allSettled([...this.active])
  }

  private async runTurn(turn: Turn, agentId: string): Promise<void> {
    const agent = this.options.agentFor(agentId)
    if (!agent) return this.finishTurn(turn, 'failed', `The agent ${agentId} is not configured.`)
    // Ceilings are checked again at admission: a full-access policy stored
    // for an agent that may not have it never reaches a tool.
    const blocker = fullAccessBlocker(agent)
    if (turn.policy.sandboxMode === 'danger-full-access' && blocker) {
      return this.finishTurn(
        turn,
        'failed',
        `Full access is unavailable for this agent (${blocker}).`,
      )
    }
    try {
      const plan = this.options.model.respond({ text: turn.text })
      this.message(turn, 'agent', plan.reply)
      let seq = 0
      for (const step of plan.steps) {
        if (step.type === 'tool') {
          await this.runToolCall(turn, agent, seq, step.call)
          seq += 1
          continue
        }
        const reply = await askInTurn(this.options.inputs, turn, step, (waiting) =>
          this.options.conversations.setTurnStatus(turn.id, waiting ? 'waiting' : 'running'),
        )
        this.message(turn, reply.role, reply.text)
      }
      this.finishTurn(turn, 'done')
    } catch (error) {
      this.finishTurn(turn, 'failed', `The turn stopped: ${(error as Error).message}`)
    }
  }

  private async runToolCall(
    turn: Turn,
    agent: AgentPreset,
    seq: number,
    planned: PlannedCall,
  ): Promise<void> {
    const at = this.options.now()
    const call: ToolCallRecord = {
      id: this.newId(),
      roomId: turn.roomId,
      turnId: turn.id,
      seq,
      toolName: planned.tool,
      arguments: planned.arguments,
      status: 'awaiting-approval',
      result: null,
      approvalId: null,
      createdAt: at,
      updatedAt: at,
    }
    this.options.conversations.insertToolCall(call)
    if (this.options.mcp && McpRoomCalls.isMcpToolName(planned.tool)) {
      const outcome = await this.options.mcp.run(turn, agent, call)
      return this.settle(call, outcome.status, outcome.result)
    }
    const tool = getTool(planned.tool)
    if (!tool) {
      return this.settle(call, 'failed', refusal(`Unknown tool ${planned.tool}.`, 'unknown_tool'))
    }
    if (agent.allowedTools && !agent.allowedTools.includes(tool.name)) {
      return this.settle(
        call,
        'refused',
        refusal(`${agent.name} may not use ${tool.name}.`, 'tool_not_allowed'),
      )
    }
    const parsed = tool.argsSchema.safeParse(planned.arguments)
    if (!parsed.success) {
      return this.settle(
        call,
        'failed',
        refusal(`Invalid arguments: ${parsed.error.message}`, 'invalid_arguments'),
      )
    }
    await this.decideAndRun(turn, agent, call, tool as ToolDefinition<unknown>, parsed.data)
  }

  private async decideAndRun(
    turn: Turn,
    agent: AgentPreset,
    call: ToolCallRecord,
    tool: ToolDefinition<unknown>,
    args: unknown,
  ): Promise<void> {
    const access = await this.checkAccess(turn, agent, tool, args)
    if (!access.allowed) return this.settle(call, 'refused', refusal(access.reason, access.code))

    const destructive = tool.destructive(args)
    const disposition = dispositionFor(turn.policy.approvalPolicy, tool.effect, destructive)
    if (disposition === 'deny') {
      const policy = turn.policy.approvalPolicy
      return this.settle(
        call,
        'denied',
        refusal(
          `The room's approval policy (${policy}) does not allow ${tool.name}.`,
          'policy_denied',
        ),
      )
    }
    if (disposition === 'run') {
      return this.execute(turn, agent, call, tool, args, { type: 'tool_allowed_by_policy' })
    }
    if (grantsHonoured(turn.policy.approvalPolicy)) {
      const grantId = this.matchingGrant(turn, tool.name, args)
      if (grantId) {
        return this.execute(turn, agent, call, tool, args, {
          type: 'tool_allowed_by_grant',
          grantId,
        })
      }
    }

    const approval = this.options.gate.open({
      id: this.newId(),
      roomId: turn.roomId,
      turnId: turn.id,
      toolCallId: call.id,
      kind: tool.kind,
      toolName: tool.name,
      arguments: call.arguments,
      workingDirectory: workingDirectoryOf(turn, args),
      sandboxMode: turn.policy.sandboxMode,
      summary: tool.summarize(args),
      ttlMs: this.options.approvalTtlMs(),
    })
    this.options.conversations.updateToolCall(call.id, {
      status: 'awaiting-approval',
      approvalId: approval.id,
      at: this.options.now(),
    })
    this.options.conversations.setTurnStatus(turn.id, 'waiting')
    this.options.events.emit('timeline.updated', { roomId: turn.roomId })

    if (turn.policy.approvalReviewer === 'agent') {
      await this.reviewAutomatically(turn, approval, tool, args, access.paths, destructive)
    }
    const outcome = await this.options.gate.waitForOutcome(approval.id)
    this.options.conversations.setTurnStatus(turn.id, 'running')
    if (outcome.status === 'allowed') return this.execute(turn, agent, call, tool, args, null)
    if (outcome.status === 'expired') {
      return this.settle(
        call,
        'expired',
        refusal('Nobody confirmed this action in time; it did not run.', 'approval_expired'),
      )
    }
    const why = outcome.reason ? `: ${outcome.reason}` : ''
    return this.settle(call, 'denied', refusal(`Denied${why}; it did not run.`, 'approval_denied'))
  }

  private async reviewAutomatically(
    turn: Turn,
    approval: ApprovalRecord,
    tool: ToolDefinition<unknown>,
    args: unknown,
    resolvedPaths: string[],
    destructive: boolean,
  ): Promise<void> {
    const verdict = await reviewFailClosed(
      this.options.reviewer,
      {
        toolName: tool.name,
        effect: tool.effect,
        destructive,
        arguments: approval.arguments,
        workspace: turn.workspace,
        resolvedPaths,
        insideWorkspace: await this.insideWorkspace(turn, tool, args),
      },
      REVIEWER_TIMEOUT_MS,
    )
    // Escalation leaves the approval pending for the person, who decides in
    // the protected window like any other approval.
    if (verdict.verdict === 'escalate') return
    await this.options.gate.decide({
      approvalId: approval.id,
      decision: verdict.verdict === 'allow' ? 'allow-once' : 'deny',
      decidedBy: 'agent-review',
      reason: verdict.reason,
    })
  }

  private async insideWorkspace(
    turn: Turn,
    tool: ToolDefinition<unknown>,
    args: unknown,
  ): Promise<boolean> {
    const check = await checkToolAccess({
      sandboxMode: 'workspace-write',
      effect: 'write',
      paths: tool.targetPaths(args),
      workspace: turn.workspace,
      agent: { readOnly: false },
    })
    return check.allowed
  }

  private checkAccess(
    turn: Turn,
    agent: AgentPreset,
    tool: ToolDefinition<unknown>,
    args: unknown,
  ) {
    return checkToolAccess({
      sandboxMode: turn.policy.sandboxMode,
      effect: tool.effect,
      paths: tool.targetPaths(args),
      workspace: turn.workspace,
      agent: {
        readOnly: agent.toolPolicy.readOnly,
        ...(agent.allowedRepositoryRoots
          ? { allowedRepositoryRoots: agent.allowedRepositoryRoots }
          : {}),
      },
    })
  }

  /** Only a command can match a grant, and only the exact command line it
   *  was granted for: a grant without a command (a legacy row for a file
   *  write) would otherwise answer for every call of its tool. */
  private matchingGrant(turn: Turn, toolName: string, args: unknown): string | undefined {
    const command = grantableCommand(args)
    if (command === null) return undefined
    const key = JSON.stringify(command)
    return this.options.grants
      .listActive(turn.roomId)
      .find(
        (grant) =>
          grant.toolName === toolName &&
          grant.command !== null &&
          JSON.stringify(grant.command) === key,
      )?.id
  }

  /**
   * Runs the tool. The sandbox is checked again right before the run, on the
   * paths it resolves now: a symlink swapped in while the person was deciding
   * must not redirect an approved write.
   */
  private async execute(
    turn: Turn,
    agent: AgentPreset,
    call: ToolCallRecord,
    tool: ToolDefinition<unknown>,
    args: unknown,
    auditEvent: { type: string; grantId?: string } | null,
  ): Promise<void> {
    const access = await this.checkAccess(turn, agent, tool, args)
    if (!access.allowed) return this.settle(call, 'refused', refusal(access.reason, access.code))
    const at = this.options.now()
    inTransaction(this.options.db, () => {
      if (auditEvent) {
        this.options.audit.append({
          type: auditEvent.type,
          subjectId: call.id,
          payload: {
            roomId: turn.roomId,
            turnId: turn.id,
            toolName: tool.name,
            grantId: auditEvent.grantId ?? null,
          },
          at,
        })
      }
      this.options.conversations.updateToolCall(call.id, { status: 'running', at })
    })
    this.options.events.emit('timeline.updated', { roomId: turn.roomId })
    let result: ToolResult
    try {
      // The decision, its audit event and "running" must be on disk before
      // the tool acts: after a power loss the record shows it may have run.
      // If they cannot be made durable, the tool does not run.
      await this.options.durable()
      result = await tool.run(args, {
        workspace: turn.workspace,
        resolvedPaths: access.paths,
        timeoutMs: DEFAULT_TOOL_TIMEOUT_MS,
      })
    } catch (error) {
      result = refusal(`The tool failed: ${(error as Error).message}`, 'tool_error')
    }
    this.settle(call, result.ok ? 'succeeded' : 'failed', result)
  }

  private settle(call: ToolCallRecord, status: ToolCallRecord['status'], result: ToolResult): void {
    this.options.conversations.updateToolCall(call.id, {
      status,
      result: toRecordResult(result),
      at: this.options.now(),
    })
    this.options.events.emit('timeline.updated', { roomId: call.roomId })
  }

  private message(turn: Turn, role: 'agent' | 'system', text: string): void {
    this.options.conversations.insertMessage({
      id: this.newId(),
      roomId: turn.roomId,
      turnId: turn.id,
      role,
      text,
      createdAt: this.options.now(),
    })
    this.options.events.emit('timeline.updated', { roomId: turn.roomId })
  }

  private finishTurn(turn: Turn, status: 'done' | 'failed', note?: string): void {
    if (note) this.message(turn, 'system', note)
    this.options.conversations.setTurnStatus(turn.id, status)
    this.options.events.emit('timeline.updated', { roomId: turn.roomId })
  }
}

function refusal(output: string, code: string): ToolResult {
  return { ok: false, output, code }
}

/**
 * The command line an allow-always grant may stand for: the argv of a call
 * that has nothing but an argv (no shell, no other working directory, no
 * timeout), or null. The grant stores only the argv, so a call with more
 * arguments (the same words handed to a shell, say) is not what the person
 * saw and must ask again.
 */
export function grantableCommand(args: unknown): string[] | null {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return null
  if (!('argv' in args) || Object.keys(args).length !== 1) return null
  return Array.isArray(args.argv) ? args.argv.map(String) : null
}

function workingDirectoryOf(turn: Turn, args: unknown): string {
  if (typeof args === 'object' && args !== null && 'cwd' in args && typeof args.cwd === 'string') {
    return args.cwd
  }
  return turn.workspace
}

function toRecordResult(result: ToolResult): ToolCallRecord['result'] {
  return {
    ok: result.ok,
    output: result.output,
    ...(result.exitCode === undefined ? {} : { exitCode: result.exitCode }),
    ...(result.code === undefined ? {} : { code: result.code }),
  }
}
