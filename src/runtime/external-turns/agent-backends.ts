import type { Turn } from '../../contracts/room.ts'
import type { TurnRunner, TurnStop } from '../ports/turn-runner.ts'

/** A backend that runs the turns of some agents. */
export interface AgentBackend extends TurnRunner {
  handles(agentId: string): boolean
}

/**
 * The one turn runner rooms hand their turns to: a turn whose room names
 * an external agent (agents.json) goes to that backend, every other turn
 * to the offline model's agent runner, which also answers for an agent id
 * it does not know (it fails the turn).
 */
export class AgentBackends implements TurnRunner {
  private readonly offline: TurnRunner
  private readonly external: AgentBackend

  constructor(offline: TurnRunner, external: AgentBackend) {
    this.offline = offline
    this.external = external
  }

  start(turn: Turn, agentId: string): void {
    this.backendFor(agentId).start(turn, agentId)
  }

  stop(turn: Turn, agentId: string): TurnStop {
    return this.backendFor(agentId).stop(turn, agentId)
  }

  private backendFor(agentId: string): TurnRunner {
    return this.external.handles(agentId) ? this.external : this.offline
  }
}
