import type { InputRequestRecord } from '../../../contracts/input-request.ts'

/** A question or form card. `stale`: the runtime does not confirm it is
 *  still waiting, so the card is muted and offers no buttons. */
export interface InputCard {
  request: InputRequestRecord
  stale: boolean
}

export type InputCards = ReadonlyMap<string, InputCard>

/**
 * A request's identity is its id and its turn: the same request arriving
 * twice (as a request and as a notification) is one card, while two
 * requests that share an id in different turns are two.
 */
export function inputKey(request: Pick<InputRequestRecord, 'id' | 'turnId'>): string {
  return `${request.turnId ?? '-'}:${request.id}`
}

export function isOpenInput(card: InputCard): boolean {
  return card.request.status === 'pending' && !card.stale
}

/** Adds or updates one request. A resolved request never goes back to
 *  pending: an event that arrives late must not reopen a closed card. */
export function upsertInput(cards: InputCards, request: InputRequestRecord): InputCards {
  const key = inputKey(request)
  const current = cards.get(key)
  if (current && current.request.status !== 'pending' && request.status === 'pending') return cards
  const next = new Map(cards)
  next.set(key, { request, stale: request.status === 'stale' })
  return next
}

export function upsertInputs(
  cards: InputCards,
  requests: readonly InputRequestRecord[],
): InputCards {
  return requests.reduce(upsertInput, cards)
}

/**
 * Reconciles the cards with what the runtime confirms now: a card shown as
 * waiting that the runtime no longer lists as pending (gone, or stale) is
 * marked stale, so nobody answers into the void; the runtime's own outcome
 * replaces it where it has one.
 */
export function reconcileInputs(
  cards: InputCards,
  confirmed: readonly InputRequestRecord[],
): InputCards {
  const byKey = new Map(confirmed.map((request) => [inputKey(request), request]))
  const next = new Map<string, InputCard>()
  for (const [key, card] of cards) {
    const truth = byKey.get(key)
    if (truth) next.set(key, { request: truth, stale: truth.status === 'stale' })
    else next.set(key, { ...card, stale: card.stale || card.request.status === 'pending' })
  }
  for (const [key, request] of byKey) {
    if (!next.has(key)) next.set(key, { request, stale: request.status === 'stale' })
  }
  // Nothing changed: keep the same cards, so a room of hundreds of items is
  // not rendered again for nothing.
  return sameCards(cards, next) ? cards : next
}

function sameCards(a: InputCards, b: InputCards): boolean {
  if (a.size !== b.size) return false
  for (const [key, card] of a) {
    const other = b.get(key)
    if (!other || other.stale !== card.stale) return false
    if (JSON.stringify(other.request) !== JSON.stringify(card.request)) return false
  }
  return true
}

export function markInputStale(cards: InputCards, key: string): InputCards {
  const card = cards.get(key)
  if (!card || card.stale) return cards
  return new Map(cards).set(key, { ...card, stale: true })
}

/** Open cards first-come first-served, questions and forms alike. */
export function openInputs(cards: InputCards): InputCard[] {
  return [...cards.values()]
    .filter(isOpenInput)
    .sort((a, b) => a.request.createdAt - b.request.createdAt)
}

/** What a closed card shows: its request's status named by `names`, or
 *  stale (also for a status `names` does not know). */
export function closedOutcome<Names extends Readonly<Record<string, string>>>(
  card: InputCard,
  names: Names,
): Names[keyof Names] | 'stale' {
  const status = card.stale ? 'stale' : card.request.status
  return Object.hasOwn(names, status) ? (names[status] as Names[keyof Names]) : 'stale'
}
