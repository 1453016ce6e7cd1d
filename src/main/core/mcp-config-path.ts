import { isAbsolute } from 'node:path'

/**
 * The mcp.json main hands to the runtime: `ASSENT_MCP_CONFIG` when set, or
 * undefined for the data folder's own `mcp.json`. A relative path is refused
 * rather than resolved against wherever the app happened to start: which
 * servers an agent may reach must not depend on the working directory.
 */
export function mcpConfigPathFromEnv(env: NodeJS.ProcessEnv): string | undefined {
  const value = env.ASSENT_MCP_CONFIG
  if (value === undefined || value === '') return undefined
  if (!isAbsolute(value)) {
    throw new Error(`ASSENT_MCP_CONFIG must be an absolute path to mcp.json, not "${value}"`)
  }
  return value
}
