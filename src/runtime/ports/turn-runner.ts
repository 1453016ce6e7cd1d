import type { Turn } from '../../contracts/room.ts'

/**
 * Where an admitted turn goes to be run by its agent (the agent runner, or a
 * future external agent backend). The turn is already stored, with the
 * policy it was admitted under.
 *
 * Invariant the runner keeps: `start` returns at once and never throws; the
 * turn runs in the background under the policy frozen on it, and every way
 * it ends (a reply, a failure, a stop) is recorded on the turn.
 */
export interface TurnRunner {
  start(turn: Turn, agentId: string): void
}
