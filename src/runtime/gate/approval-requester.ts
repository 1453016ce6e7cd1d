import { randomUUID } from 'node:crypto'
import type { ApprovalRecord } from '../../contracts/approval.ts'
import type { Turn } from '../../contracts/room.ts'
import { englishText, message, type RuntimeMessage } from '../../contracts/runtime-message.ts'
import type { EventBus } from '../events/event-bus.ts'
import { personOnlyReason, touchOfApproval, type PersonOnly } from '../policy/person-only.ts'
import { personOnlyMessage } from '../policy/person-only-words.ts'
import { keptFromDeciders } from '../policy/private-read-approval.ts'
import { turnInForce, type RoomNow } from '../policy/allower-stands.ts'
import { answerDropped } from './delegate-standing.ts'
import { reviewFailClosed, type ActionReviewer, type ReviewInput } from '../policy/reviewer.ts'
import { actionDigest, canonicalAction } from '../domain/approval.ts'
import type { ApprovalStore } from '../ports/approval-store.ts'
import type { ConversationStore } from '../ports/conversation-store.ts'
import type { DelegatedApprover, DelegatedVerdict } from '../ports/delegated-approver.ts'
import type { ApprovalGate } from './approval-gate.ts'
import type { ApprovalRequest } from './approval-request.ts'

export type { ApprovalRequest, RequestedAction } from './approval-request.ts'

/** How long the approve-for-me reviewer may take before its silence sends
 *  the action to the person. */
export const REVIEWER_TIMEOUT_MS = 5_000

/** Why a request under a policy that never asks (plan mode) was refused. */
export const NEVER_ASKS_REASON = englishText(message('call.neverAsks'))

/** An open approval, and its outcome once it is decided or expires. */
export interface PendingApproval {
  approval: ApprovalRecord
  outcome: Promise<ApprovalRecord>
  /** Expires the approval now, if it is still pending: whoever asked no
   *  longer waits for it (an external agent withdrew its request), so a
   *  token minted for it must decide nothing. */
  withdraw(reason: string, reasonMessage?: RuntimeMessage): void
}

/** What `whenDecided` hands on: the approval once it is decided or
 *  expired, or why asking stopped. */
export type DecisionListener = (outcome: { approval: ApprovalRecord } | { error: Error }) => void

export interface ApprovalRequesterOptions {
  gate: ApprovalGate
  approvals: Pick<ApprovalStore, 'escalate' | 'get'>
  conversations: Pick<ConversationStore, 'updateToolCall' | 'setTurnStatus'>
  events: EventBus
  reviewer: ActionReviewer
  /** `REVIEWER_TIMEOUT_MS` unless a test shortens it. */
  reviewerTimeoutMs?: number
  now: () => number
  approvalTtlMs: () => number
  newId?: () => string
  /** Who decides in the person's place in a room (its approver webhook),
   *  if anyone. */
  delegateFor?: (roomId: string) => DelegatedApprover | undefined
  /** The room now: whoever decides in the person's place is chosen under,
   *  and their answer recorded only while it stands under, the narrower
   *  of the turn's frozen policy and the room's (policy/allower-stands.ts). */
  room: RoomNow
}

/**
 * The one way the runtime asks for a decision on an action and waits for
 * it: an agent's built-in tool call, an agent's MCP call in a room, and an
 * MCP gateway call all come through here, and so does an external agent's
 * request (a command line and its working directory, or file changes with
 * their diffs, described as the action's arguments).
 *
 * `open` opens a pending approval through the gate, marks the call awaiting
 * approval and its turn waiting, announces it on the timeline, starts the
 * approve-for-me reviewer where the policy says so, then, if the approval
 * is still left to the person and the room names an approver webhook, asks
 * the webhook in the person's place; and hands back the outcome. `ask` also
 * waits for it and marks the turn running again. Nothing here decides: the
 * reviewer, the webhook and the person decide through the gate, which
 * records every decision before anyone hears of it.
 *
 * Precedence: policy first (what needs no one runs, what is refused is
 * refused, a grant answers before anyone is asked), then the approve-for-me
 * reviewer where the room's mode says so, then the webhook for whatever
 * would go to the person; neither for what only the person decides (a
 * permission request, a private read: `othersMayDecide`). The protected
 * window stays open to the person meanwhile; the first decision the gate
 * records wins.
 */
