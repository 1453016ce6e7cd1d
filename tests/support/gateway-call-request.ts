import {
  GatewayOpenedCallSchema,
  type GatewayCallRequest,
  type GatewayCallState,
} from '../../src/contracts/mcp-gateway.ts'
import type { WorkspaceIdentity } from '../../src/contracts/room.ts'
import type { McpConsentRequest } from '../../src/runtime/mcp/gated-mcp-call.ts'
import { gatewayLinkKeys } from '../../src/runtime/mcp/gateway-answer-proof.ts'
import { readGatewayConnectionFile } from '../../src/runtime/mcp/gateway-connection-file.ts'
import { workspaceIdentityNow } from '../../src/runtime/policy/workspace-identity.ts'
import { rawHttp, type RuntimeHarness } from './runtime-harness.ts'

const HASH = 'a'.repeat(64)

/** The folder at `workspace` now, pinned as a gateway started there pins
 *  it. */
export function pinnedFolder(workspace: string): WorkspaceIdentity {
  const identity = workspaceIdentityNow(workspace)
  if (identity === null) throw new Error(`${workspace} is not a folder`)
  return identity
}

/** What assent-gateway sends the runtime for what it would ask the
 *  person (`shown`: a governed request, say) for `workspace`, pinned now. */
export function gatewayRequestOf(shown: McpConsentRequest, workspace: string): GatewayCallRequest {
  return {
    workspaceIdentity: pinnedFolder(workspace),
    serverId: shown.serverId,
    serverName: shown.serverName,
    toolName: shown.toolName,
    toolDescription: shown.toolDescription,
    inputSchemaHash: shown.inputSchemaHash,
    definitionHash: shown.definitionHash,
    arguments: shown.arguments,
    preview: shown.preview,
    serverTools: shown.serverTools,
    ...(shown.serverFolder === undefined ? {} : { serverFolder: shown.serverFolder }),
  }
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

/** Opens a call on the runtime's gateway route the way assent-gateway
 *  does, with the request key of the gateway's credential from the data
 *  folder. */
export async function openGatewayCall(
  harness: RuntimeHarness,
  request: GatewayCallRequest,
): Promise<GatewayCallState> {
  const file = readGatewayConnectionFile(harness.dataDir)
  const response = await rawHttp({
    port: file.port,
    method: 'POST',
    path: '/v1/gateway/calls',
    headers: [
      ['Authorization', `Bearer ${gatewayLinkKeys(file.gatewayCredential).requestKey}`],
      ['Content-Type', 'application/json'],
    ],
    body: JSON.stringify(request),
  })
  if (response.status !== 201) {
    throw new Error(`the gateway route answered ${response.status}: ${response.body}`)
  }
  return GatewayOpenedCallSchema.parse(JSON.parse(response.body))
}

/** A gateway's request to open one call of a file server's `put_file` for
 *  `workspace` (pinned now), whose definition and tool list hash to `hash`. */
export function putFileRequest(
  workspace: string,
  args: Record<string, unknown>,
  hash = 'b'.repeat(64),
): GatewayCallRequest {
  return {
    workspaceIdentity: pinnedFolder(workspace),
    serverId: 'files',
    serverName: 'Files',
    toolName: 'put_file',
    toolDescription: 'Writes a file.',
    inputSchemaHash: hash,
    definitionHash: hash,
    arguments: args,
    preview: null,
    serverTools: { names: ['put_file'], hash },
  }
}

/** A gated call of a shell server's `run` tool for `workspace` (pinned
 *  now), running `command` with bash -c, as assent-gateway sends one. */
export function shellToolRequest(
  workspace: string,
  command: string,
  hash = 'c'.repeat(64),
): GatewayCallRequest {
  return {
    workspaceIdentity: pinnedFolder(workspace),
    serverId: 'shell',
    serverName: 'Shell',
    toolName: 'run',
    toolDescription: 'Runs a command line with bash -c.',
    inputSchemaHash: hash,
    definitionHash: hash,
    arguments: { command },
    preview: null,
    serverTools: { names: ['run'], hash },
  }
}
