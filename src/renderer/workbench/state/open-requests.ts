import type { ModeRequest } from '../components/mode-request-card.tsx'
import { cardKey, type CardState } from './approval-cards.ts'
import { inputKey, type InputCard } from './input-cards.ts'

/** A permissions request the picker started, with when it started. */
export interface TimedModeRequest {
  request: ModeRequest
  at: number
}

/** One entry of the block above the composer: whatever asks the person,
 *  each with the time it arrived. */
export type OpenRequest =
  | { kind: 'approval'; key: string; at: number; card: CardState }
  | { kind: 'input'; key: string; at: number; card: InputCard }
  | { kind: 'mode'; key: string; at: number; request: ModeRequest }

export const MODE_REQUEST_KEY = 'mode'

export function approvalRequestKey(card: Pick<CardState, 'approval'>): string {
  return `approval:${cardKey(card.approval)}`
}

export function inputRequestKey(card: Pick<InputCard, 'request'>): string {
  return `input:${inputKey(card.request)}`
}

/**
 * Every open request in one list, in order of arrival whatever its kind:
 * approvals, questions and forms, and a permissions request while its
 * protected window is open. Settled ones are not here: they belong to the
 * timeline.
 */
export function openRequests(
  approvals: readonly CardState[],
  inputs: readonly InputCard[],
  mode?: TimedModeRequest,
): OpenRequest[] {
  const requests: OpenRequest[] = [
    ...approvals.map((card) => ({
      kind: 'approval' as const,
      key: approvalRequestKey(card),
      at: card.approval.createdAt,
      card,
    })),
    ...inputs.map((card) => ({
      kind: 'input' as const,
      key: inputRequestKey(card),
      at: card.request.createdAt,
      card,
    })),
  ]
  if (mode?.request.status === 'waiting') {
    requests.push({ kind: 'mode', key: MODE_REQUEST_KEY, at: mode.at, request: mode.request })
  }
  return requests.sort((a, b) => a.at - b.at || a.key.localeCompare(b.key))
}

/**
 * Which request shows its details: the one the person chose while it is
 * still open, none when they closed it (`null`), otherwise the oldest, the
 * one to decide first. The others show one line with their buttons.
 */
export function expandedRequest(
  requests: readonly OpenRequest[],
  chosen: string | null | undefined,
): string | undefined {
  if (chosen === null) return undefined
  if (chosen !== undefined && requests.some((request) => request.key === chosen)) return chosen
  return requests[0]?.key
}
