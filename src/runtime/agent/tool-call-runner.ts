import { englishText, message } from '../../contracts/runtime-message.ts'
import { dispositionFor, privateReadDisposition } from '../policy/approval-policy.ts'
import { isPlanPolicy } from '../policy/permission-modes.ts'
import { offeredTo } from './offered-tools.ts'
import { stopWhenNarrowed } from './narrowed-command-stop.ts'
import {
  allowerStands,
  allowerOfApproval,
  turnInForce,
  type RoomNow,
} from '../policy/allower-stands.ts'
import type { ToolCallRecord, Turn } from '../../contracts/room.ts'
import { privateReadReason } from '../policy/read-reach.ts'
import { getTool } from '../tools/registry.ts'
import type { FileObservation, ToolDefinition, ToolResult } from '../tools/tool-types.ts'
import type { AgentToolCall } from './agent-model.ts'
import type { AgentPreset } from '../domain/agent-preset.ts'
import type { EventBus } from '../events/event-bus.ts'
import type { ApprovalRecord } from '../../contracts/approval.ts'
import type { ConversationStore } from '../ports/conversation-store.ts'
import type { WhenDurable } from '../ports/durability.ts'
import type { GrantStore } from '../ports/grant-store.ts'
import type { McpToolCalls } from '../ports/mcp-tool-calls.ts'
import type { CommandLauncher } from '../tools/command-launcher.ts'
import type { CommandContainment } from '../../contracts/command-containment.ts'
import {
  type Execution,
  type Settled,
  refusedAfterConsent,
  refusedAsFallen,
  deniedByPolicy,
  said,
  refusedAccess,
  refusal,
  notAllowed,
  recordOutcome,
  type ToolOutcome,
} from './call-settlement.ts'
import {
  decisionRequest,
  type Asking,
  type AskingForDecision,
  type CallScope,
  type WaitingCall,
} from './approval-wait.ts'
import { recordProposedCall } from './call-record.ts'
import { checkCallAccess, judgedChange, type Judged } from './judged-target.ts'
import { grantMatches } from './grant-scope.ts'
import { grantThatMayAnswer } from '../policy/person-only.ts'
import {
  movedSinceAsked,
  pinnedWidenedRoots,
  widenedRoots,
  type TurnWidenings,
} from './permission-request-runner.ts'

export const DEFAULT_TOOL_TIMEOUT_MS = 30_000

export interface ToolCallRunnerDeps {
  conversations: ConversationStore
  grants: GrantStore
  events: EventBus
  now: () => number
  newId: () => string
  /** Resolves once every write committed so far is on disk. */
  durable: WhenDurable
  mcp?: McpToolCalls
  /** What every command is started through, contained as the turn's
   *  sandbox mode promises. */
  commands: CommandLauncher
  /** The room now: a call is judged, and run, under the narrower of the
   *  turn's frozen policy and the room's (policy/allower-stands.ts). */
  room: RoomNow
}

/**
 * Runs one tool call the model proposed: through the turn's frozen policy,
 * the sandbox, the agent's ceilings, a matching grant or, where the policy
 * asks, the approval gate. A tool runs only after its call is durably marked
 * `running`, which happens only after an allowing decision is committed.
 * Every way the call ends is recorded on it and returned to the model.
 */
export class ToolCallRunner {
  private readonly deps: ToolCallRunnerDeps

  constructor(deps: ToolCallRunnerDeps) {
    this.deps = deps
  }

  /**
   * Runs the call as far as it goes without a decision: to its end, or to
   * the request a person (or whoever decides in their place) must answer.
   * The caller asks the requester and, once the decision comes, finishes
   * the call with `afterDecision`; what that needs is kept as data.
   */
  async run(
    turn: Turn,
    agent: AgentPreset,
    seq: number,
    planned: AgentToolCall,
    widenings: TurnWidenings = { writableRoots: [] },
  ): Promise<ToolOutcome | AskingForDecision> {
    const call = recordProposedCall(this.deps, turn, seq, planned.tool, planned.arguments)
    // Judged under the room's mode now where it is narrower than the one
    // the turn froze (the person entered plan mid-turn); never wider.
    const scope = { turn: turnInForce(turn, this.deps.room), agent, widenings }
    const outcome = await this.outcomeOf(scope, call, planned)
    if ('asking' in outcome) {
      const { tool, args, resolvedPaths } = outcome.asking
      return {
        type: 'asking',
        request: decisionRequest(turn, outcome.asking),
        waiting: { scope, call, planned, tool, args, judgedPaths: resolvedPaths },
      }
    }
    return recordOutcome(this.deps, call, planned, outcome)
  }

  /** Finishes a call once its decision has come: runs it if it was
   *  allowed, and records how it ended. The turn, shown waiting until then,
   *  is written running again with the call's first write (marked running,
   *  or its end). */
  async afterDecision(waiting: WaitingCall, decided: ApprovalRecord): Promise<ToolOutcome> {
    const { scope, call, planned, tool, args, judgedPaths } = waiting
    const settled = await this.decided(scope, call, tool, args, decided, judgedPaths)
    return recordOutcome(this.deps, call, planned, settled, { turnWaited: true })
  }

