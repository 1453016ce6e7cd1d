import { writePrivately } from '../config/private-file.ts'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { EMPTY_MCP_CONFIG, McpConfigSchema, type McpConfig } from '../../contracts/mcp-config.ts'

export const MCP_CONFIG_FILE_NAME = 'mcp.json'
/** The last configuration that parsed, kept beside the database so a bad
 *  edit never leaves Assent with no configuration or a half-read one. */
export const MCP_LAST_GOOD_FILE_NAME = 'mcp.last-good.json'

/** A configuration file that cannot be used, with the field that is wrong. */
export class McpConfigError extends Error {
  readonly field: string

  constructor(file: string, field: string, message: string) {
    super(`${file}: ${field}: ${message}`)
    this.field = field
  }
}

/** Parses one configuration file strictly. A missing file is an empty
 *  configuration; anything else wrong throws `McpConfigError` naming the
 *  field (or `(file)` when it is not JSON at all). */
export function parseMcpConfigFile(path: string): McpConfig {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return EMPTY_MCP_CONFIG
    throw new McpConfigError(path, '(file)', `cannot be read: ${(error as Error).message}`)
  }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    throw new McpConfigError(path, '(file)', `is not JSON: ${(error as Error).message}`)
  }
  const parsed = McpConfigSchema.safeParse(value)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    const field = issue?.path.length ? issue.path.join('.') : '(root)'
    throw new McpConfigError(path, field, issue?.message ?? 'invalid')
  }
  return parsed.data
}

export interface LoadedMcpConfig {
  config: McpConfig
  /** Why the file was refused, when it was; `config` is then the previous
   *  good one (or empty). */
  refused?: McpConfigError
}

/**
 * Loads `path` (default `<dataDir>/mcp.json`). A file that parses becomes the
 * new last good configuration; one that does not is refused, and the last
 * good configuration stays in force. Failing closed here means an edit that
 * breaks the file never widens anything: it can only leave things as they
 * were, or (on a first start) with no servers at all.
 */
export function loadMcpConfig(dataDir: string, path?: string): LoadedMcpConfig {
  const file = path ?? join(dataDir, MCP_CONFIG_FILE_NAME)
  const lastGood = join(dataDir, MCP_LAST_GOOD_FILE_NAME)
  try {
    const config = parseMcpConfigFile(file)
    writePrivately(lastGood, `${JSON.stringify(config, null, 2)}\n`)
    return { config }
  } catch (error) {
    if (!(error instanceof McpConfigError)) throw error
    let previous: McpConfig = EMPTY_MCP_CONFIG
    try {
      previous = parseMcpConfigFile(lastGood)
    } catch {
      // A damaged last-good copy is no configuration at all: no servers.
    }
    return { config: previous, refused: error }
  }
}
