import { spawn } from 'node:child_process'
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { pathWithBwrap } from './scripted-agents-config.ts'
import type { InstalledAgents } from './agent-cache.ts'
import { writeScriptedCodexHome } from './codex-home.ts'

/** `assent-gateway`'s entry in this checkout. */
export const GATEWAY_ENTRY = fileURLToPath(new URL('../../src/gateway/main.ts', import.meta.url))

/** The pinned `@modelcontextprotocol/server-filesystem`'s entry. */
export const FILESYSTEM_SERVER_ENTRY = fileURLToPath(
  new URL(
    '../../node_modules/@modelcontextprotocol/server-filesystem/dist/index.js',
    import.meta.url,
  ),
)

/** The name Codex knows the gateway by: its tools reach the model in the
 *  namespace `mcp__<name>`. */
export const CODEX_GATEWAY_SERVER = 'assent'
export const CODEX_GATEWAY_NAMESPACE = `mcp__${CODEX_GATEWAY_SERVER}`

/**
 * An `mcp.json` for the gateway with the real filesystem server behind it,
 * scoped to `folder`: `fs-read` reads without asking (a read-only
 * manifest), `fs` writes behind consent. Returns the file's path.
 */
export function writeFilesystemGatewayConfig(configDir: string, folder: string): string {
  mkdirSync(configDir, { recursive: true })
  const transport = {
    type: 'stdio',
    command: process.execPath,
    args: [FILESYSTEM_SERVER_ENTRY, folder],
  }
  const path = join(configDir, 'mcp.json')
  writeFileSync(
    path,
    JSON.stringify({
      servers: [
        {
          id: 'fs-read',
          name: 'Project files (read)',
          transport,
          allowed_tools: ['read_text_file', 'list_directory'],
          manifest: { readonly: true },
        },
        { id: 'fs', name: 'Project files', transport, allowed_tools: ['write_file'] },
      ],
    }),
  )
  return path
}

/**
 * The `[mcp_servers.assent]` table a person adds to Codex's config.toml:
 * the gateway on stdio, with its config, the data folder of the running Assent
 * and the workspace. Codex's own approval of MCP calls is off for it
 * (`default_tools_approval_mode = "approve"`): the gateway asks the person
 * in Assent's protected window, so Codex asking again would only ask twice.
 * A call may wait for the person up to an approval's lifetime (120 s), so the
 * tool timeout is longer than that.
 */
export function codexGatewayToml(options: {
  command: string
  args: readonly string[]
  startupTimeoutSec?: number
}): string {
  return [
    `[mcp_servers.${CODEX_GATEWAY_SERVER}]`,
    `command = ${JSON.stringify(options.command)}`,
    `args = [${options.args.map((arg) => JSON.stringify(arg)).join(', ')}]`,
    'required = true',
    `startup_timeout_sec = ${options.startupTimeoutSec ?? 30}`,
    'tool_timeout_sec = 300',
    'default_tools_approval_mode = "approve"',
    '',
  ].join('\n')
}

/**
 * A throwaway Codex home whose model is the scripted one and whose only MCP
 * server is the gateway, in front of `configPath`, asking the Assent that
 * runs on `dataDir`. Returns the variables the `codex` process needs.
 */
export function writeCodexGatewayHome(options: {
  home: string
  modelBaseUrl: string
  workspace: string
  configPath: string
  dataDir: string
  startupTimeoutSec?: number
}): Record<string, string> {
  const environment = writeScriptedCodexHome(options.home, options.modelBaseUrl, options.workspace)
  appendFileSync(
    join(options.home, 'config.toml'),
    codexGatewayToml({
      command: process.execPath,
      args: [
        GATEWAY_ENTRY,
        '--config',
        options.configPath,
        '--data-dir',
        options.dataDir,
        '--workspace',
        options.workspace,
      ],
      ...(options.startupTimeoutSec === undefined
        ? {}
        : { startupTimeoutSec: options.startupTimeoutSec }),
    }),
  )
  return environment
}

export interface CodexRun {
  pid: number | undefined
  /** Resolves when Codex exits, with its exit code and everything it
   *  printed (stdout and stderr, in order of arrival). */
  done: Promise<{ code: number | null; output: string }>
  kill(): void
}

/** `codex exec` on one prompt in `workspace`, non-interactively. */
export function runCodexExec(options: {
  agents: InstalledAgents
  environment: Record<string, string>
  workspace: string
  prompt: string
}): CodexRun {
  const child = spawn(
    options.agents.codex,
    ['exec', '--skip-git-repo-check', '-C', options.workspace, options.prompt],
    {
      env: { ...process.env, ...options.environment, PATH: pathWithBwrap(options.agents) },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  let output = ''
  const collect = (chunk: Buffer) => {
    output += chunk.toString('utf8')
  }
  child.stdout.on('data', collect)
  child.stderr.on('data', collect)
  const done = new Promise<{ code: number | null; output: string }>((resolve, reject) => {
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, output }))
  })
  return { pid: child.pid, done, kill: () => child.kill('SIGTERM') }
}