  private async outcomeOf(
    scope: CallScope,
    call: ToolCallRecord,
    planned: AgentToolCall,
  ): Promise<Settled | Asking> {
    const { turn, agent } = scope
    const mcp = this.deps.mcp?.handles(planned.tool) === true
    const tool = mcp ? undefined : getTool(planned.tool)
    // Plan mode offers only what runs without consent; a call for anything
    // else (an MCP tool included: a server's word that it only reads is not
    // the runtime's) is refused before any policy, grant or person is
    // consulted, so planning never interrupts the person.
    if (isPlanPolicy(turn.policy) && (mcp || !tool || !offeredTo(agent, turn, tool))) {
      return said(
        'refused',
        message('call.notOfferedInPlan', { tool: planned.tool }),
        'not_offered_in_plan',
      )
    }
    if (mcp && this.deps.mcp) return this.deps.mcp.run(turn, agent, call)
    if (!tool)
      return said('failed', message('call.unknownTool', { tool: planned.tool }), 'unknown_tool')
    if (agent.allowedTools && !agent.allowedTools.includes(tool.name)) {
      return said(
        'refused',
        message('call.toolNotAllowed', { agent: agent.name, tool: tool.name }),
        'tool_not_allowed',
      )
    }
    const parsed = tool.argsSchema.safeParse(planned.arguments)
    if (!parsed.success) {
      return said(
        'failed',
        message('call.invalidArguments', { detail: parsed.error.message }),
        'invalid_arguments',
      )
    }
    return this.decideAndRun(scope, call, tool as ToolDefinition<unknown>, parsed.data)
  }

  private async decideAndRun(
    scope: CallScope,
    call: ToolCallRecord,
    tool: ToolDefinition<unknown>,
    args: unknown,
  ): Promise<Settled | Asking> {
    const { turn } = scope
    // The sandbox comes first: nothing below (a grant, a reviewer, a person)
    // can allow what the turn's sandbox and the agent's ceilings refuse.
    const access = await checkCallAccess(scope, tool, args)
    if (!access.allowed) return refusedAccess(access, tool, args)
    // What contains a command is decided before anyone is asked: a command
    // no sandbox could contain is refused now rather than allowed and then
    // refused, and the person is shown what the allowed command can do.
    let containment: CommandContainment | undefined
    if (tool.kind === 'run-command') {
      const contained = await this.deps.commands.containmentFor({
        sandboxMode: turn.policy.sandboxMode,
        workspace: turn.workspace,
        extraWritableRoots: widenedRoots(scope.widenings),
      })
      if (!contained.ok) return said('refused', contained.message, contained.code)
      containment = contained.containment
    }

    const destructive = tool.destructive(args)
    const policy = turn.policy.approvalPolicy
    const privateRead =
      tool.effect === 'read'
        ? privateReadReason({
            workspace: turn.workspace,
            requested: tool.targetPaths(args),
            resolved: access.paths,
          })
        : null
    const disposition =
      privateRead === null
        ? dispositionFor(policy, tool.effect, destructive)
        : privateReadDisposition(policy)
    if (disposition === 'deny') return deniedByPolicy(policy, tool.name, privateRead)
    if (disposition === 'run') {
      // A read the policy lets run because it stays in the workspace must
      // still stay there when the file is opened; where the policy would let
      // even a private read run, it reads freely.
      const reach = privateReadDisposition(policy) === 'run' ? 'any' : 'workspace'
      const allower = {
        by: 'policy' as const,
        effect: tool.effect,
        destructive,
        privateRead: privateRead !== null,
      }
      const allowedBy = { type: 'tool_allowed_by_policy' as const }
      const how: Execution = { allowedBy, allower, readReach: reach }
      return this.execute(scope, call, tool, args, how, { paths: access.paths })
    }

    // A file tool observes its target before anyone is asked: a target it
    // could never act on (several names, a link in the path) is refused
    // now, and what it observed is bound into the approval.
    let observation: FileObservation | undefined
    if (tool.observe) {
      const observed = await tool.observe(args, access.paths)
      if ('ok' in observed) return { status: 'refused', result: observed }
      observation = observed
    }

    // A grant speaks for the workspace it was given in: a write let out of
    // it by this turn's permission request asks, whatever grant there is,
    // and so does a command while the turn has a widened folder, since
    // the sandbox would let it write there too, which the grant's maker
    // never saw (a person allowing it is shown every folder it may write).
    const widenedCommand = tool.kind === 'run-command' && widenedRoots(scope.widenings).length > 0
    // Nor does a grant answer a command the sandbox would not contain (it
    // was given for one it did, or shown as uncontained to a person who
    // may not have let it run so again), nor a private read, which only the
    // person who sees that very place may allow (private-read-approval.ts).
    const uncontained = tool.kind === 'run-command' && containment?.contained !== true
    if (access.widened !== true && !widenedCommand && !uncontained && privateRead === null) {
      const grant = grantThatMayAnswer(
        {
          toolName: tool.name,
          arguments: args,
          workspace: turn.workspace,
          resolvedPaths: access.paths,
        },
        policy,
        () =>
          this.deps.grants
            .listActive(turn.roomId)
            .find((candidate) =>
              grantMatches(candidate, { toolName: tool.name, args, resolvedPaths: access.paths }),
            ),
      )
      if (grant) {
        return this.execute(
          scope,
          call,
          tool,
          args,
          {
            allowedBy: { type: 'tool_allowed_by_grant', grantId: grant.id },
            allower: { by: 'grant', grantId: grant.id },
            readReach: 'any',
          },
          { paths: access.paths, ...(observation && { target: observation.target }) },
        )
      }
    }

    return {
      asking: {
        call,
        tool,
        args,
        resolvedPaths: access.paths,
        destructive,
        ...(observation === undefined ? {} : { observation }),
        ...(containment === undefined ? {} : { containment }),
        privateRead,
      },
    }
  }

