#!/usr/bin/env node
/**
 * `assent-gateway` (npm run gateway -- --config mcp.json): an MCP server on
 * stdio in front of the servers in mcp.json, asking the person in the
 * running Assent before each gated call. stdout carries MCP; everything
 * this process says goes to stderr.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { AssentGateway } from './gateway-server.ts'
import { GATEWAY_USAGE, GatewayUsageError, parseGatewayArgs } from './gateway-cli.ts'
import { RuntimeConsentClient } from './runtime-consent-client.ts'
import { McpConfigError, parseMcpConfigFile } from '../runtime/mcp/mcp-config-loader.ts'

const log = (line: string) => console.error(line)

let args
let config
try {
  args = parseGatewayArgs(process.argv.slice(2), process.env, process.cwd())
  config = parseMcpConfigFile(args.config)
} catch (error) {
  if (!(error instanceof GatewayUsageError) && !(error instanceof McpConfigError)) throw error
  log(`assent-gateway: ${error.message}`)
  if (error instanceof GatewayUsageError) log(GATEWAY_USAGE)
  process.exit(2)
}

const gateway = new AssentGateway({
  config,
  consent: new RuntimeConsentClient({ dataDir: args.dataDir, workspace: args.workspace }),
  log,
})
const stop = () => void gateway.close().finally(() => process.exit(0))
process.on('SIGINT', stop)
process.on('SIGTERM', stop)
process.stdin.on('end', stop)
await gateway.start(new StdioServerTransport())
log(`assent-gateway: serving ${config.servers.length} server(s) for ${args.workspace}`)
