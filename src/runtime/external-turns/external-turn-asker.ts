import type { ApprovalRecord } from '../../contracts/approval.ts'
import { AGENT_FILE_CHANGE_TOOL, type AgentIdentity } from '../../contracts/agent-request.ts'
import type { ToolCallRecord, Turn } from '../../contracts/room.ts'
import { englishText, message, type RuntimeMessage } from '../../contracts/runtime-message.ts'
import { actionDigest, canonicalAction } from '../domain/approval.ts'
import type { ApprovalRequester } from '../gate/approval-requester.ts'
import type {
  ExternalActionRequest,
  ExternalApprovalAsker,
  ExternalDecision,
} from '../external-agents/external-agent-port.ts'
import { refusedAccessWords } from '../policy/access-words.ts'
import { agentGrantCovers } from '../policy/agent-grant-scope.ts'
import { personOnlyAtStart } from '../policy/made-person-only.ts'
import { grantForAction } from '../policy/private-read-approval.ts'
import { dispositionFor } from '../policy/approval-policy.ts'
import { deniedRequestWords } from '../policy/denial-words.ts'
import { checkToolAccess } from '../policy/sandbox.ts'
import { pinnedWorkspaceOf, workspaceMovedSince } from '../policy/workspace-identity.ts'
import {
  allowerOfApproval,
  allowerStands,
  turnInForce,
  type RoomNow,
} from '../policy/allower-stands.ts'
import type { ConversationStore } from '../ports/conversation-store.ts'
import type { WhenDurable } from '../ports/durability.ts'
import type { GrantStore } from '../ports/grant-store.ts'
import {
  currentContentsFor,
  shownAgentRequest,
  type ShownAgentRequest,
  type ShownOrRefused,
} from './agent-request-action.ts'
import { shownWhereItActs } from './agent-request-where.ts'
import { reviewInputFor } from './external-review-input.ts'
import type { ExternalTurnTimeline } from './external-turn-timeline.ts'
import { samePaths, type AllowedBy, type Judged } from './external-turn-judged.ts'
import { shownPersonOnly } from './turn-made-watch.ts'

/** Why Assent closes an approval whose request the agent withdrew, in
 *  the person's words (the card and the protected window show it). */
export const AGENT_WITHDRAWN = message('external.withdrawn')
export const WITHDRAWN_REASON = englishText(AGENT_WITHDRAWN)

/** How many of a turn's requests may wait for a decision at once. An
 *  agent asks about what it is about to run, a few calls at a time; one
 *  that opens requests as fast as it can would bury the person's queue and
 *  the webhook until one is allowed to make it stop. */
export const MAX_WAITING_REQUESTS = 16

export interface ExternalTurnAskerDeps {
  requester: Pick<ApprovalRequester, 'open'>
  grants: Pick<GrantStore, 'listActive'>
  conversations: Pick<ConversationStore, 'markRunning' | 'setTurnStatus' | 'getTurn'>
  now: () => number
  /** Resolves once every write committed so far is on disk. */
  durable: WhenDurable
  /** The room now: each request is judged, and each allow answered, under
   *  the narrower of the turn's frozen policy and the room's
   *  (policy/allower-stands.ts). */
  room: RoomNow
}

/**
 * Answers an external agent's requests during one turn, exactly as the
 * room's frozen policy says, through the one approval requester:
 *
 * 1. the sandbox and its path containment: under `workspace-write` a
 *    command outside the workspace, or a change to a file outside it, is
 *    refused without asking anyone;
 * 2. the approval-policy table: run (full access), refuse, or ask;
 * 3. an active grant that covers the request exactly;
 * 4. otherwise an approval (the reviewer under approve-for-me, or the
 *    person in the protected window with a consent token).
 *
 * An allow reaches the agent only after the decision (or the grant or the
 * policy that allowed it) and the call's "running" mark are on disk, and
 * only if the approval that was decided still shows exactly this request
 * (its digest must be the digest of the action built from the request),
 * the workspace is still the folder the turn was admitted for, and what the
 * request names still leads where it was shown (agent-request-where.ts).
 */