export class ApprovalRequester {
  private readonly options: ApprovalRequesterOptions
  private readonly newId: () => string

  constructor(options: ApprovalRequesterOptions) {
    this.options = options
    this.newId = options.newId ?? randomUUID
  }

  open(request: ApprovalRequest): PendingApproval {
    const { approval, asked, withdraw } = this.start(request)
    const { gate } = this.options
    return { approval, outcome: asked.then(() => gate.waitForOutcome(approval.id)), withdraw }
  }

  /** Opens the approval and waits until it is decided or expires; the turn
   *  shows as waiting meanwhile. */
  ask(request: ApprovalRequest): Promise<ApprovalRecord> {
    return new Promise((resolve, reject) => {
      this.whenDecided(request, (outcome) => {
        if ('error' in outcome) {
          reject(outcome.error)
          return
        }
        try {
          this.options.conversations.setTurnStatus(request.turn.id, 'running')
          resolve(outcome.approval)
        } catch (error) {
          reject(error as Error)
        }
      })
    })
  }

  /**
   * `ask` for a caller that keeps what it needs as data: opens the
   * approval, and once it is decided or expires hands `listener` the
   * approval, or the error that stopped the asking. Nothing waits in
   * between but the listener, so a turn waiting for a person holds no
   * suspended functions or promises (agent-runner.ts). The turn shows as
   * waiting until the caller writes it running again, with the first write
   * it makes after the decision. Throws, like `open`, if the approval
   * cannot be opened. The listener must not throw.
   */
  whenDecided(request: ApprovalRequest, listener: DecisionListener): void {
    const { approval, asked } = this.start(request)
    const { gate } = this.options
    // Only its id is kept while it waits: not the request, whose action may
    // carry a file's whole new content, nor the approval, which is stored.
    const approvalId = approval.id
    asked.then(
      () => {
        try {
          gate.onOutcome(approvalId, (decided) => {
            // After the gate has settled the decision, as a promise's
            // waiter would run: the listener goes on with the turn.
            queueMicrotask(() => listener({ approval: decided }))
          })
        } catch (error) {
          listener({ error: error as Error })
        }
      },
      (failure: unknown) =>
        listener({ error: failure instanceof Error ? failure : new Error(String(failure)) }),
    )
  }

  /**
   * `asked`, but when it fails (a reviewer whose description throws, a
   * decision the store refused) the approval is expired before the failure
   * is passed on: whoever asked stops waiting, for every asker (`open`,
   * `ask`, `whenDecided`), so nobody is shown a request nothing would act
   * on, and a token minted for it decides nothing.
   */
  private expiredIfFailed(asked: Promise<unknown>, approvalId: string): Promise<unknown> {
    return asked.catch((failure: unknown) => {
      const detail = failure instanceof Error ? failure.message : String(failure)
      try {
        const reason = message('turn.stopped', { detail })
        this.options.gate.withdraw(approvalId, englishText(reason), reason)
      } catch {
        // Not expired (the store refused the write): it stays pending, and
        // a decision on it still wakes nobody; the failure goes on.
      }
      throw failure
    })
  }

