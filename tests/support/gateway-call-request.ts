import type { GatewayCallRequest } from '../../src/contracts/mcp-gateway.ts'
import type { WorkspaceIdentity } from '../../src/contracts/room.ts'
import { workspaceIdentityNow } from '../../src/runtime/policy/workspace-identity.ts'

const HASH = 'a'.repeat(64)

/** The folder at `workspace` now, pinned as a gateway started there pins
 *  it. */
export function pinnedFolder(workspace: string): WorkspaceIdentity {
  const identity = workspaceIdentityNow(workspace)
  if (identity === null) throw new Error(`${workspace} is not a folder`)
  return identity
}

/** A gateway's request to open one call of a note server's `write_note` for
 *  `workspace` (pinned now, or as given): what the tests that talk to the
 *  gateway routes directly send. */
export function noteCallRequest(workspace: string | WorkspaceIdentity): GatewayCallRequest {
  return {
    workspaceIdentity: typeof workspace === 'string' ? pinnedFolder(workspace) : workspace,
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