export class ExternalTurnAsker implements ExternalApprovalAsker {
  private readonly deps: ExternalTurnAskerDeps
  private readonly turn: Turn
  private readonly agent: AgentIdentity
  private readonly timeline: ExternalTurnTimeline
  private waiting = 0

  constructor(
    turn: Turn,
    agent: AgentIdentity,
    timeline: ExternalTurnTimeline,
    deps: ExternalTurnAskerDeps,
  ) {
    this.turn = turn
    this.agent = agent
    this.timeline = timeline
    this.deps = deps
  }

  async ask(request: ExternalActionRequest, signal: AbortSignal): Promise<ExternalDecision> {
    // Past the limit, refused without asking anyone (fails closed).
    if (this.waiting >= MAX_WAITING_REQUESTS) {
      this.timeline.note(message('external.tooManyWaiting', { count: MAX_WAITING_REQUESTS }))
      return 'deny'
    }
    this.waiting += 1
    try {
      return await this.askCounted(request, signal)
    } finally {
      this.waiting -= 1
    }
  }

  private async askCounted(
    request: ExternalActionRequest,
    signal: AbortSignal,
  ): Promise<ExternalDecision> {
    // The agent runs what it is allowed outside Assent's sandbox: the rule
    // is all there is, so each request is judged under the room's mode now
    // where the person narrowed it since the turn began (never wider).
    const turn = turnInForce(this.turn, this.deps.room)
    const described = shownAgentRequest(
      request,
      this.agent,
      this.turn.workspace,
      await currentContentsFor(request),
    )
    const call = this.timeline.callForRequest(
      request.toolCallId,
      'shown' in described ? described.shown.action.toolName : 'agent_tool',
      'shown' in described ? described.shown.action.arguments : {},
    )
    // One request of a call at a time, and none while what an allow of it
    // let run goes on (ExternalTurnTimeline.claim): the earlier request's
    // record and watch stay its own. Refused without asking (fails closed).
    if (!this.timeline.claim(call)) {
      this.timeline.note(message('external.sameCallBusy'))
      return 'deny'
    }
    try {
      return await this.judge(turn, call, described, signal)
    } finally {
      this.timeline.release(call)
    }
  }

  /** Answers a request whose call it holds, in the order the class says. */
  private async judge(
    turn: Turn,
    call: ToolCallRecord,
    described: ShownOrRefused,
    signal: AbortSignal,
  ): Promise<ExternalDecision> {
    if ('refused' in described) {
      return this.refuse(
        call,
        'refused',
        message('external.refusedRequest', { reason: described.refused }),
        'unshowable_request',
      )
    }
    const access = await this.accessFor(turn, described.shown)
    if (!access.allowed) {
      const { effect, paths } = described.shown
      return this.refuse(
        call,
        'refused',
        refusedAccessWords(access, effect, paths),
        access.code,
        access.reason,
      )
    }
    // From here on the request is shown, judged and bound where it acts:
    // the real paths the check above resolved, not only the names the
    // agent wrote (a link to a git hook is shown as the hook).
    const where = shownWhereItActs(described.shown, access.paths)
    if ('refused' in where) {
      return this.refuse(
        call,
        'refused',
        message('external.refusedRequest', { reason: where.refused }),
        'unshowable_request',
      )
    }
    const shown = where.shown

    const policy = turn.policy.approvalPolicy
    const disposition = dispositionFor(policy, shown.effect, shown.destructive)
    if (disposition === 'deny') {
      return this.refuse(
        call,
        'denied',
        message('external.policyDenied', { policy }),
        'policy_denied',
      )
    }
    const judged = { turn, shown, realPaths: access.paths }
    if (disposition === 'run') {
      const { effect, destructive } = shown
      const allower = { by: 'policy' as const, effect, destructive, privateRead: false }
      const allowedBy = { type: 'tool_allowed_by_policy' as const }
      return this.allowed(call, judged, { allowedBy, allower }, 'allow-once')
    }
    // No grant answers a private read either (private-read-approval.ts):
    // an own tool of the agent naming a place outside the workspace is the
    // person's to allow, as the reviewer and the webhook are kept from it.
    const grant = grantForAction(
      {
        toolName: shown.action.toolName,
        arguments: shown.action.arguments,
        workspace: turn.workspace,
        resolvedPaths: access.paths,
      },
      shown.action,
      policy,
      () =>
        this.deps.grants.listActive(turn.roomId).find((candidate) =>
          agentGrantCovers(candidate, {
            toolName: shown.action.toolName,
            arguments: shown.action.arguments,
            resolvedPaths: access.paths,
          }),
        ),
    )
    if (grant) {
      const allowedBy = { type: 'tool_allowed_by_grant' as const, grantId: grant.id }
      const allower = { by: 'grant' as const, grantId: grant.id }
      return this.allowed(call, judged, { allowedBy, allower }, 'allow-once')
    }
    return this.askFor(call, judged, signal)
  }

