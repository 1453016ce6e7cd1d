import type { ApprovalRecord, DecidedBy } from '../../contracts/approval.ts'
import { writesGrant, type ApprovalDecision } from '../../contracts/consent.ts'
import type { RuntimeErrorCode } from '../../contracts/error-codes.ts'
import type { Grant } from '../../contracts/room.ts'
import { message, type RuntimeMessage } from '../../contracts/runtime-message.ts'
import {
  actionDigest,
  canonicalAction,
  createApproval,
  expireApproval,
  resolveApproval,
  summarizeApproval,
  type NewApproval,
} from '../domain/approval.ts'
import type { EventBus } from '../events/event-bus.ts'
import type { ApprovalStore } from '../ports/approval-store.ts'

/** Why a decision was not applied; the server gives each its status. */
export type DecisionRefusalCode = Extract<
  RuntimeErrorCode,
  | 'unknown_approval'
  | 'approval_decided'
  | 'approval_expired'
  | 'decision_in_progress'
  | 'consent_required'
  | 'always_allow_unavailable'
  | 'approval_tampered'
>

export type DecideOutcome =
  { ok: true; approval: ApprovalRecord } | { ok: false; code: DecisionRefusalCode; error: string }

export interface DecisionInput {
  approvalId: string
  decision: ApprovalDecision
  decidedBy: DecidedBy
  reason?: string
  /** `reason` as a code, for the person's language (the built-in reviewer). */
  reasonMessage?: RuntimeMessage
  /** The digest of the action the decider was shown, which a person's
   *  consent token binds: the decision applies only while the approval
   *  shows exactly that action, and is refused as `consent_required`
   *  otherwise. */
  shownActionDigest?: string
  /** Why this decision cannot be honoured on the approval as it stands (an
   *  allow-always no grant can be scoped to), or null. */
  unavailable?: (approval: ApprovalRecord) => string | null
}

export interface ApprovalGateOptions {
  approvals: ApprovalStore
  events: EventBus
  now: () => number
  /** The allow-always grant a decision stands for, if any: written with the
   *  decision or not at all. Runs inside the decision's transaction, so a
   *  throw rolls the decision back. */
  grantFor?: (approval: ApprovalRecord) => Grant | undefined
  /** Awaited before an allow-always is committed, and required with
   *  `grantFor`: a grant widens what the agent may do, so it waits until the
   *  rollback anchor is not behind, and a rejection (the anchor cannot be
   *  brought up to date) refuses the decision with nothing written. */
  beforeGrant?: () => Promise<void>
  /** Test seam between reserve and commit, used to kill the process there. */
  afterReserve?: (approvalId: string) => Promise<void>
}

interface Reservation {
  decision: ApprovalDecision
  outcome: Promise<DecideOutcome>
}

/**
 * The only place an approval changes state. A decision is
 * reserve → commit with its audit event (`ApprovalStore.resolve`, one
 * transaction); the tool may run only
 * after `decide` resolves with an allowed approval, so no tool ever runs
 * without its durable `approval_resolved` event.
 */
export class ApprovalGate {
  private readonly options: ApprovalGateOptions
  private readonly reservations = new Map<string, Reservation>()
  private readonly waiters = new Map<string, Array<(approval: ApprovalRecord) => void>>()
  /** The digest of each pending approval's action as it was opened. The
   *  row on disk is what the window shows and a decision is judged on, but
   *  whoever asked runs what it asked for: a row edited outside Assent
   *  meanwhile (the approvals table carries no seal) would have the person
   *  allow one action while another runs. Every pending approval is one
   *  this gate opened: a previous instance's are expired at start. */
  private readonly opened = new Map<string, string>()

  constructor(options: ApprovalGateOptions) {
    if (options.grantFor && !options.beforeGrant) {
      throw new Error('a gate that writes grants needs beforeGrant (the rollback anchor check)')
    }
    this.options = options
  }

