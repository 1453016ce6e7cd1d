import type { AssentGui, RelayRequest, RelayResponse } from '../common/assent-gui.ts'
import type { TimelinePageRequest } from '../contracts/room.ts'
import type { WorkbenchTransport } from './transport.ts'

/**
 * Builds `window.assentGui` over a transport. Every argument is passed on
 * as given, extra ones included: main parses strictly, so a forged
 * `reviewApproval(id, { decision: 'allow' })` reaches main and is refused
 * there with an error the page sees, rather than silently trimmed here.
 */
export function createAssentGui(transport: WorkbenchTransport): AssentGui {
  const relay = (request: RelayRequest) =>
    transport.invoke('relay', [request]) as Promise<RelayResponse>
  const room = (roomId: string) => `/v1/rooms/${encodeId(roomId)}`
  return Object.freeze({
    listAgents: () => relay({ method: 'GET', path: '/v1/agents' }),
    listRooms: () => relay({ method: 'GET', path: '/v1/rooms' }),
    createRoom: (input: unknown) => relay({ method: 'POST', path: '/v1/rooms', body: input }),
    getRoom: (roomId: string) => relay({ method: 'GET', path: room(roomId) }),
    sendMessage: (roomId: string, input: unknown) =>
      relay({ method: 'POST', path: `${room(roomId)}/messages`, body: input }),
    timelinePage: (roomId: string, page: TimelinePageRequest) =>
      relay({
        method: 'GET',
        path:
          page.kind === 'recent'
            ? `${room(roomId)}/timeline/recent`
            : `${room(roomId)}/timeline/${encodeId(page.kind)}/${encodeId(page.turnId)}`,
      }),
    approvals: (roomId: string) => relay({ method: 'GET', path: `${room(roomId)}/approvals` }),
    permissions: (roomId: string) =>
      relay({ method: 'GET', path: `${room(roomId)}/direct/permissions` }),
    grants: (roomId: string) => relay({ method: 'GET', path: `${room(roomId)}/grants` }),
    approverWebhook: (roomId: string) =>
      relay({ method: 'GET', path: `${room(roomId)}/approver-webhook` }),
    revokeGrant: (roomId: string, grantId: string) =>
      relay({ method: 'DELETE', path: `${room(roomId)}/grants/${encodeId(grantId)}` }),
    revokeServerGrants: (roomId: string, serverId: string) =>
      relay({
        method: 'DELETE',
        path: `${room(roomId)}/mcp-servers/${encodeId(serverId)}/grants`,
      }),
    retryTurn: (turnId: string) =>
      relay({ method: 'POST', path: `/v1/turns/${encodeId(turnId)}/retry` }),
    stopTurn: (turnId: string) =>
      relay({ method: 'POST', path: `/v1/turns/${encodeId(turnId)}/stop` }),
    globalSettings: () => relay({ method: 'GET', path: '/v1/settings/global' }),
    inputRequests: (roomId: string) =>
      relay({ method: 'GET', path: `${room(roomId)}/input-requests` }),
    respondToInput: (requestId: string, response: unknown) =>
      relay({
        method: 'POST',
        path: `/v1/input-requests/${encodeId(requestId)}/response`,
        body: response,
      }),
    keepWaiting: (requestId: string) =>
      relay({ method: 'POST', path: `/v1/input-requests/${encodeId(requestId)}/keep-waiting` }),
    reviewApproval: (...args: unknown[]) => transport.invoke('review', args),
    rejectApprovalForMessage: (...args: unknown[]) => transport.invoke('reject', args),
    openSensitiveForm: (...args: unknown[]) => transport.invoke('form', args),
    requestModeChange: (...args: unknown[]) => transport.invoke('mode', args),
    requestApproverWebhook: (...args: unknown[]) => transport.invoke('webhook', args),
    setPreferences: (...args: unknown[]) => transport.invoke('preferences', args),
    onEvent: (listener) => transport.onEvent(listener),
  } satisfies AssentGui)
}

/** Ids are encoded so a crafted id cannot change the path; main's allowlist
 *  refuses anything encoded anyway. */
function encodeId(id: unknown): string {
  return encodeURIComponent(String(id))
}
