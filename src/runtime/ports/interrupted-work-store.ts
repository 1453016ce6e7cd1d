import type { ToolCallRecord } from '../../contracts/room.ts'
import type { ToolCallResult } from './conversation-store.ts'

/**
 * What a previous runtime instance left half done, as crash recovery
 * settles it at start.
 *
 * Invariant the adapter keeps: `settleInterrupted` is one transaction.
 * Every execution that was running becomes `unknown` (nobody knows whether
 * the tool finished, so a retry must wait for a reconcile), each with its
 * `execution_unknown` event; every turn that was running or waiting becomes
 * `interrupted`; every call still awaiting a decision ends `expired` with
 * `awaitingResult`. It answers the calls it marked unknown.
 */
export interface InterruptedWorkStore {
  settleInterrupted(at: number, awaitingResult: ToolCallResult): ToolCallRecord[]
}