  /** Opens the approval, marks the call and turn, and starts whoever decides
   *  in the person's place; `asked` settles once they have had their say. */
  private start(request: ApprovalRequest): Omit<PendingApproval, 'outcome'> & {
    asked: Promise<unknown>
  } {
    const { gate, conversations, events, now, room } = this.options
    const { call, action } = request
    // Whoever asks, a room narrowed since its turn began decides who may
    // answer (plan: nobody; ask-for-approval: not the reviewer).
    const turn = turnInForce(request.turn, room)
    const { sandboxMode = turn.policy.sandboxMode, ...shown } = action
    const approval = gate.open({
      id: this.newId(),
      roomId: turn.roomId,
      turnId: turn.id,
      toolCallId: call.id,
      ...shown,
      sandboxMode,
      ttlMs: this.options.approvalTtlMs(),
    })
    conversations.updateToolCall(call.id, {
      status: 'awaiting-approval',
      approvalId: approval.id,
      at: now(),
    })
    if (turn.policy.approvalPolicy === 'never') {
      // A policy that never asks never asks: the request is recorded and
      // refused at once in the policy's name, so nobody is interrupted (plan
      // mode's promise) and nothing runs. The agent runner never gets here
      // in plan mode, since it offers nothing that would ask; an asker that
      // does not know the policy (the MCP gateway, an external agent) does.
      events.emit('timeline.updated', { roomId: turn.roomId })
      const refused = gate.decide({
        approvalId: approval.id,
        decision: 'deny',
        decidedBy: 'policy',
        reason: NEVER_ASKS_REASON,
        reasonMessage: message('call.neverAsks'),
      })
      return {
        approval,
        asked: this.expiredIfFailed(refused, approval.id),
        // Already decided: there is nothing left open to withdraw.
        withdraw: () => undefined,
      }
    }
    conversations.setTurnStatus(turn.id, 'waiting')
    events.emit('timeline.updated', { roomId: turn.roomId })

    // Left to the person alone (`othersMayDecide`): nobody decides in
    // their place, neither the reviewer nor the webhook. The approval stays
    // pending for the protected window, as under ask-for-approval.
    // Judged after the door has its approval, inside the chain, so a
    // judgment that throws expires the approval (`expiredIfFailed`)
    // instead of failing the door that opened it.
    const review = turn.policy.approvalReviewer === 'agent' ? request.review : undefined
    const delegated = Promise.resolve().then(() => {
      if (!this.othersMayDecide(request, approval, review !== undefined)) return undefined
      return (review ? this.reviewAutomatically(turn, approval, review) : Promise.resolve()).then(
        () => this.askDelegate(turn, approval.id),
      )
    })
    return {
      approval,
      asked: this.expiredIfFailed(delegated, approval.id),
      withdraw: (reason, reasonMessage) => {
        gate.withdraw(approval.id, reason, reasonMessage)
      },
    }
  }

  /**
   * Whether anyone but the person may be asked about the approval: the
   * one place that decides it for every door (a built-in tool, an MCP
   * call in a room or through the gateway, an external agent's request).
   * Not a permission request (`personDecides`), nor a private read, nor a
   * change whose action holds the current lines of a file a read of which
   * would be private (private-read-approval.ts): either would put what
   * lies outside the workspace, or a secret, in front of whoever decides. Judged on the stored action,
   * before the reviewer or the webhook hears of it; a judgment that fails
   * leaves it to the person. Where one of them would have been asked, the
   * approval says why it was not.
   */
  private othersMayDecide(
    request: ApprovalRequest,
    approval: ApprovalRecord,
    reviewed: boolean,
  ): boolean {
    if (request.personDecides) return false
    const { turn } = request
    const kept = keptFromDeciders(approval, turn.workspace, request.resolvedPaths)
    if (kept === null) return true
    // Decided or expired meanwhile: there is nobody left to tell why.
    if (this.options.approvals.get(approval.id)?.status !== 'pending') return false
    if (reviewed || this.options.delegateFor?.(turn.roomId) !== undefined) {
      this.options.approvals.escalate(
        approval,
        `neither the automatic review nor the approver webhook is asked about ${kept.about}`,
        this.options.now(),
        kept.words,
      )
      this.options.events.emit('timeline.updated', { roomId: turn.roomId })
    }
    return false
  }

