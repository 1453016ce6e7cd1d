import type { CommandContainment } from '../../contracts/command-containment.ts'
import type { ToolCallRecord, Turn } from '../../contracts/room.ts'
import type { AgentPreset } from '../domain/agent-preset.ts'
import type { AgentToolCall } from './agent-model.ts'
import type { TurnWidenings } from './permission-request-runner.ts'
import type { ApprovalRequest } from '../gate/approval-requester.ts'
import type { ReviewInput } from '../policy/reviewer.ts'
import { checkToolAccess } from '../policy/sandbox.ts'
import { pinnedWorkspaceOf } from '../policy/workspace-identity.ts'
import type { FileObservation, ToolDefinition } from '../tools/tool-types.ts'

/** One call that needs a decision: the tool, its parsed arguments, the real
 *  paths the sandbox resolved, and whether it is destructive. */
export interface CallNeedingDecision {
  call: ToolCallRecord
  tool: ToolDefinition<unknown>
  args: unknown
  resolvedPaths: string[]
  destructive: boolean
  /** A file tool's target (and a write's preview), observed before asking:
   *  part of the canonical action, so the decision is bound to them. */
  observation?: FileObservation
  /** Why a read reaches beyond the workspace (read-reach.ts), or null:
   *  what the policy does with the call. Who may decide it is the
   *  requester's to judge, for every door alike (private-read-approval.ts). */
  privateRead: string | null
  /** For a command: what the OS lets it do, shown to the person and bound
   *  into the action digest. */
  containment?: CommandContainment
}

/**
 * What the gate's requester is asked for one built-in tool call: the
 * action as the runtime will run it, the real paths the sandbox check
 * resolved, and its description for the approve-for-me reviewer.
 *
 * A private read is never handed to the reviewer, whichever reviewer is
 * plugged in, nor to the room's approver webhook: the requester keeps it
 * from both, judging the stored action and these paths
 * (private-read-approval.ts), as it does for every other door.
 */
export function decisionRequest(turn: Turn, pending: CallNeedingDecision): ApprovalRequest {
  const { call, tool, args } = pending
  return {
    turn,
    call,
    action: {
      kind: tool.kind,
      toolName: tool.name,
      arguments: call.arguments,
      workingDirectory: workingDirectoryOf(turn, tool, pending.resolvedPaths),
      summary: tool.summarize(args),
      ...(pending.observation === undefined ? {} : pending.observation),
      ...(pending.containment === undefined ? {} : { containment: pending.containment }),
      ...(tool.summaryMessage ? { summaryMessage: tool.summaryMessage(args) } : {}),
    },
    review: reviewOf(turn, pending),
    resolvedPaths: pending.resolvedPaths,
  }
}

function reviewOf(turn: Turn, pending: CallNeedingDecision): () => Promise<ReviewInput> {
  const { call, tool, args } = pending
  return async () => ({
    toolName: tool.name,
    effect: tool.effect,
    destructive: pending.destructive,
    arguments: call.arguments,
    workspace: turn.workspace,
    resolvedPaths: pending.resolvedPaths,
    insideWorkspace: await insideWorkspace(turn, tool, args),
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
    ...pinnedWorkspaceOf(turn),
  })
  return check.allowed
}

/** Where the action runs, as the window shows it: for a command, the
 *  real folder the sandbox check resolved its `cwd` to (a link in the
 *  workspace is shown as where it leads, and a relative one is never
 *  resolved again by whoever draws it); otherwise the workspace. */
function workingDirectoryOf(
  turn: Turn,
  tool: ToolDefinition<unknown>,
  resolvedPaths: readonly string[],
): string {
  if (tool.kind === 'run-command') return resolvedPaths[0] ?? turn.workspace
  return turn.workspace
}

/** A call that stopped where it needs a decision: what the requester is
 *  asked, and what finishing the call needs once the decision comes. */
export interface AskingForDecision {
  type: 'asking'
  request: ApprovalRequest
  waiting: WaitingCall
}

/** A call waiting for its decision, as data: its record, the step the
 *  model planned, the tool and its parsed arguments. What the approval
 *  shows (a write's preview among it) is stored with the approval and is
 *  not kept here. */
export interface WaitingCall {
  scope: CallScope
  call: ToolCallRecord
  planned: AgentToolCall
  tool: ToolDefinition<unknown>
  args: unknown
  /** The real paths the call was asked about: it runs on these or not at
   *  all. */
  judgedPaths: readonly string[]
}

/** Where a call needs a decision, what it needs one on. */
export interface Asking {
  asking: CallNeedingDecision
}

/** The call's turn, its agent, and what the person widened in this turn. */
export interface CallScope {
  turn: Turn
  agent: AgentPreset
  widenings: TurnWidenings
}
