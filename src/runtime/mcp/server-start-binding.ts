import { canonicalJson } from '../../contracts/canonical-json.ts'
import { sha256Hex } from '../domain/sha256.ts'
import type { McpServer } from './mcp-connection.ts'
import { serverFolderOf } from './mcp-workspace.ts'

/**
 * `hash` (what an "always allow" on an MCP server is given on: one tool's
 * definition, the server's whole tool list, or a governed method) bound to
 * the server as the person was shown it and as it is started: its name,
 * the folder it works in ("Server works in"), its command and arguments,
 * or its URL. A grant is matched by this hash alone, so without the start
 * in it a grant kept answering after mcp.json started another program
 * under the same id that offers a tool of the same definition, or the
 * same program in another folder, where the same relative arguments name
 * other files: the person allowed the server they were shown, not
 * whatever later answers to its id. Its `env` is left out: a value there
 * may be a token, and this hash is stored and shown.
 */
export function boundToServerStart(
  server: Pick<McpServer, 'id' | 'name' | 'transport'>,
  hash: string,
): string {
  const transport = server.transport
  const started =
    transport.type === 'stdio'
      ? { command: transport.command, args: transport.args }
      : { url: transport.url }
  return sha256Hex(
    canonicalJson({
      hash,
      serverName: server.name,
      serverFolder: serverFolderOf(server) ?? null,
      transport: transport.type,
      ...started,
    }),
  )
}
