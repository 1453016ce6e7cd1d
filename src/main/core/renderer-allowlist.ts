import { ID_PATTERN, type HttpMethod } from '../../contracts/ids.ts'

/**
 * Who may call each runtime route. The workbench renderer shows model output,
 * so it is untrusted: it reaches the runtime only through main's relay, and
 * the relay forwards only routes classified `renderer` here. Everything that
 * reads the canonical action, decides, widens, exports or streams stays with
 * main.
 *
 * Every entry of `RUNTIME_ROUTE_TABLE` is classified exactly once (a unit test
 * enforces it), so a new runtime route is unreachable from the workbench until
 * someone decides that it should be.
 */
export type RouteAccess = 'renderer' | 'main-only'

export interface RouteClassification {
  readonly method: HttpMethod
  readonly pattern: string
  readonly access: RouteAccess
  /** One line a reviewer can check: why this caller, and no other. */
  readonly reason: string
}

export const ROUTE_CLASSIFICATIONS: readonly RouteClassification[] = [
  {
    method: 'GET',
    pattern: '/v1/health',
    access: 'renderer',
    reason: 'liveness only: reveals nothing',
  },
  {
    method: 'GET',
    pattern: '/v1/settings/global',
    access: 'renderer',
    reason: 'read-only view of the global settings the workbench displays',
  },
  {
    method: 'GET',
    pattern: '/v1/audit/export',
    access: 'main-only',
    reason: 'exports the whole audit log: main only',
  },
  {
    method: 'GET',
    pattern: '/v1/events',
    access: 'main-only',
    reason: 'main subscribes and forwards only the allowlisted event types',
  },
  {
    method: 'GET',
    pattern: '/v1/approvals/:approvalId',
    access: 'main-only',
    reason: 'reads the canonical action and its digest: main only',
  },
  {
    method: 'POST',
    pattern: '/v1/approvals/:approvalId',
    access: 'main-only',
    reason: 'decides an approval: needs the protected window and a consent token',
  },
  {
    method: 'GET',
    pattern: '/v1/agents',
    access: 'renderer',
    reason:
      'lists the agents a room can be created with: ids, names and protocols, never a command or an environment',
  },
  {
    method: 'GET',
    pattern: '/v1/rooms',
    access: 'renderer',
    reason: 'lists rooms for the sidebar',
  },
  {
    method: 'POST',
    pattern: '/v1/rooms',
    access: 'renderer',
    reason: 'creates a room, which starts at ask-for-approval',
  },
  {
    method: 'GET',
    pattern: '/v1/rooms/:roomId',
    access: 'renderer',
    reason: 'reads one room for display',
  },
  {
    method: 'POST',
    pattern: '/v1/rooms/:roomId/messages',
    access: 'renderer',
    reason: 'sends a message; every tool call it leads to still passes the gate',
  },
  {
    method: 'GET',
    pattern: '/v1/rooms/:roomId/timeline',
    access: 'renderer',
    reason: 'reads the conversation and compact approval cards',
  },
  {
    method: 'GET',
    pattern: '/v1/rooms/:roomId/timeline/recent',
    access: 'renderer',
    reason: 'reads the newest page of the conversation and every card still open',
  },
  {
    method: 'GET',
    pattern: '/v1/rooms/:roomId/timeline/from/:turnId',
    access: 'renderer',
    reason: 'reads the conversation from a turn on, as the timeline has loaded it',
  },
  {
    method: 'GET',
    pattern: '/v1/rooms/:roomId/timeline/before/:turnId',
    access: 'renderer',
    reason: 'reads the page of the conversation before a turn',
  },
  {
    method: 'GET',
    pattern: '/v1/rooms/:roomId/approvals',
    access: 'renderer',
    reason: 'reads approval summaries, never the canonical action',
  },
  {
    method: 'GET',
    pattern: '/v1/rooms/:roomId/direct/permissions',
    access: 'renderer',
    reason: 'reads the current mode for the picker',
  },
  {
    method: 'PUT',
    pattern: '/v1/rooms/:roomId/direct/permissions',
    access: 'main-only',
    reason: 'changes permissions: needs the protected window and a consent token',
  },
  {
    method: 'GET',
    pattern: '/v1/rooms/:roomId/approver-webhook',
    access: 'renderer',
    reason: "shows the room's approver webhook (its URL, never its secret)",
  },
  {
    method: 'PUT',
    pattern: '/v1/rooms/:roomId/approver-webhook',
    access: 'main-only',
    reason: 'hands decisions to someone else: needs the protected window and a consent token',
  },
  {
    method: 'GET',
    pattern: '/v1/rooms/:roomId/grants',
    access: 'renderer',
    reason: 'lists standing grants so the person can revoke them',
  },
  {
    method: 'DELETE',
    pattern: '/v1/rooms/:roomId/grants/:grantId',
    access: 'renderer',
    reason: 'revoking a grant only narrows what the agent may do',
  },
  {
    method: 'DELETE',
    pattern: '/v1/rooms/:roomId/mcp-servers/:serverId/grants',
    access: 'renderer',
    reason: "revoking an MCP server's grants only narrows what the agent may do",
  },
  {
    method: 'POST',
    pattern: '/v1/turns/:turnId/retry',
    access: 'renderer',
    reason: 'a retry is a new attempt under the current policy and ceilings',
  },
  {
    method: 'POST',
    pattern: '/v1/turns/:turnId/stop',
    access: 'renderer',
    reason: 'stopping a turn only ends what the agent was doing; it allows nothing',
  },
  {
    method: 'POST',
    pattern: '/v1/executions/:executionId/reconcile',
    access: 'renderer',
    reason: 'records what happened to an interrupted execution; it runs nothing',
  },
  {
    method: 'GET',
    pattern: '/v1/rooms/:roomId/input-requests',
    access: 'renderer',
    reason: 'lists questions and forms for their cards; secret answers are never stored',
  },
  {
    method: 'GET',
    pattern: '/v1/input-requests/:requestId',
    access: 'main-only',
    reason: 'main reads a sensitive form to show it in the protected window',
  },
  {
    method: 'POST',
    pattern: '/v1/input-requests/:requestId/response',
    access: 'renderer',
    reason: 'answers a question or a form; it decides no action, and a sensitive form refuses it',
  },
  {
    method: 'POST',
    pattern: '/v1/input-requests/:requestId/keep-waiting',
    access: 'renderer',
    reason: "starts an ordinary question's wait again; it answers nothing and decides nothing",
  },
  {
    method: 'POST',
    pattern: '/v1/input-requests/:requestId/protected-response',
    access: 'main-only',
    reason: 'submits a sensitive form: only what the protected window collected',
  },
  {
    method: 'POST',
    pattern: '/v1/gateway/mode',
    access: 'main-only',
    reason: "the MCP gateway's route: long-polls its room's mode, which says what it runs unasked",
  },
  {
    method: 'POST',
    pattern: '/v1/gateway/calls',
    access: 'main-only',
    reason: "the MCP gateway's route (its own credential): opens a call that asks the person",
  },
  {
    method: 'GET',
    pattern: '/v1/gateway/calls/:callId',
    access: 'main-only',
    reason: "the MCP gateway's route: reads a call's outcome",
  },
  {
    method: 'POST',
    pattern: '/v1/gateway/calls/:callId/cancel',
    access: 'main-only',
    reason: "the MCP gateway's route: withdraws the approval of a call its client cancelled",
  },
  {
    method: 'POST',
    pattern: '/v1/gateway/calls/:callId/result',
    access: 'main-only',
    reason: "the MCP gateway's route: records what an allowed call returned",
  },
  {
    method: 'POST',
    pattern: '/v1/gateway/calls/:callId/elicitations',
    access: 'main-only',
    reason: "the MCP gateway's route: a server's request for input during an allowed call",
  },
  {
    method: 'GET',
    pattern: '/v1/gateway/elicitations/:requestId',
    access: 'main-only',
    reason: "the MCP gateway's route: reads the answer to a server's request for input",
  },
  {
    method: 'POST',
    pattern: '/v1/gateway/elicitations/:requestId/withdraw',
    access: 'main-only',
    reason: "the MCP gateway's route: withdraws a form its server no longer waits for",
  },
]

