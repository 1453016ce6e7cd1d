import { join } from 'node:path'
import {
  AgentsConfigSchema,
  EMPTY_AGENTS_CONFIG,
  type AgentsConfig,
} from '../../contracts/agents-config.ts'
import { loadConfigKeepingLastGood, type LoadedConfig } from '../config/strict-config-file.ts'

export const AGENTS_CONFIG_FILE_NAME = 'agents.json'
/** The last configuration that parsed, kept beside the database so a bad
 *  edit never leaves Assent with a half-read list of agents. */
export const AGENTS_LAST_GOOD_FILE_NAME = 'agents.last-good.json'

/**
 * Loads `path` (default `<dataDir>/agents.json`): the external agents a room
 * may run. Unknown keys are refused with the field named, and a refused file
 * leaves the last good list in force (no agents on a first start), so an edit
 * that breaks the file can never start a program nobody configured.
 */
export function loadAgentsConfig(dataDir: string, path?: string): LoadedConfig<AgentsConfig> {
  return loadConfigKeepingLastGood(
    path ?? join(dataDir, AGENTS_CONFIG_FILE_NAME),
    join(dataDir, AGENTS_LAST_GOOD_FILE_NAME),
    AgentsConfigSchema,
    EMPTY_AGENTS_CONFIG,
  )
}
