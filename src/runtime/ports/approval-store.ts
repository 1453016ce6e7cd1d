import type { ApprovalRecord, DecidedBy } from '../../contracts/approval.ts'
import type { ApprovalDecision } from '../../contracts/consent.ts'
import type { Grant } from '../../contracts/room.ts'
import type { RuntimeMessage } from '../../contracts/runtime-message.ts'

/** Who decided an approval, how and why: what its `approval_resolved` audit
 *  event records besides the approval. */
export interface Resolution {
  decision: ApprovalDecision
  decidedBy: DecidedBy
  reason?: string
  /** The digest of the canonical action decided, as the gate read it. */
  actionDigest: string
}

/**
 * Approvals and their audit events. Only the approval gate (and, for the
 * reviewer's escalation note, the gate's requester) writes through it.
 *
 * Invariants the adapter keeps: every write here is one transaction that
 * holds both the state change and its audit event, so neither is ever on
 * disk without the other; a failed audit append rolls the state change
 * back; an outcome is written only over a pending approval, never over a
 * decided or expired one; and the canonical action (what the person is
 * shown) never changes once the approval is open.
 */
export interface ApprovalStore {
  get(id: string): ApprovalRecord | undefined
  /** The room's approvals, oldest first. */
  listByRoom(roomId: string): ApprovalRecord[]
  /** The room's approvals of the turns `turnIds` and every one of its
   *  pending approvals whatever its turn, oldest first: what a page of the
   *  timeline lists, so an open card is never missing from one. */
  listForTurns(roomId: string, turnIds: readonly string[]): ApprovalRecord[]
  /** Pending approvals whose expiry is at or before `now`, soonest first. */
  listPendingDue(now: number): ApprovalRecord[]
  /** Every pending approval, oldest first. */
  listPending(): ApprovalRecord[]
  /** Writes a new pending approval with its `approval_requested` event,
   *  which carries `actionDigest`, the digest of its canonical action (the
   *  gate computes it once, and keeps it; computed here when not given). */
  open(approval: ApprovalRecord, actionDigest?: string): void
  /**
   * Writes a decision with its `approval_resolved` event and, when
   * `grantFor` returns one, the allow-always grant it stands for with its
   * `grant_created` event. `grantFor` runs inside the transaction: if it
   * throws, or the approval is no longer pending, nothing is written.
   */
  resolve(
    decided: ApprovalRecord,
    resolution: Resolution,
    at: number,
    grantFor?: (decided: ApprovalRecord) => Grant | undefined,
  ): void
  /** Writes an expiry with its `approval_expired` event. */
  expire(expired: ApprovalRecord, reason: string, at: number): void
  /** Records why the automatic reviewer left the approval to the person,
   *  with its `review_escalated` event (which says whether the reviewer
   *  failed rather than judged); only while the approval is pending, and
   *  never touching what the person is shown. */
  escalate(
    approval: ApprovalRecord,
    reason: string,
    at: number,
    message?: RuntimeMessage,
    options?: { reviewFailed?: boolean },
  ): void
}
