import { RESTART_EXPIRY_REASON, type ApprovalRecord } from '../../contracts/approval.ts'
import type { ToolCallRecord } from '../../contracts/room.ts'
import type { GrantStore } from '../ports/grant-store.ts'
import type { InterruptedWorkStore } from '../ports/interrupted-work-store.ts'
import type { ToolCallResult } from '../ports/conversation-store.ts'
import type { RoomStore } from '../ports/room-store.ts'

/** What a call that was waiting for a decision when the runtime stopped
 *  reads as afterwards: its approval expires at start, and no turn is left
 *  to run it. */
export const INTERRUPTED_CALL_RESULT: ToolCallResult = Object.freeze({
  ok: false,
  output: 'The runtime restarted before anyone decided; it did not run.',
  code: 'approval_expired',
})

export interface CrashRecoveryDeps {
  interrupted: InterruptedWorkStore
  /** Expires every pending approval, with its audit event, and wakes (and
   *  announces) whatever waits on it: the gate's `expireOrphans`. */
  expireOrphanedApprovals: (reason: string) => ApprovalRecord[]
  /** Marks every pending question and form stale and announces it: the
   *  input service's `staleOrphans`. */
  staleOrphanedInputs: () => void
  rooms: Pick<RoomStore, 'list'>
  grants: Pick<GrantStore, 'listActive'>
  now: () => number
}

export interface RecoveryReport {
  /** Executions that were running: their outcome is unknown until a person
   *  reconciles them. */
  unknownExecutions: ToolCallRecord[]
  /** Approvals nobody waits on any more. */
  expiredApprovals: ApprovalRecord[]
}

/**
 * Settles what the previous runtime instance left behind, before this one
 * serves anything:
 * - executions that were running get an unknown outcome (a retry must wait
 *   for a reconcile: blindly running a command twice could do harm), their
 *   turns are interrupted, and calls that were waiting for a decision end
 *   expired, all in one transaction;
 * - pending approvals expire, so a consent token minted for one can no
 *   longer decide it;
 * - pending questions and forms turn stale;
 * - every room's grants are read once, so rows edited on disk while the
 *   runtime was down are reported now, not only when someone next reads
 *   them.
 * Running it again finds nothing left to settle.
 */
export function recoverFromCrash(deps: CrashRecoveryDeps): RecoveryReport {
  const unknownExecutions = deps.interrupted.settleInterrupted(deps.now(), INTERRUPTED_CALL_RESULT)
  const expiredApprovals = deps.expireOrphanedApprovals(RESTART_EXPIRY_REASON)
  deps.staleOrphanedInputs()
  for (const room of deps.rooms.list()) deps.grants.listActive(room.id)
  return { unknownExecutions, expiredApprovals }
}
