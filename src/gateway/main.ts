#!/usr/bin/env node
/**
 * `assent-gateway` (npm run --silent gateway -- --config mcp.json): an MCP server on
 * stdio in front of the servers in mcp.json, asking the person in the
 * running Assent before each gated call. stdout carries MCP; everything
 * this process says goes to stderr.
 */
import { homedir } from 'node:os'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { AssentGateway } from './gateway-server.ts'
import { GATEWAY_USAGE, GatewayUsageError, callerFolder, parseGatewayArgs } from './gateway-cli.ts'
import { RuntimeConsentClient } from './runtime-consent-client.ts'
import {
  ConfigFileError,
  parseMcpConfigFile,
  type LoadedMcpConfig,
} from '../runtime/mcp/mcp-config-loader.ts'
import { McpConfigReloader } from '../runtime/mcp/mcp-config-reloader.ts'
import { judgeCredentialPlacesOf, refuseMcpCallsNaming } from '../runtime/mcp/mcp-call-judgment.ts'
import { unkeptConfig } from '../runtime/mcp/gateway-config-kept.ts'

const log = (line: string) => console.error(line)

let args
let config
try {
  args = parseGatewayArgs(
    process.argv.slice(2),
    process.env,
    callerFolder(process.env, process.cwd()),
  )
  config = parseMcpConfigFile(args.config)
} catch (error) {
  if (!(error instanceof GatewayUsageError) && !(error instanceof ConfigFileError)) throw error
  log(`assent-gateway: ${error.message}`)
  if (error instanceof GatewayUsageError) log(GATEWAY_USAGE)
  process.exit(2)
}

// No MCP call through the gateway may read or change what decides which
// servers run and what runs unasked (gated-mcp-call.ts refuses it).
refuseMcpCallsNaming([args.config, args.dataDir])
// A credential place the environment moved (`$GNUPGHOME`) is judged as
// the home folder's own: a read of it asks, a change needs the person.
judgeCredentialPlacesOf(process.env, homedir())
const consent = new RuntimeConsentClient({
  dataDir: args.dataDir,
  workspaceIdentity: args.workspaceIdentity,
  log,
})
// The room's mode decides whether anything runs without asking (nothing
// does in plan mode): watched from the start, while the servers start, so
// the first call finds it known (gateway-mode-watch.ts).
consent.watchMode()
const gateway = new AssentGateway({
  config,
  consent,
  workspace: args.workspace,
  log,
})
const configFile = args.config
// Edits to mcp.json apply to calls that start after them. A file that no
// longer parses changes nothing: the configuration in force stays.
const reloader: McpConfigReloader = new McpConfigReloader({
  file: configFile,
  load: (): LoadedMcpConfig => {
    try {
      // Judged again at each change, as at the start: a config that has
      // become a link to a file under another name, which no door keeps
      // for the person, is not followed.
      const unkept = unkeptConfig(configFile)
      if (unkept !== null) throw new ConfigFileError(configFile, '(file)', unkept)
      return { config: parseMcpConfigFile(configFile) }
    } catch (error) {
      if (!(error instanceof ConfigFileError)) throw error
      return { config: reloader.inForce, refused: error }
    }
  },
  initial: config,
  apply: (next) => gateway.apply(next),
  reports: {
    refused: (error, inForce) =>
      log(`assent-gateway: ${error.message}; still serving ${inForce.join(', ') || 'nothing'}`),
    applied: (servers) =>
      log(`assent-gateway: ${configFile} reloaded; serving ${servers.join(', ') || 'nothing'}`),
  },
  onError: (error) => log(`assent-gateway: ${String(error)}`),
})
const stop = () => {
  reloader.close()
  void gateway.close().finally(() => process.exit(0))
}
process.on('SIGINT', stop)
process.on('SIGTERM', stop)
process.stdin.on('end', stop)
await gateway.start(new StdioServerTransport())
reloader.start()
log(`assent-gateway: serving ${config.servers.length} server(s) for ${args.workspace}`)
