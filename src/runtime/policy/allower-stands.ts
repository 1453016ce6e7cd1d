import type { ApprovalRecord } from '../../contracts/approval.ts'
import type { RoomPolicy, ToolEffect } from '../../contracts/policy-axes.ts'
import type { Turn } from '../../contracts/room.ts'
import { englishText, message, type RuntimeMessage } from '../../contracts/runtime-message.ts'
import { dispositionFor, grantsHonoured, privateReadDisposition } from './approval-policy.ts'
import { isPlanPolicy, narrowerPolicy } from './permission-modes.ts'

/**
 * The room as it stands now, read afresh at every judgment: what a turn
 * froze when it was admitted can only be narrowed by it, never widened.
 * Invariant the adapter keeps: a room whose stored mode must be confirmed
 * again (its row edited on disk or rolled back) reads as no wider than the
 * narrowest policy of its kind, a room that is gone as plan; the grants
 * and webhook of either read as none.
 */
export interface RoomNow {
  policyOf(roomId: string): RoomPolicy
  grantActive(roomId: string, grantId: string): boolean
  /** The room's approver webhook now: its id, and when it was set. */
  webhookOf(roomId: string): { id: string; setAt: number } | undefined
}

/** What allowed one call: the policy's table (a call that runs unasked),
 *  a read-only manifest (an MCP call that runs unasked), an "always
 *  allow", the person, the automatic reviewer, or the approver webhook
 *  (by its id where the door knows it, else by when it decided). */
export type Allower =
  | { by: 'policy'; effect: ToolEffect; destructive: boolean; privateRead: boolean }
  | { by: 'manifest' }
  | { by: 'grant'; grantId: string }
  | { by: 'person' }
  | { by: 'reviewer' }
  | { by: 'webhook'; webhookId: string }
  | { by: 'webhook'; decidedAt: number }
  | { by: 'unknown' }

/** Why an allow no longer stands: a code the model and the timeline show,
 *  the English the API and logs read, and the person's words. */
export interface AllowFallen {
  code: 'room_narrowed' | 'grant_revoked' | 'webhook_removed'
  reason: string
  message: RuntimeMessage
}

/** The policy a running turn is judged under now: the narrower of the one
 *  it froze and its room's now. */
export function policyInForce(turn: Pick<Turn, 'roomId' | 'policy'>, room: RoomNow): RoomPolicy {
  return narrowerPolicy(turn.policy, room.policyOf(turn.roomId))
}

/** The turn as it is judged now (`policyInForce`); the same object when
 *  its room has not been narrowed below it. */
export function turnInForce<T extends Pick<Turn, 'roomId' | 'policy'>>(turn: T, room: RoomNow): T {
  const policy = policyInForce(turn, room)
  return policy === turn.policy ? turn : { ...turn, policy }
}

/** Who allowed a decided approval. A decider this rule does not know
 *  (nothing else records an allow) stands for nothing. */
export function allowerOfApproval(approval: ApprovalRecord): Allower {
  switch (approval.decidedBy) {
    case 'user':
      return { by: 'person' }
    case 'agent-review':
      return { by: 'reviewer' }
    case 'webhook':
      return approval.decidedAt === undefined
        ? { by: 'unknown' }
        : { by: 'webhook', decidedAt: approval.decidedAt }
    default:
      return { by: 'unknown' }
  }
}

/**
 * Whether what allowed a call still does, judged right before anything
 * acts (after every wait: for the person, the reviewer, the webhook, the
 * disk), under the policy in force now. The one rule every door shares:
 * Assent's own tools, an MCP call in a room, an external agent's request,
 * and the requester before it records a reviewer's or a webhook's answer.
 *
 * - The policy's table: the call must still run unasked under the policy
 *   now (a full-access write after a narrowing would ask: it is refused,
 *   never asked, since nobody waits for a question now).
 * - A read-only manifest, or the person: stand unless the room is in plan,
 *   which runs nothing but reads of its own tools.
 * - An "always allow": still active, and a grant may answer under the
 *   policy now (plan honours none).
 * - The reviewer: the room's mode still names it.
 * - The webhook: still the room's (the same id, or set no later than it
 *   decided) and the room not in plan. A webhook set in the same
 *   millisecond as another's decision cannot be told from it by time: the
 *   requester checks the id right before it records, so that one is
 *   never recorded.
 * Fails closed: a decider it does not know stands for nothing.
 */
export function allowerStands(
  allower: Allower,
  turn: Pick<Turn, 'roomId' | 'policy'>,
  room: RoomNow,
): AllowFallen | null {
  const policy = policyInForce(turn, room)
  const plan = isPlanPolicy(policy)
  switch (allower.by) {
    case 'policy': {
      const { effect, destructive, privateRead } = allower
      const runs = privateRead
        ? privateReadDisposition(policy.approvalPolicy)
        : dispositionFor(policy.approvalPolicy, effect, destructive)
      const readOnly = policy.sandboxMode === 'read-only' && effect !== 'read'
      return runs === 'run' && !readOnly ? null : narrowed()
    }
    case 'manifest':
    case 'person':
      return plan ? narrowed() : null
    case 'grant':
      if (!grantsHonoured(policy.approvalPolicy)) return narrowed()
      return room.grantActive(turn.roomId, allower.grantId) ? null : fallen('grant_revoked')
    case 'reviewer':
      return policy.approvalReviewer === 'agent' && !plan ? null : narrowed()
    case 'webhook': {
      if (plan) return narrowed()
      const webhook = room.webhookOf(turn.roomId)
      if (webhook === undefined) return fallen('webhook_removed')
      const same =
        'webhookId' in allower
          ? webhook.id === allower.webhookId
          : webhook.setAt <= allower.decidedAt
      return same ? null : fallen('webhook_removed')
    }
    default:
      return narrowed()
  }
}

function narrowed(): AllowFallen {
  return fallen('room_narrowed')
}

const WORDS = {
  room_narrowed: message('call.roomNarrowed'),
  grant_revoked: message('call.grantRevoked'),
  webhook_removed: message('call.webhookRemoved'),
} as const

function fallen(code: AllowFallen['code']): AllowFallen {
  const words = WORDS[code]
  return { code, reason: englishText(words), message: words }
}
