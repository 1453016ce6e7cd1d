import {
  deciderOf,
  RESTART_EXPIRY_REASON,
  type ApprovalSummary,
} from '../../../contracts/approval.ts'

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
  /** The runtime said it no longer waits on this approval (a review found
   *  it decided, expired or unknown, or a timeline page no longer lists it).
   *  Only the runtime reporting it decided ends this. */
  gone?: true
  /** Which approval event last reported it (see `mergeApproval`). */
  seenAt?: number
}

export type Cards = ReadonlyMap<string, CardState>

export type CardOutcome =
  | 'pending'
  | 'approved'
  | 'always-allowed'
  | 'rejected'
  | 'expired'
  | 'auto-reviewed'
  | 'webhook-decided'
  | 'stale'

/** A card's identity: the same approval reported twice (an event and a
 *  timeline refresh) is one card. */
export function cardKey(approval: Pick<ApprovalSummary, 'id' | 'turnId'>): string {
  return JSON.stringify([approval.id, approval.turnId])
}

/** Whether the runtime expired this approval at start because the instance
 *  that asked for it was gone (src/runtime/recovery/crash-recovery.ts): nobody
 *  is waiting on it any more. */
export function isRestartExpiry(approval: ApprovalSummary): boolean {
  return approval.status === 'expired' && approval.reason === RESTART_EXPIRY_REASON
}

/**
 * Adds or updates one card. A decided approval never goes back to pending
 * (a late `approval.requested` after the decision changes nothing).
 * `reconcile` marks an answer the runtime gave after it came back: it alone
 * may clear a card's stale mark, except on a card the runtime said is gone,
 * which never reopens (once decided, it shows the decision).
 * `seenAt` numbers the approval event this came from.
 */
export function mergeApproval(
  cards: Cards,
  approval: ApprovalSummary,
  options: { reconcile?: boolean; seenAt?: number } = {},
): Cards {
  const key = cardKey(approval)
  const card = mergedCard(cards.get(key), approval, options)
  return card ? new Map(cards).set(key, card) : cards
}

/** The card `approval` makes of `existing` (see mergeApproval), or
 *  undefined when it changes nothing. */
function mergedCard(
  existing: CardState | undefined,
  approval: ApprovalSummary,
  options: { reconcile?: boolean; seenAt?: number },
): CardState | undefined {
  const merged = existing ? newer(existing.approval, approval) : approval
  const pending = merged.status === 'pending'
  const gone = existing?.gone === true && pending
  const stale = gone || (options.reconcile === true ? false : (existing?.stale ?? false) && pending)
  const seenAt = options.seenAt ?? existing?.seenAt
  if (
    existing &&
    existing.approval === merged &&
    existing.stale === stale &&
    (existing.gone === true) === gone &&
    existing.seenAt === seenAt
  )
    return undefined
  return {
    approval: merged,
    stale,
    ...(gone ? { gone: true as const } : {}),
    ...(seenAt === undefined ? {} : { seenAt }),
  }
}

/**
 * Merges the approvals of a timeline page the runtime answered after it was
 * last seen going away. A pending card the page does not list is gone:
 * every page lists every approval of the room still pending, so nobody
 * waits on it. Unless an event reported it after the page was asked for
 * (`askedAt`, in the event numbering of `seenAt`): then the page is simply
 * older than the card.
 */
export function reconcileApprovals(
  cards: Cards,
  approvals: readonly ApprovalSummary[],
  askedAt: number = Number.POSITIVE_INFINITY,
): Cards {
  // One copy for the whole timeline, not one per approval: a long room
  // lists hundreds.
  let copy: Map<string, CardState> | undefined
  for (const approval of approvals) {
    const key = cardKey(approval)
    const card = mergedCard((copy ?? cards).get(key), approval, { reconcile: true })
    if (card) (copy ??= new Map(cards)).set(key, card)
  }
  const merged: Cards = copy ?? cards
  const listed = new Set(approvals.map(cardKey))
  const missing = [...merged].filter(
    ([key, card]) =>
      card.approval.status === 'pending' &&
      !card.stale &&
      !listed.has(key) &&
      (card.seenAt ?? 0) <= askedAt,
  )
  if (missing.length === 0) return merged
  const next = new Map(merged)
  for (const [key, card] of missing) next.set(key, { ...card, stale: true, gone: true })
  return next
}

/** The runtime said it no longer waits on this approval: the card turns
 *  stale at once, and shows the decision when a refresh brings it. */
export function markApprovalGone(cards: Cards, approval: ApprovalSummary): Cards {
  const key = cardKey(approval)
  const existing = cards.get(key)
  if (!existing || existing.approval.status !== 'pending' || existing.gone === true) return cards
  return new Map(cards).set(key, { ...existing, stale: true, gone: true })
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
    case 'denied':
      return decidedOutcome(approval)
  }
}

/** A decision the person did not make is never shown as theirs: the
 *  automatic reviewer's and the approver webhook's have outcomes of their
 *  own, with their reasons as the card's note. */
function decidedOutcome(approval: ApprovalSummary): CardOutcome {
  const decider = deciderOf(approval.decidedBy)
  if (decider === 'automatic-review') return 'auto-reviewed'
  if (decider === 'approver-webhook') return 'webhook-decided'
  if (approval.status === 'denied') return 'rejected'
  return approval.decision === 'allow-always' || approval.decision === 'allow-always-server'
    ? 'always-allowed'
    : 'approved'
}

function newer(current: ApprovalSummary, incoming: ApprovalSummary): ApprovalSummary {
  const settled = (approval: ApprovalSummary) => approval.status !== 'pending'
  if (settled(current) && !settled(incoming)) return current
  // The reviewer's reason is recorded after the approval was created and is
  // never removed while it waits: a report without it (the approval.requested
  // event, a timeline asked for earlier) is older, not a retraction.
  if (
    !settled(incoming) &&
    incoming.escalationReason === undefined &&
    current.escalationReason !== undefined
  )
    return { ...incoming, escalationReason: current.escalationReason }
  return incoming
}

function byArrival(a: CardState, b: CardState): number {
  return (
    a.approval.createdAt - b.approval.createdAt ||
    cardKey(a.approval).localeCompare(cardKey(b.approval))
  )
}
