import type { AgentSummary } from '../../../contracts/agents-config.ts'
import { sendJson } from '../http-kit.ts'
import type { Route } from '../router.ts'

export interface AgentRouteDeps {
  /** The agents a room may be created with. */
  agents: () => AgentSummary[]
}

export function agentRoutes(deps: AgentRouteDeps): Route[] {
  return [
    {
      method: 'GET',
      pattern: '/v1/agents',
      handle: async ({ res }) => sendJson(res, 200, { agents: deps.agents() }),
    },
  ]
}