const METHODS: ReadonlySet<string> = new Set<HttpMethod>(['GET', 'POST', 'PUT', 'DELETE'])

/** Far longer than any real route; refusing early keeps a hostile caller from
 *  making main split megabytes. */
export const MAX_RENDERER_PATH_LENGTH = 512

/**
 * The route a concrete request path names, or `undefined` when none does.
 * Matching is segment by segment against the patterns; a `:param` segment
 * matches only a plain id (`ID_PATTERN`, the runtime router's own rule), so
 * encoded slashes, dots and overlong values never match anything.
 */
export function classifyRequest(method: string, path: string): RouteClassification | undefined {
  if (!METHODS.has(method) || !isPlainPath(path)) return undefined
  const actual = path.split('/')
  const matches = ROUTE_CLASSIFICATIONS.filter(
    (route) => route.method === method && segmentsMatch(route.pattern.split('/'), actual),
  )
  // Two matches would mean the table is ambiguous and the runtime might route
  // the request elsewhere than we classified it: refuse rather than guess.
  return matches.length === 1 ? matches[0] : undefined
}

/** True only for a concrete request to a route classified `renderer`. */
export function isAllowedForRenderer(method: string, path: string): boolean {
  return classifyRequest(method, path)?.access === 'renderer'
}

/**
 * Rejects, before any matching, every shape a path could use to mean
 * something other than what it spells: queries and fragments (the runtime
 * would ignore them, so they only hide intent), percent-encoding, dot
 * segments, empty segments and trailing slashes, backslashes and any
 * character outside a plain path. Exported so its own tests hold it to that
 * on its own: segment matching refuses most of these too, and one layer
 * must not hide a regression in the other.
 */
export function isPlainPath(path: string): boolean {
  if (typeof path !== 'string') return false
  if (path.length === 0 || path.length > MAX_RENDERER_PATH_LENGTH) return false
  if (!path.startsWith('/') || path.endsWith('/')) return false
  if (path.includes('//') || path.includes('..')) return false
  return /^[A-Za-z0-9_/-]+$/.test(path)
}

function segmentsMatch(pattern: readonly string[], actual: readonly string[]): boolean {
  if (pattern.length !== actual.length) return false
  return pattern.every((part, index) => {
    const value = actual[index] ?? ''
    return part.startsWith(':') ? ID_PATTERN.test(value) : part === value
  })
}