  /** Where the room names someone to decide in the person's place, asks
   *  them about an approval still left to the person, with the canonical
   *  action and digest the protected window would show. */
  private async askDelegate(turn: Turn, approvalId: string): Promise<void> {
    const delegate = this.options.delegateFor?.(turn.roomId)
    if (!delegate) return
    const current = this.options.approvals.get(approvalId)
    if (current?.status !== 'pending') return
    // The webhook decides what the room would ask the person, except what
    // always needs the person: it is never sent, so its answer cannot allow
    // a change to .git or a credential in their place.
    const personOnly = personOnlyReason(touchOfApproval(current, turn.workspace))
    if (personOnly !== null) {
      this.leaveToPerson(turn, current, 'the approver webhook is not asked', personOnly)
      return
    }
    const action = canonicalAction(current)
    let verdict: DelegatedVerdict
    try {
      verdict = await delegate.decide({
        approval: current,
        action,
        actionDigest: actionDigest(action),
      })
    } catch (error) {
      // The port promises never to throw; if it does, that is no allow.
      verdict = { decision: 'deny', reason: `the approver failed: ${(error as Error).message}` }
    }
    // The person may have taken the decision back while the webhook was
    // asked ("Stop it", a new webhook, plan): an answer from a webhook
    // that is no longer the room's, or under a mode where it may not
    // decide, is not recorded. Checked in the same synchronous stretch as
    // the gate's commit of a once-only answer, so no change falls between.
    const webhook = { by: 'webhook' as const, webhookId: delegate.id }
    if (answerDropped(this.options, turn, approvalId, webhook)) return
    try {
      // Refused (and so ignored) when the person or the clock got there first.
      await this.options.gate.decide({
        approvalId,
        decision: verdict.decision,
        decidedBy: 'webhook',
        reason: verdict.reason,
      })
    } catch {
      // Not recorded (the store rolled it back): the approval stays pending,
      // for the person to decide in the protected window.
    }
  }

  private async reviewAutomatically(
    turn: Turn,
    approval: ApprovalRecord,
    describe: () => Promise<ReviewInput>,
  ): Promise<void> {
    const { gate, events, now } = this.options
    const reviewed = await describe()
    const verdict = await reviewFailClosed(
      this.options.reviewer,
      reviewed,
      this.options.reviewerTimeoutMs ?? REVIEWER_TIMEOUT_MS,
    )
    // The reviewer may refuse what always needs a person, never allow it:
    // whichever reviewer is plugged in, its allow of such an action goes
    // to the person instead. The rule reads the stored action whole (a
    // command's folder, an agent's raw input) as well as what the reviewer
    // was shown, which leaves parts of it out.
    if (verdict.verdict === 'allow') {
      const personOnly =
        personOnlyReason(touchOfApproval(approval, turn.workspace)) ?? personOnlyReason(reviewed)
      if (personOnly !== null) {
        this.leaveToPerson(turn, approval, 'the automatic review may not allow it', personOnly)
        return
      }
    }
    if (verdict.verdict === 'escalate') {
      // Escalation leaves the approval pending for the person, who decides in
      // the protected window like any other approval; the reviewer's reason
      // (or why it failed to give one) is kept on the approval and in the
      // audit log so they can see why.
      this.options.approvals.escalate(approval, verdict.reason, now(), verdict.message, {
        reviewFailed: verdict.failed,
      })
      events.emit('timeline.updated', { roomId: turn.roomId })
      return
    }
    // The reviewer's answer counts only while the room's mode still names
    // it: approve-for-me taken back (or plan entered) while it reviewed
    // leaves the approval to the person (or withdraws it, in plan).
    if (answerDropped(this.options, turn, approval.id, { by: 'reviewer' })) return
    await gate.decide({
      approvalId: approval.id,
      decision: verdict.verdict === 'allow' ? 'allow-once' : 'deny',
      decidedBy: 'agent-review',
      reason: verdict.reason,
      ...(verdict.message ? { reasonMessage: verdict.message } : {}),
    })
  }

  /** Leaves an approval that always needs a person to them, with why on the
   *  approval and in the audit log (its `review_escalated` event). */
  private leaveToPerson(
    turn: Turn,
    approval: ApprovalRecord,
    who: string,
    found: PersonOnly,
  ): void {
    const { now, events } = this.options
    const reason = `${who}: ${found.path}: ${found.reason}`
    this.options.approvals.escalate(approval, reason, now(), personOnlyMessage(found))
    events.emit('timeline.updated', { roomId: turn.roomId })
  }
}
