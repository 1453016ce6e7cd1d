import type { McpConfig } from '../../contracts/mcp-config.ts'
import type { AuditTrail } from '../ports/audit-trail.ts'
import { loadMcpConfig } from './mcp-config-loader.ts'
import type { McpConfigReports } from './mcp-config-reloader.ts'

type McpConfigAudit = Pick<AuditTrail, 'recordMcpConfigRefused' | 'recordMcpConfigApplied'>

/** How the runtime reports mcp.json, at start and on every reload: a
 *  refusal in its error log and an `mcp_config_refused` audit event, both
 *  naming the field; a new configuration as `mcp_config_applied`. */
export function auditedMcpConfigReports(
  audit: McpConfigAudit,
  now: () => number,
  onError: (error: unknown) => void,
): McpConfigReports {
  return {
    refused(error, serversInForce) {
      onError(error)
      audit.recordMcpConfigRefused(
        { field: error.field, message: error.message, serversInForce },
        now(),
      )
    },
    applied(serversInForce, change) {
      audit.recordMcpConfigApplied({ serversInForce, ...change }, now())
    },
  }
}

/**
 * Loads mcp.json when the runtime starts. A refused file is reported and
 * the last good configuration stays in force; the runtime still starts,
 * because refusing to start would also take away every protected window for
 * the tools that were fine.
 */
export function loadMcpConfigAtStart(
  dataDir: string,
  path: string | undefined,
  reports: McpConfigReports,
): McpConfig {
  const loaded = loadMcpConfig(dataDir, path)
  if (loaded.refused) {
    reports.refused(
      loaded.refused,
      loaded.config.servers.map((server) => server.id),
    )
  }
  return loaded.config
}