  /** What a decided call comes to: run where it was allowed (on the paths
   *  it was asked about, the file it acts on being the one the approval
   *  bound), refused otherwise. */
  private async decided(
    scope: CallScope,
    call: ToolCallRecord,
    tool: ToolDefinition<unknown>,
    args: unknown,
    decided: ApprovalRecord,
    judgedPaths: readonly string[],
  ): Promise<Settled> {
    if (decided.status === 'allowed') {
      const { target } = decided
      return this.execute(
        scope,
        call,
        tool,
        args,
        {
          allowedBy: null,
          allower: allowerOfApproval(decided),
          readReach: 'any',
          approval: decided,
        },
        { paths: judgedPaths, ...(target && { target }) },
      )
    }
    return notAllowed(decided)
  }

  /**
   * Runs the tool, on what it was `judged` on only, however it was
   * answered (the mode, a grant, the reviewer, the webhook, the person).
   * The sandbox is checked again right before the run: paths that resolve
   * elsewhere now (a symlink swapped in since) are refused and audited,
   * never run. Where a file's identity was bound (an approval's target, or
   * the one observed before a grant answered), the file is observed again
   * too, and the tool checks the same once more at the last moment.
   */
  private async execute(
    scope: CallScope,
    call: ToolCallRecord,
    tool: ToolDefinition<unknown>,
    args: unknown,
    how: Execution,
    judged: Judged,
  ): Promise<Settled> {
    const { turn } = scope
    const access = await checkCallAccess(scope, tool, args)
    if (!access.allowed) return refusedAccess(access, tool, args)
    const changed = await judgedChange(judged, access.paths)
    if (changed !== null) return refusedAfterConsent(changed, how.approval?.id ?? null)
    const bound = judged.target
    // A call run after a decision ends its turn's wait in the same write.
    const turnStatus = how.approval === undefined ? undefined : 'running'
    this.deps.conversations.markRunning(call, this.deps.now(), how.allowedBy, turnStatus)
    this.deps.events.emit('timeline.updated', { roomId: turn.roomId })
    let result: ToolResult
    // Stopped if what allowed it falls while it runs (a command).
    const stop = stopWhenNarrowed(this.deps.events, this.deps.room, turn, how.allower)
    try {
      // The decision, its audit event and "running" must be on disk before
      // the tool acts: after a power loss the record shows it may have run.
      // If they cannot be made durable, the tool does not run.
      await this.deps.durable()
      // Last, after the wait for the disk, as at the MCP door: a workspace
      // or a widened folder swapped, replaced or removed while the decision
      // was made durable was checked above as it was before.
      const moved = movedSinceAsked(turn, scope.widenings, access.widened === true)
      if (moved !== null) return refusedAccess(moved, tool, args)
      // And what allowed it must still stand under the room's mode now: a
      // grant revoked, a room narrowed (plan entered, the reviewer taken
      // off) while the person, the reviewer or the disk was waited for
      // leaves nothing to run on. Fails closed: nothing runs.
      const fallen = allowerStands(how.allower, turn, this.deps.room)
      if (fallen !== null) return refusedAsFallen(fallen, how.approval?.id ?? null)
      const widened = pinnedWidenedRoots(scope.widenings)
      result = await tool.run(args, {
        workspace: turn.workspace,
        resolvedPaths: access.paths,
        timeoutMs: DEFAULT_TOOL_TIMEOUT_MS,
        signal: stop.signal,
        readReach: how.readReach,
        ...(bound === undefined ? {} : { boundTarget: bound }),
        command: {
          sandbox: this.deps.commands,
          sandboxMode: turn.policy.sandboxMode,
          extraWritableRoots: widened.map((pinned) => pinned.realPath),
          expectedExtraRoots: widened,
          ...(turn.workspaceIdentity === undefined
            ? {}
            : { expectedWorkspace: turn.workspaceIdentity }),
          ...(how.approval?.containment === undefined ? {} : { shown: how.approval.containment }),
        },
      })
    } catch (error) {
      const said = message('call.toolFailed', { detail: (error as Error).message })
      result = { ...refusal(englishText(said), 'tool_error'), message: said }
    } finally {
      stop.release()
    }
    return {
      status: result.ok ? 'succeeded' : 'failed',
      result,
      approvalId: how.approval?.id ?? null,
    }
  }
}
