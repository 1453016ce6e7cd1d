import type { HttpMethod } from '../../contracts/ids.ts'

/**
 * Every route the runtime serves. The router is checked against this table
 * at start, and main's renderer allowlist classifies every entry, so a new
 * route cannot appear without someone deciding who may call it.
 */
export const RUNTIME_ROUTE_TABLE: ReadonlyArray<{ method: HttpMethod; pattern: string }> = [
  { method: 'GET', pattern: '/v1/health' },
  { method: 'GET', pattern: '/v1/settings/global' },
  { method: 'GET', pattern: '/v1/audit/export' },
  { method: 'GET', pattern: '/v1/events' },
  { method: 'GET', pattern: '/v1/approvals/:approvalId' },
  { method: 'POST', pattern: '/v1/approvals/:approvalId' },
  { method: 'GET', pattern: '/v1/agents' },
  { method: 'GET', pattern: '/v1/rooms' },
  { method: 'POST', pattern: '/v1/rooms' },
  { method: 'GET', pattern: '/v1/rooms/:roomId' },
  { method: 'POST', pattern: '/v1/rooms/:roomId/messages' },
  { method: 'GET', pattern: '/v1/rooms/:roomId/timeline' },
  { method: 'GET', pattern: '/v1/rooms/:roomId/timeline/recent' },
  { method: 'GET', pattern: '/v1/rooms/:roomId/timeline/from/:turnId' },
  { method: 'GET', pattern: '/v1/rooms/:roomId/timeline/before/:turnId' },
  { method: 'GET', pattern: '/v1/rooms/:roomId/approvals' },
  { method: 'GET', pattern: '/v1/rooms/:roomId/direct/permissions' },
  { method: 'PUT', pattern: '/v1/rooms/:roomId/direct/permissions' },
  { method: 'GET', pattern: '/v1/rooms/:roomId/grants' },
  { method: 'GET', pattern: '/v1/rooms/:roomId/approver-webhook' },
  { method: 'PUT', pattern: '/v1/rooms/:roomId/approver-webhook' },
  { method: 'DELETE', pattern: '/v1/rooms/:roomId/grants/:grantId' },
  { method: 'DELETE', pattern: '/v1/rooms/:roomId/mcp-servers/:serverId/grants' },
  { method: 'POST', pattern: '/v1/turns/:turnId/retry' },
  { method: 'POST', pattern: '/v1/turns/:turnId/stop' },
  { method: 'POST', pattern: '/v1/executions/:executionId/reconcile' },
  { method: 'GET', pattern: '/v1/rooms/:roomId/input-requests' },
  { method: 'GET', pattern: '/v1/input-requests/:requestId' },
  { method: 'POST', pattern: '/v1/input-requests/:requestId/response' },
  { method: 'POST', pattern: '/v1/input-requests/:requestId/keep-waiting' },
  { method: 'POST', pattern: '/v1/input-requests/:requestId/protected-response' },
  { method: 'POST', pattern: '/v1/gateway/mode' },
  { method: 'POST', pattern: '/v1/gateway/calls' },
  { method: 'GET', pattern: '/v1/gateway/calls/:callId' },
  { method: 'POST', pattern: '/v1/gateway/calls/:callId/cancel' },
  { method: 'POST', pattern: '/v1/gateway/calls/:callId/result' },
  { method: 'POST', pattern: '/v1/gateway/calls/:callId/elicitations' },
  { method: 'GET', pattern: '/v1/gateway/elicitations/:requestId' },
  { method: 'POST', pattern: '/v1/gateway/elicitations/:requestId/withdraw' },
]

/** Fails the start when the router and the table disagree. */
export function assertRoutesMatchTable(
  routes: ReadonlyArray<{ method: string; pattern: string }>,
): void {
  const key = (route: { method: string; pattern: string }) => `${route.method} ${route.pattern}`
  const served = new Set(routes.map(key))
  const listed = new Set(RUNTIME_ROUTE_TABLE.map(key))
  const unlisted = [...served].filter((route) => !listed.has(route))
  const missing = [...listed].filter((route) => !served.has(route))
  if (unlisted.length > 0 || missing.length > 0) {
    throw new Error(
      `route table mismatch: unlisted ${unlisted.join(', ') || 'none'}; missing ${missing.join(', ') || 'none'}`,
    )
  }
}
