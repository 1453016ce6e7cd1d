import type { DatabaseSync } from 'node:sqlite'
import type { ApprovalRecord, DecidedBy } from '../../contracts/approval.ts'
import type { ApprovalDecision } from '../../contracts/consent.ts'
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
import type { AuditAppender } from '../store/audit-log.ts'
import type { SqliteApprovalRepository } from '../store/approval-repository.ts'
import { inTransaction } from '../store/database.ts'

export type DecideOutcome =
  { ok: true; approval: ApprovalRecord } | { ok: false; status: 404 | 409 | 410; error: string }

export interface DecisionInput {
  approvalId: string
  decision: ApprovalDecision
  decidedBy: DecidedBy
  reason?: string
}

export interface ApprovalGateOptions {
  db: DatabaseSync
  approvals: SqliteApprovalRepository
  audit: AuditAppender
  events: EventBus
  now: () => number
  /** Extra writes that must commit or roll back with the decision (an
   *  allow-always grant). Runs inside the decision's transaction. */
  withinDecision?: (approval: ApprovalRecord) => void
  /** Test seam between reserve and commit, used to kill the process there. */
  afterReserve?: (approvalId: string) => Promise<void>
}

interface Reservation {
  decision: ApprovalDecision
  outcome: Promise<DecideOutcome>
}

/**
 * The only place an approval changes state. A decision is
 * reserve → audit append (same transaction) → commit; the tool may run only
 * after `decide` resolves with an allowed approval, so no tool ever runs
 * without its durable `approval_resolved` event.
 */
export class ApprovalGate {
  private readonly options: ApprovalGateOptions
  private readonly reservations = new Map<string, Reservation>()
  private readonly waiters = new Map<string, Array<(approval: ApprovalRecord) => void>>()

  constructor(options: ApprovalGateOptions) {
    this.options = options
  }

  /** Creates a pending approval and its `approval_requested` event together. */
  open(input: Omit<NewApproval, 'now'>): ApprovalRecord {
    const { db, approvals, audit, events, now } = this.options
    const approval = createApproval({ ...input, now: now() })
    const digest = actionDigest(canonicalAction(approval))
    inTransaction(db, () => {
      approvals.insert(approval)
      audit.append({
        type: 'approval_requested',
        subjectId: approval.id,
        payload: {
          roomId: approval.roomId,
          turnId: approval.turnId,
          toolName: approval.toolName,
          actionDigest: digest,
        },
        at: approval.createdAt,
      })
    })
    events.emit('approval.requested', { approval: summarizeApproval(approval) })
    return approval
  }

  /**
   * Applies one decision. Concurrent identical decisions join one outcome; an
   * opposite decision while one is in flight gets 409, so two people (or a
   * person and the reviewer) can never both win.
   */
  decide(input: DecisionInput): Promise<DecideOutcome> {
    const existing = this.reservations.get(input.approvalId)
    if (existing) {
      if (existing.decision === input.decision) return existing.outcome
      return Promise.resolve({
        ok: false,
        status: 409,
        error: 'a different decision is in progress',
      })
    }
    const outcome = this.commitDecision(input).finally(() => {
      this.reservations.delete(input.approvalId)
    })
    this.reservations.set(input.approvalId, { decision: input.decision, outcome })
    return outcome
  }

  /** Resolves when the approval leaves `pending` (decided or expired). */
  waitForOutcome(approvalId: string): Promise<ApprovalRecord> {
    const current = this.options.approvals.get(approvalId)
    if (!current) return Promise.reject(new Error(`unknown approval ${approvalId}`))
    if (current.status !== 'pending') return Promise.resolve(current)
    return new Promise((resolve) => {
      const list = this.waiters.get(approvalId) ?? []
      list.push(resolve)
      this.waiters.set(approvalId, list)
    })
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

  private expireOne(approval: ApprovalRecord, reason: string): ApprovalRecord | undefined {
    const { db, approvals, audit, now } = this.options
    const transition = expireApproval(approval, now())
    if (!transition.ok) return undefined
    const expired = { ...transition.approval, reason }
    inTransaction(db, () => {
      approvals.saveOutcome(expired)
      audit.append({
        type: 'approval_expired',
        subjectId: expired.id,
        payload: { roomId: expired.roomId, turnId: expired.turnId, reason },
        at: expired.decidedAt ?? now(),
      })
    })
    this.settle(expired)
    return expired
  }

  private async commitDecision(input: DecisionInput): Promise<DecideOutcome> {
    const { db, approvals, audit, now } = this.options
    if (!approvals.get(input.approvalId))
      return { ok: false, status: 404, error: 'unknown approval' }
    await this.options.afterReserve?.(input.approvalId)

    const current = approvals.get(input.approvalId)
    if (!current) return { ok: false, status: 404, error: 'unknown approval' }
    const at = now()
    const transition = resolveApproval(current, { ...input, now: at })
    if (!transition.ok) {
      if (transition.error === 'expired') {
        this.expireOne(current, 'not confirmed in time')
        return { ok: false, status: 410, error: 'approval expired' }
      }
      return { ok: false, status: 409, error: 'approval already decided' }
    }
    const decided = transition.approval
    // If the audit append throws, the transaction rolls back: the approval
    // stays pending and nothing downstream learns of a decision.
    inTransaction(db, () => {
      approvals.saveOutcome(decided)
      audit.append({
        type: 'approval_resolved',
        subjectId: decided.id,
        payload: {
          roomId: decided.roomId,
          turnId: decided.turnId,
          toolName: decided.toolName,
          decision: input.decision,
          decidedBy: input.decidedBy,
          reason: input.reason ?? null,
          actionDigest: actionDigest(canonicalAction(decided)),
        },
        at,
      })
      this.options.withinDecision?.(decided)
    })
    this.settle(decided)
    return { ok: true, approval: decided }
  }

  private settle(approval: ApprovalRecord): void {
    this.options.events.emit('approval.resolved', { approval: summarizeApproval(approval) })
    const list = this.waiters.get(approval.id) ?? []
    this.waiters.delete(approval.id)
    for (const resolve of list) resolve(approval)
  }
}
