import type { ApprovalRecord, CanonicalAction } from '../../contracts/approval.ts'

/** What a stand-in for the person is asked about: the approval, and the
 *  canonical action and digest the protected window would have shown. */
export interface DelegatedApproval {
  approval: ApprovalRecord
  action: CanonicalAction
  actionDigest: string
}

/** Its answer: allow this once, or deny, with a reason for the audit log. */
export interface DelegatedVerdict {
  decision: 'allow-once' | 'deny'
  reason: string
}

/**
 * Someone a room names to decide in the person's place (its approver
 * webhook). The gate's requester asks it where the room's policy would ask
 * the person, and records its answer as `decidedBy: webhook`.
 *
 * Invariant the adapter keeps: `decide` always resolves, and resolves with
 * `allow-once` only for an answer it verified to be about exactly this
 * approval and digest; a timeout, an error or anything it cannot verify is
 * a `deny`.
 */
export interface DelegatedApprover {
  /** Which of the room's webhooks this is: its answer counts only while
   *  the room still names this one (policy/allower-stands.ts). */
  readonly id: string
  decide(request: DelegatedApproval): Promise<DelegatedVerdict>
}
