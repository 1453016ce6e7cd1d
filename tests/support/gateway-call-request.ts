import type { GatewayCallRequest } from '../../src/contracts/mcp-gateway.ts'

const HASH = 'a'.repeat(64)

/** A gateway's request to open one call of a note server's `write_note` for
 *  `workspace`: what the tests that talk to the gateway routes directly send. */
export function noteCallRequest(workspace: string): GatewayCallRequest {
  return {
    workspace,
    serverId: 'notes',
    serverName: 'Notes',
    toolName: 'write_note',
    toolDescription: 'Writes a note.',
    inputSchemaHash: HASH,
    definitionHash: HASH,
    arguments: { name: 'x.txt', text: 'x' },
    preview: null,
    serverTools: { names: ['write_note'], hash: HASH },
  }
}
