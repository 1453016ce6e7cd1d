import { join } from 'node:path'
import { RUNTIME_LEAD, unkeptConfig } from './gateway-config-kept.ts'
import { EMPTY_MCP_CONFIG, McpConfigSchema, type McpConfig } from '../../contracts/mcp-config.ts'
import {
  loadConfigKeepingLastGood,
  parseConfigFile,
  type LoadedConfig,
} from '../config/strict-config-file.ts'

/** What a refused mcp.json throws, naming the field (the gateway reads it
 *  through here: it shares the runtime's MCP code, not its config folder). */
export { ConfigFileError } from '../config/strict-config-file.ts'

export const MCP_CONFIG_FILE_NAME = 'mcp.json'
/** The last configuration that parsed, kept beside the database so a bad
 *  edit never leaves Assent with no configuration or a half-read one. */
export const MCP_LAST_GOOD_FILE_NAME = 'mcp.last-good.json'

/** The mcp.json the runtime reads: `path`, or `<dataDir>/mcp.json`. */
export function mcpConfigFile(dataDir: string, path?: string): string {
  return path ?? join(dataDir, MCP_CONFIG_FILE_NAME)
}

/** Parses one mcp.json strictly. A missing file is an empty configuration;
 *  anything else wrong throws `ConfigFileError` naming the field (or
 *  `(file)` when it is not JSON at all). */
export function parseMcpConfigFile(path: string): McpConfig {
  return parseConfigFile(path, McpConfigSchema, EMPTY_MCP_CONFIG)
}

export type LoadedMcpConfig = LoadedConfig<McpConfig>

/**
 * Loads `path` (default `<dataDir>/mcp.json`). A file that parses becomes the
 * new last good configuration; one that does not is refused, and the last
 * good configuration stays in force. Failing closed here means an edit that
 * breaks the file never widens anything: it can only leave things as they
 * were, or (on a first start) with no servers at all.
 */
export function loadMcpConfig(dataDir: string, path?: string): LoadedMcpConfig {
  const file = mcpConfigFile(dataDir, path)
  return loadConfigKeepingLastGood(
    file,
    join(dataDir, MCP_LAST_GOOD_FILE_NAME),
    McpConfigSchema,
    EMPTY_MCP_CONFIG,
    // Only a file every door keeps for the person, by its name and where
    // it leads: the runtime starts what it names and reloads it as it
    // changes, and a gateway knows nothing of a name the runtime chose.
    () => unkeptConfig(file, RUNTIME_LEAD),
  )
}
