import type { ApprovalRecord } from '../../contracts/approval.ts'
import type { ToolCallRecord, Turn } from '../../contracts/room.ts'
import type { EventBus } from '../events/event-bus.ts'
import type { ApprovalGate } from '../gate/approval-gate.ts'
import { reviewFailClosed, type ActionReviewer } from '../policy/reviewer.ts'
import { checkToolAccess } from '../policy/sandbox.ts'
import type { ApprovalStore } from '../ports/approval-store.ts'
import type { ConversationStore } from '../ports/conversation-store.ts'
import type { ToolDefinition } from '../tools/tool-types.ts'

export const REVIEWER_TIMEOUT_MS = 5_000

export interface ApprovalWaitDeps {
  conversations: ConversationStore
  approvals: ApprovalStore
  gate: ApprovalGate
  events: EventBus
  reviewer: ActionReviewer
  reviewerTimeoutMs: number
  now: () => number
  approvalTtlMs: () => number
  newId: () => string
}

/** One call that needs a decision: the tool, its parsed arguments, the real
 *  paths the sandbox resolved, and whether it is destructive. */
export interface CallNeedingDecision {
  call: ToolCallRecord
  tool: ToolDefinition<unknown>
  args: unknown
  resolvedPaths: string[]
  destructive: boolean
}

/**
 * Opens an approval for the call, lets the approve-for-me reviewer decide it
 * where the turn's policy says so, and waits until it is decided or expires.
 * The turn shows as waiting meanwhile.
 */
export async function decisionFor(
  deps: ApprovalWaitDeps,
  turn: Turn,
  pending: CallNeedingDecision,
): Promise<ApprovalRecord> {
  const { call, tool, args } = pending
  const approval = deps.gate.open({
    id: deps.newId(),
    roomId: turn.roomId,
    turnId: turn.id,
    toolCallId: call.id,
    kind: tool.kind,
    toolName: tool.name,
    arguments: call.arguments,
    workingDirectory: workingDirectoryOf(turn, args),
    sandboxMode: turn.policy.sandboxMode,
    summary: tool.summarize(args),
    ttlMs: deps.approvalTtlMs(),
  })
  deps.conversations.updateToolCall(call.id, {
    status: 'awaiting-approval',
    approvalId: approval.id,
    at: deps.now(),
  })
  deps.conversations.setTurnStatus(turn.id, 'waiting')
  deps.events.emit('timeline.updated', { roomId: turn.roomId })

  if (turn.policy.approvalReviewer === 'agent') {
    await reviewAutomatically(deps, turn, approval, pending)
  }
  const outcome = await deps.gate.waitForOutcome(approval.id)
  deps.conversations.setTurnStatus(turn.id, 'running')
  return outcome
}

async function reviewAutomatically(
  deps: ApprovalWaitDeps,
  turn: Turn,
  approval: ApprovalRecord,
  pending: CallNeedingDecision,
): Promise<void> {
  const verdict = await reviewFailClosed(
    deps.reviewer,
    {
      toolName: pending.tool.name,
      effect: pending.tool.effect,
      destructive: pending.destructive,
      arguments: approval.arguments,
      workspace: turn.workspace,
      resolvedPaths: pending.resolvedPaths,
      insideWorkspace: await insideWorkspace(turn, pending.tool, pending.args),
    },
    deps.reviewerTimeoutMs,
  )
  if (verdict.verdict === 'escalate') {
    // Escalation leaves the approval pending for the person, who decides in
    // the protected window like any other approval; the reviewer's reason is
    // kept on the approval and in the audit log so they can see why.
    deps.approvals.escalate(approval, verdict.reason, deps.now())
    deps.events.emit('timeline.updated', { roomId: turn.roomId })
    return
  }
  await deps.gate.decide({
    approvalId: approval.id,
    decision: verdict.verdict === 'allow' ? 'allow-once' : 'deny',
    decidedBy: 'agent-review',
    reason: verdict.reason,
  })
}

/** Whether every path of the call lies inside the workspace, whatever the
 *  room's sandbox: the reviewer judges the place, not the mode. */
async function insideWorkspace(
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

function workingDirectoryOf(turn: Turn, args: unknown): string {
  if (typeof args === 'object' && args !== null && 'cwd' in args && typeof args.cwd === 'string') {
    return args.cwd
  }
  return turn.workspace
}
