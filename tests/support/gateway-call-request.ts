import {
  GatewayCallStateSchema,
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

/** One request to the runtime's gateway routes as assent-gateway makes it,
 *  with the request key of the gateway's credential from the data folder;
 *  throws unless it is answered with `expected`. */
async function gatewayRoute(
  harness: RuntimeHarness,
  route: { method: string; path: string; body?: string; expected: number },
): Promise<unknown> {
  const response = await sentAsGateway(harness, route)
  if (response.status !== route.expected) {
    throw new Error(`the gateway route answered ${response.status}: ${response.body}`)
  }
  return JSON.parse(response.body)
}

/** One request to the runtime's gateway routes as assent-gateway makes it,
 *  answered as it was. */
export async function sentAsGateway(
  harness: RuntimeHarness,
  route: { method: string; path: string; body?: string },
): Promise<{ status: number; body: string }> {
  const file = readGatewayConnectionFile(harness.dataDir)
  return rawHttp({
    port: file.port,
    method: route.method,
    path: route.path,
    headers: [
      ['Authorization', `Bearer ${gatewayLinkKeys(file.gatewayCredential).requestKey}`],
      ...(route.body === undefined
        ? []
        : [['Content-Type', 'application/json'] as [string, string]]),
    ],
    ...(route.body === undefined ? {} : { body: route.body }),
  })
}

/** Opens a call on the runtime's gateway route the way assent-gateway
 *  does. */
export async function openGatewayCall(
  harness: RuntimeHarness,
  request: GatewayCallRequest,
): Promise<GatewayCallState> {
  const body = JSON.stringify(request)
  return GatewayOpenedCallSchema.parse(
    await gatewayRoute(harness, { method: 'POST', path: '/v1/gateway/calls', body, expected: 201 }),
  )
}

/** Reads the call's state as assent-gateway does: its outcome once it
 *  left `pending`, or `pending` after the long poll. */
export async function readGatewayCall(
  harness: RuntimeHarness,
  callId: string,
): Promise<GatewayCallState> {
  const path = `/v1/gateway/calls/${callId}`
  return GatewayCallStateSchema.parse(
    await gatewayRoute(harness, { method: 'GET', path, expected: 200 }),
  )
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
