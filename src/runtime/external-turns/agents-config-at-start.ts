import type { AgentsConfig } from '../../contracts/agents-config.ts'
import { loadAgentsConfig } from '../external-agents/agents-config-loader.ts'
import type { AuditTrail } from '../ports/audit-trail.ts'

/**
 * Loads agents.json when the runtime starts. A refused file is reported (an
 * `agents_config_refused` audit event and the runtime's error log, both
 * naming the field) and the last good list stays in force; the runtime
 * still starts, so rooms with the offline agent and every protected window
 * keep working.
 */
export function loadAgentsConfigAtStart(
  dataDir: string,
  path: string | undefined,
  audit: Pick<AuditTrail, 'recordAgentsConfigRefused'>,
  now: () => number,
  onError: (error: unknown) => void,
): AgentsConfig {
  const loaded = loadAgentsConfig(dataDir, path)
  if (loaded.refused) {
    onError(loaded.refused)
    audit.recordAgentsConfigRefused(
      {
        field: loaded.refused.field,
        message: loaded.refused.message,
        agentsInForce: loaded.config.agents.map((agent) => agent.id),
      },
      now(),
    )
  }
  return loaded.config
}