  /** Creates a pending approval and its `approval_requested` event together. */
  open(input: Omit<NewApproval, 'now'>): ApprovalRecord {
    const { approvals, events, now } = this.options
    const approval = createApproval({ ...input, now: now() })
    const digest = digestOf(approval)
    approvals.open(approval, digest)
    this.opened.set(approval.id, digest)
    events.emit('approval.requested', { approval: summarizeApproval(approval) })
    return approval
  }

  /**
   * Applies one decision. Concurrent identical decisions join one outcome; an
   * opposite decision while one is in flight is refused, so two people (or a
   * person and the reviewer) can never both win.
   */
  decide(input: DecisionInput): Promise<DecideOutcome> {
    const existing = this.reservations.get(input.approvalId)
    if (existing) {
      if (existing.decision !== input.decision) {
        return Promise.resolve({
          ok: false,
          code: 'decision_in_progress',
          error: 'a different decision is in progress',
        })
      }
      // A decision that joins one in flight must hold on its own terms: the
      // same action shown, and a decision that can be honoured.
      const current = this.options.approvals.get(input.approvalId)
      const refused = current && refusedAsShown(input, current, digestOf(current))
      return refused ? Promise.resolve(refused) : existing.outcome
    }
    const outcome = this.commitDecision(input).finally(() => {
      this.reservations.delete(input.approvalId)
    })
    this.reservations.set(input.approvalId, { decision: input.decision, outcome })
    return outcome
  }

  /** Resolves when the approval leaves `pending` (decided or expired). */
  waitForOutcome(approvalId: string): Promise<ApprovalRecord> {
    return new Promise((resolve, reject) => {
      try {
        this.onOutcome(approvalId, resolve)
      } catch (error) {
        reject(error as Error)
      }
    })
  }

  /**
   * Calls `listener` once, when the approval leaves `pending` (decided or
   * expired), or at once if it already has; throws for an unknown approval.
   * A waiter that keeps only its listener holds no promise and no suspended
   * function while the person takes their time. The listener runs inside
   * the decision's settling and must not throw.
   */
  onOutcome(approvalId: string, listener: (approval: ApprovalRecord) => void): void {
    const current = this.options.approvals.get(approvalId)
    if (!current) throw new Error(`unknown approval ${approvalId}`)
    if (current.status !== 'pending') {
      listener(current)
      return
    }
    const list = this.waiters.get(approvalId)
    if (list) list.push(listener)
    else this.waiters.set(approvalId, [listener])
  }

  /** Expires every pending approval whose TTL has passed. */
  expireDue(reason = 'not confirmed in time'): ApprovalRecord[] {
    const { approvals, now } = this.options
    const expired: ApprovalRecord[] = []
    for (const approval of approvals.listPendingDue(now())) {
      if (this.reservations.has(approval.id)) continue
      const result = this.expireOne(approval, reason)
      if (result) expired.push(result)
    }
    return expired
  }

  /** Expires pending approvals left by a previous runtime instance: nobody is
   *  waiting to run them any more, and a token minted for them must not work. */
  expireOrphans(reason: string): ApprovalRecord[] {
    const expired: ApprovalRecord[] = []
    for (const approval of this.options.approvals.listPending()) {
      const result = this.expireOne(
        { ...approval, expiresAt: Math.min(approval.expiresAt, this.options.now()) },
        reason,
      )
      if (result) expired.push(result)
    }
    return expired
  }

  /** Expires one pending approval now, whatever its TTL: whoever asked for
   *  it no longer waits, and a token minted for it must decide nothing. A
   *  decision already being committed is left to finish. `reasonMessage`
   *  words the reason for the person, where they are shown it. */
  withdraw(
    approvalId: string,
    reason: string,
    reasonMessage?: RuntimeMessage,
  ): ApprovalRecord | undefined {
    const approval = this.options.approvals.get(approvalId)
    if (!approval || this.reservations.has(approvalId)) return undefined
    return this.expireOne(
      { ...approval, expiresAt: Math.min(approval.expiresAt, this.options.now()) },
      reason,
      reasonMessage,
    )
  }

