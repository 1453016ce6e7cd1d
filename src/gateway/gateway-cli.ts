import { homedir } from 'node:os'
import { isAbsolute, join, resolve } from 'node:path'
import type { WorkspaceIdentity } from '../contracts/room.ts'
import { pinMcpWorkspace } from '../runtime/mcp/mcp-workspace.ts'
import { unkeptConfig } from '../runtime/mcp/gateway-config-kept.ts'

export const GATEWAY_USAGE = [
  'usage: assent-gateway --config <mcp.json> [--data-dir <dir>] [--workspace <dir>]',
  '  (npm run --silent gateway -- --config mcp.json)',
  '',
  'Runs an MCP server on stdio that exposes the allowed tools of the servers in',
  '<mcp.json> as server__tool, and asks the person in Assent before each gated call.',
  '  --data-dir   the running Assent data folder (default: $ASSENT_DATA_DIR or ~/.assent-dev)',
  '  --workspace  the folder this gateway serves (default: the current directory)',
  'Relative paths are taken from the folder it was started in, also through npm run.',
].join('\n')

/**
 * The folder the person started the gateway in, which relative flags are
 * taken from. `npm run gateway` runs this package's script in the package's
 * own folder and names the caller's folder in `INIT_CWD`: without it, `npm
 * run gateway -- --config mcp.json` typed in a project would read the
 * package's mcp.json and serve the package's folder as the workspace.
 * Only that script is believed: `INIT_CWD` is inherited by every process
 * an npm script starts, so a client started from some other script would
 * otherwise hand its gateway that script's folder instead of its own.
 */
export function callerFolder(env: NodeJS.ProcessEnv, cwd: string): string {
  const ownScript = env.npm_package_name === 'assent' && env.npm_lifecycle_event === 'gateway'
  const initCwd = env.INIT_CWD
  return ownScript && initCwd !== undefined && isAbsolute(initCwd) ? initCwd : cwd
}

/** Every flag the gateway takes; each needs a value. */
export const GATEWAY_FLAGS = ['--config', '--data-dir', '--workspace'] as const

export interface GatewayArgs {
  config: string
  dataDir: string
  /** The real path of the folder served. */
  workspace: string
  /** That folder pinned as it was at start: every call is checked against
   *  it, so a folder swapped or replaced later is refused, not followed. */
  workspaceIdentity: WorkspaceIdentity
}

export class GatewayUsageError extends Error {}

/** Parses the gateway's flags strictly: an unknown flag or a missing value
 *  is an error naming it, never ignored. */
export function parseGatewayArgs(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
): GatewayArgs {
  const values = new Map<string, string>()
  for (let index = 0; index < argv.length; index += 2) {
    const flag = argv[index] ?? ''
    if (!(GATEWAY_FLAGS as readonly string[]).includes(flag)) {
      throw new GatewayUsageError(`unknown argument ${JSON.stringify(flag)}`)
    }
    const value = argv[index + 1]
    if (value === undefined || value.startsWith('--')) {
      throw new GatewayUsageError(`${flag} needs a value`)
    }
    values.set(flag, value)
  }
  const config = values.get('--config')
  if (config === undefined) throw new GatewayUsageError('--config <mcp.json> is required')
  const configPath = resolve(cwd, config)
  const unkept = unkeptConfig(configPath)
  if (unkept !== null) throw new GatewayUsageError(`--config ${config}: ${unkept}`)
  const workspace = values.get('--workspace') ?? cwd
  const workspaceIdentity = pinMcpWorkspace(resolve(cwd, workspace))
  if ('refused' in workspaceIdentity) {
    const given = values.has('--workspace') ? '' : ' (the current directory: give --workspace)'
    throw new GatewayUsageError(`--workspace ${workspace}${given} ${workspaceIdentity.refused}`)
  }
  return {
    config: configPath,
    dataDir: resolve(
      cwd,
      values.get('--data-dir') ?? env.ASSENT_DATA_DIR ?? join(homedir(), '.assent-dev'),
    ),
    workspace: workspaceIdentity.realPath,
    workspaceIdentity,
  }
}