  /** The room's sandbox check of what a request names, with the real
   *  paths it resolves: when the request is judged, and again right
   *  before an allow is answered. */
  private accessFor(turn: Turn, shown: Pick<ShownAgentRequest, 'effect' | 'paths'>) {
    return checkToolAccess({
      sandboxMode: turn.policy.sandboxMode,
      effect: shown.effect,
      paths: shown.paths,
      workspace: turn.workspace,
      // External agents have no ceilings of their own (agents.json gives
      // none); the room's sandbox is what confines them.
      agent: { readOnly: false },
      ...pinnedWorkspaceOf(turn),
    })
  }

  private async askFor(
    call: ToolCallRecord,
    judged: Judged,
    signal: AbortSignal,
  ): Promise<ExternalDecision> {
    if (signal.aborted) return 'cancelled'
    const { shown, realPaths } = judged
    const pending = this.deps.requester.open({
      turn: judged.turn,
      call,
      action: shown.action,
      review: () => reviewInputFor(this.turn, shown, realPaths),
    })
    const expectedDigest = actionDigest(canonicalAction(pending.approval))
    const withdrawn = new Promise<'withdrawn'>((resolve) => {
      if (signal.aborted) resolve('withdrawn')
      signal.addEventListener('abort', () => resolve('withdrawn'), { once: true })
    })
    const outcome = await Promise.race([pending.outcome, withdrawn])
    if (outcome === 'withdrawn') {
      pending.withdraw(WITHDRAWN_REASON, AGENT_WITHDRAWN)
      return 'cancelled'
    }
    // A decision that comes once the turn is over (it ended while the
    // request waited) allows nothing: no turn watches what it would do.
    const status = this.deps.conversations.getTurn(this.turn.id)?.status
    if (status !== 'waiting' && status !== 'running') return 'cancelled'
    this.deps.conversations.setTurnStatus(this.turn.id, 'running')
    return this.decisionFrom(call, judged, outcome, expectedDigest)
  }

  private async decisionFrom(
    call: ToolCallRecord,
    judged: Judged,
    outcome: ApprovalRecord,
    expectedDigest: string,
  ): Promise<ExternalDecision> {
    if (outcome.status === 'expired') {
      // Why it ended unanswered, where the gate said (an approval withdrawn
      // because its stored action changed); otherwise nobody answered.
      const words = outcome.reasonMessage ?? message('external.expired')
      this.timeline.settleByAssent(call, 'expired', {
        ok: false,
        output: englishText(words),
        code: 'approval_expired',
        message: words,
      })
      return 'expired'
    }
    if (outcome.status !== 'allowed') {
      const words = deniedRequestWords(outcome)
      this.timeline.settleByAssent(call, 'denied', {
        ok: false,
        output: englishText(words),
        code: 'approval_denied',
        message: words,
      })
      return 'deny'
    }
    // The decision was made on the approval as stored; the agent is about
    // to act on its own request. Unless the two are the same action, the
    // person allowed something else than what would run.
    if (actionDigest(canonicalAction(outcome)) !== expectedDigest) {
      return this.refuse(call, 'refused', message('external.actionMismatch'), 'action_mismatch')
    }
    return this.allowed(
      call,
      judged,
      { allowedBy: null, allower: allowerOfApproval(outcome) },
      outcome.decision === 'allow-always' ? 'allow-always' : 'allow-once',
    )
  }