  private expireOne(
    approval: ApprovalRecord,
    reason: string,
    reasonMessage?: RuntimeMessage,
  ): ApprovalRecord | undefined {
    const { approvals, now } = this.options
    const transition = expireApproval(approval, now())
    if (!transition.ok) return undefined
    const expired = {
      ...transition.approval,
      reason,
      ...(reasonMessage === undefined ? {} : { reasonMessage }),
    }
    approvals.expire(expired, reason, expired.decidedAt ?? now())
    this.settle(expired)
    return expired
  }

  private async commitDecision(input: DecisionInput): Promise<DecideOutcome> {
    const { approvals, now, beforeGrant, afterReserve } = this.options
    let current = approvals.get(input.approvalId)
    // Read again after each wait, never otherwise: the store may have
    // changed meanwhile, and a read (a row and its schema parse) is a fair
    // part of what a decision costs.
    // Every decision that writes a grant waits, the server-wide one too:
    // both widen what the agent may do for as long as the grant stands.
    if (current && writesGrant(input.decision) && beforeGrant) {
      await beforeGrant()
      current = approvals.get(input.approvalId)
    }
    if (current && afterReserve) {
      await afterReserve(input.approvalId)
      current = approvals.get(input.approvalId)
    }
    if (!current) return { ok: false, code: 'unknown_approval', error: 'unknown approval' }
    // Judged on the very read the decision commits from, after every wait.
    const digest = digestOf(current)
    const opened = this.opened.get(current.id)
    if (opened !== undefined && opened !== digest) {
      // Whoever decides, the person, the reviewer or the webhook, decided
      // on the edited row; what would run is what was asked for. Neither
      // may run: the approval is withdrawn, and the waiting call with it.
      this.expireOne(
        { ...current, expiresAt: Math.min(current.expiresAt, now()) },
        'its stored action changed outside Assent',
        message('call.actionChanged'),
      )
      return {
        ok: false,
        code: 'approval_tampered',
        error: 'the approval was changed outside Assent after the agent asked; it was withdrawn',
      }
    }
    const refused = refusedAsShown(input, current, digest)
    if (refused) return refused
    const at = now()
    const transition = resolveApproval(current, { ...input, now: at })
    if (!transition.ok) {
      if (transition.error === 'expired') {
        this.expireOne(current, 'not confirmed in time')
        return { ok: false, code: 'approval_expired', error: 'approval expired' }
      }
      return { ok: false, code: 'approval_decided', error: 'approval already decided' }
    }
    const decided = transition.approval
    // If the audit append (or the grant) throws, the store rolls the whole
    // decision back: the approval stays pending and nothing downstream
    // learns of a decision.
    approvals.resolve(decided, { ...input, actionDigest: digest }, at, this.options.grantFor)
    this.settle(decided)
    return { ok: true, approval: decided }
  }

  private settle(approval: ApprovalRecord): void {
    this.opened.delete(approval.id)
    this.options.events.emit('approval.resolved', { approval: summarizeApproval(approval) })
    const list = this.waiters.get(approval.id) ?? []
    this.waiters.delete(approval.id)
    for (const resolve of list) resolve(approval)
  }
}

function digestOf(approval: ApprovalRecord): string {
  return actionDigest(canonicalAction(approval))
}

/** Why `input` cannot decide `approval` as it now stands, or null. */
function refusedAsShown(
  input: DecisionInput,
  approval: ApprovalRecord,
  digest: string,
): Extract<DecideOutcome, { ok: false }> | null {
  if (input.shownActionDigest !== undefined && input.shownActionDigest !== digest) {
    return { ok: false, code: 'consent_required', error: 'protected approval consent required' }
  }
  const blocker = input.unavailable?.(approval) ?? null
  if (blocker !== null) {
    return {
      ok: false,
      code: 'always_allow_unavailable',
      error: `always allow is unavailable: ${blocker}`,
    }
  }
  return null
}
