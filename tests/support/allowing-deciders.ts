import type { ActionReviewer } from '../../src/runtime/policy/reviewer.ts'
import type { DelegatedApprover } from '../../src/runtime/ports/delegated-approver.ts'

/** An approve-for-me reviewer that allows whatever it is shown. */
export const REVIEWER_ALLOWS: ActionReviewer = {
  review: () => Promise.resolve({ verdict: 'allow', reason: 'looks fine to me' }),
}

/** An approver webhook that allows whatever it is sent. */
export const WEBHOOK_ALLOWS: DelegatedApprover = {
  decide: () => Promise.resolve({ decision: 'allow-once', reason: 'webhook ok' }),
}

/**
 * The two deciders that may answer an external agent's request for the
 * person, each allowing everything, with the mode that consults it: what
 * a row neither may answer must reach the person even so.
 */
export const ALLOWING_DECIDERS = [
  { by: 'agent-review', mode: 'approve-for-me', parts: { reviewer: REVIEWER_ALLOWS } },
  { by: 'webhook', mode: 'ask-for-approval', parts: { delegate: WEBHOOK_ALLOWS } },
] as const
