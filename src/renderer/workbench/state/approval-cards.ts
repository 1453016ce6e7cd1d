import type { ApprovalSummary } from '../../../runtime/contracts/approval.ts'

/**
 * The approval cards of one room, as the page knows them. The runtime decides
 * everything; these functions only merge what it reported (events and
 * timeline refreshes, in any order) into one card per approval.
 */
export interface CardState {
  approval: ApprovalSummary
  /** The runtime went away (stopped, restarted, lost events) while this card
   *  was open, and has not confirmed since that the agent is still waiting. */
  stale: boolean
}

export type Cards = ReadonlyMap<string, CardState>

export type CardOutcome =
  'pending' | 'approved' | 'always-allowed' | 'rejected' | 'expired' | 'auto-reviewed' | 'stale'

/** A card's identity: the same approval reported twice (an event and a
 *  timeline refresh) is one card. */
export function cardKey(approval: Pick<ApprovalSummary, 'id' | 'turnId'>): string {
  return JSON.stringify([approval.id, approval.turnId])
}

// The runtime expires the approvals a previous instance left pending with
// this reason (src/runtime/runtime-app.ts): nobody is waiting on them any more.
const RESTART_REASON = /runtime restarted/i

export function isRestartExpiry(approval: ApprovalSummary): boolean {
  return approval.status === 'expired' && RESTART_REASON.test(approval.reason ?? '')
}

/**
 * Adds or updates one card. A decided approval never goes back to pending
 * (a late `approval.requested` after the decision changes nothing).
 * `reconcile` marks an answer the runtime gave after it came back: it alone
 * may clear a card's stale mark.
 */
export function mergeApproval(
  cards: Cards,
  approval: ApprovalSummary,
  options: { reconcile?: boolean } = {},
): Cards {
  const key = cardKey(approval)
  const existing = cards.get(key)
  const merged = existing ? newer(existing.approval, approval) : approval
  const stale =
    options.reconcile === true ? false : (existing?.stale ?? false) && merged.status === 'pending'
  if (existing && existing.approval === merged && existing.stale === stale) return cards
  const next = new Map(cards)
  next.set(key, { approval: merged, stale })
  return next
}

/** Merges a timeline the runtime answered after it was last seen going away. */
export function reconcileApprovals(cards: Cards, approvals: readonly ApprovalSummary[]): Cards {
  return approvals.reduce(
    (next, approval) => mergeApproval(next, approval, { reconcile: true }),
    cards,
  )
}

/** The runtime stopped, restarted or lost events: no open card can be trusted
 *  to have an agent waiting behind it until the runtime says so again. */
export function markOpenCardsStale(cards: Cards): Cards {
  if (![...cards.values()].some(isOpen)) return cards
  return new Map(
    [...cards].map(([key, card]) => [key, isOpen(card) ? { ...card, stale: true } : card]),
  )
}

export function isOpen(card: CardState): boolean {
  return card.approval.status === 'pending' && !card.stale
}

/** Open cards in order of arrival: they collect above the composer. */
export function openCards(cards: Cards): CardState[] {
  return [...cards.values()].filter(isOpen).sort(byArrival)
}

export function outcomeOf(card: CardState): CardOutcome {
  const { approval } = card
  if (card.stale) return 'stale'
  switch (approval.status) {
    case 'pending':
      return 'pending'
    case 'expired':
      return isRestartExpiry(approval) ? 'stale' : 'expired'
    case 'allowed':
      if (approval.decidedBy === 'agent-review') return 'auto-reviewed'
      return approval.decision === 'allow-always' ? 'always-allowed' : 'approved'
    case 'denied':
      return approval.decidedBy === 'agent-review' ? 'auto-reviewed' : 'rejected'
  }
}

function newer(current: ApprovalSummary, incoming: ApprovalSummary): ApprovalSummary {
  const settled = (approval: ApprovalSummary) => approval.status !== 'pending'
  if (settled(current) && !settled(incoming)) return current
  return incoming
}

function byArrival(a: CardState, b: CardState): number {
  return (
    a.approval.createdAt - b.approval.createdAt ||
    cardKey(a.approval).localeCompare(cardKey(b.approval))
  )
}
