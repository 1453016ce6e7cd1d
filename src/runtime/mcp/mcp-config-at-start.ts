import type { McpConfig } from '../../contracts/mcp-config.ts'
import type { AuditTrail } from '../ports/audit-trail.ts'
import { loadMcpConfig } from './mcp-config-loader.ts'

/**
 * Loads mcp.json when the runtime starts. A refused file is reported (an
 * `mcp_config_refused` audit event and the runtime's error log, both naming
 * the field) and the last good configuration stays in force; the runtime
 * still starts, because refusing to start would also take away every
 * consent window for the tools that were fine.
 */
export function loadMcpConfigAtStart(
  dataDir: string,
  path: string | undefined,
  audit: Pick<AuditTrail, 'recordMcpConfigRefused'>,
  now: () => number,
  onError: (error: unknown) => void,
): McpConfig {
  const loaded = loadMcpConfig(dataDir, path)
  if (loaded.refused) {
    onError(loaded.refused)
    const refused = loaded.refused
    audit.recordMcpConfigRefused(
      {
        field: refused.field,
        message: refused.message,
        serversInForce: loaded.config.servers.map((server) => server.id),
      },
      now(),
    )
  }
  return loaded.config
}
