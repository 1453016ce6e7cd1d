import type { Turn } from '../../contracts/room.ts'
import {
  allowerStands,
  policyInForce,
  type Allower,
  type RoomNow,
} from '../policy/allower-stands.ts'
import { isPlanPolicy } from '../policy/permission-modes.ts'
import type { EventBus } from '../events/event-bus.ts'
import type { ApprovalStore } from '../ports/approval-store.ts'
import type { ApprovalGate } from './approval-gate.ts'

/** What dropping a late answer needs of the requester. */
export interface DelegateStandingDeps {
  gate: Pick<ApprovalGate, 'withdraw'>
  approvals: Pick<ApprovalStore, 'escalate' | 'get'>
  events: EventBus
  now: () => number
  room: RoomNow
}

/**
 * Whether the answer of someone who decides in the person's place (the
 * reviewer, the webhook) must be dropped, since what lets them decide no
 * longer stands (policy/allower-stands.ts): the person took the decision
 * back while they were asked. Their late answer, allow or deny, is then not
 * recorded. In plan nothing may run, so the approval is withdrawn with why;
 * otherwise it stays pending for the person, with why on it. Either way
 * nobody is left waiting on an answer that was dropped. Called in the same
 * synchronous stretch as the gate's commit of the answer, so no change to
 * the room falls between the two.
 */
export function answerDropped(
  deps: DelegateStandingDeps,
  turn: Turn,
  approvalId: string,
  allower: Allower,
): boolean {
  const fallen = allowerStands(allower, turn, deps.room)
  if (fallen === null) return false
  const current = deps.approvals.get(approvalId)
  if (current?.status !== 'pending') return true
  if (isPlanPolicy(policyInForce(turn, deps.room))) {
    deps.gate.withdraw(approvalId, fallen.reason, fallen.message)
    return true
  }
  deps.approvals.escalate(current, fallen.reason, deps.now(), fallen.message)
  deps.events.emit('timeline.updated', { roomId: turn.roomId })
  return true
}