  /** Marks the call running (with the event that allowed it, when that was
   *  not a decision) and waits until that is on disk before the agent hears
   *  "yes": after a crash the record shows it may have run.
   *
   *  Every allow passes here (the policy's, a grant's, the reviewer's, the
   *  person's), so the workspace is checked again here, once the answer
   *  came and before the running mark is written: an allow answers for the
   *  folder the turn was admitted for, and the agent acts on whatever is at
   *  the path when it hears "yes". A folder swapped, replaced or removed
   *  while the person read gets the agent a denial and the room the reason.
   *  So is where the request acts: the agent follows links, so a file or a
   *  folder it names that leads elsewhere now than where it was shown and
   *  judged (a link re-pointed meanwhile) gets it a denial
   *  (`target_changed`), as Assent's own tools refuse such a target.
   *  A move after "yes" is the agent's to meet: it acts on its own. */
  private async allowed(
    call: ToolCallRecord,
    judged: Judged,
    { allowedBy, allower }: AllowedBy,
    decision: 'allow-once' | 'allow-always',
  ): Promise<ExternalDecision> {
    const { turn } = judged
    const moved = workspaceMovedSince(turn)
    if (moved) return this.refuse(call, 'refused', moved.message, moved.code, moved.reason)
    this.deps.conversations.markRunning(call, this.deps.now(), allowedBy)
    await this.deps.durable()
    // Again after the wait for the disk, the agent not yet told: a move
    // while the allow was made durable is as much before "yes" as one
    // while the person read.
    const since = workspaceMovedSince(turn)
    if (since) return this.refuse(call, 'refused', since.message, since.code, since.reason)
    const now = await this.accessFor(turn, judged.shown)
    if (!now.allowed || !samePaths(now.paths, judged.realPaths)) {
      return this.refuse(call, 'refused', message('external.whereChanged'), 'target_changed')
    }
    // Last, with the agent not yet told: what allowed the request must
    // still stand under the room's mode now (a grant revoked, plan entered,
    // the reviewer or the webhook taken off meanwhile). The agent acts
    // outside every sandbox once it hears "yes", so this fails closed.
    const fallen = allowerStands(allower, turn, this.deps.room)
    if (fallen) return this.refuse(call, 'refused', fallen.message, fallen.code, fallen.reason)
    // A file change names its paths, each judged by the rule; what a
    // command or the agent's own tool makes is known only once it ends.
    // Full access asks for nothing, as for Assent's own commands.
    if (call.toolName === AGENT_FILE_CHANGE_TOOL) {
      this.timeline.allowWrites(shownPersonOnly(judged.realPaths, turn.workspace))
    } else if (turn.policy.sandboxMode !== 'danger-full-access') {
      this.timeline.watchMade(call, personOnlyAtStart([turn.workspace]))
    }
    return decision
  }

  /** Ends the call with Assent's words; `output` (the English the API
   *  and logs read) is those words unless a more exact one is given. */
  private refuse(
    call: ToolCallRecord,
    status: 'refused' | 'denied',
    words: RuntimeMessage,
    code: string,
    output = englishText(words),
  ): ExternalDecision {
    this.timeline.settleByAssent(call, status, { ok: false, output, code, message: words })
    return 'deny'
  }
}
