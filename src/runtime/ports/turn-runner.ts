import type { Turn } from '../../contracts/room.ts'

/**
 * Where an admitted turn goes to be run by its agent (the offline model's
 * agent runner, or the backend of an external agent from agents.json). The
 * turn is already stored, with the policy it was admitted under.
 *
 * Invariant the runner keeps: `start` returns at once and never throws; the
 * turn runs in the background under the policy frozen on it, and every way
 * it ends (a reply, a failure, a stop) is recorded on the turn.
 */
export interface TurnRunner {
  start(turn: Turn, agentId: string): void
  /** The person asked to stop a running or waiting turn: `stopping` when
   *  the runner will end it interrupted (and records why), `not-running`
   *  when it runs nothing of it, `not-stoppable` when its agent's turns end
   *  only by themselves. Returns at once and never throws. */
  stop(turn: Turn, agentId: string): TurnStop
}

export type TurnStop = 'stopping' | 'not-running' | 'not-stoppable'
