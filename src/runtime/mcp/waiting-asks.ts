import { englishText, message } from '../../contracts/runtime-message.ts'
import { Refusal } from '../domain/refusal.ts'
import type { McpConsentPort } from './gated-mcp-call.ts'
import { McpRefusal } from './mcp-refusal.ts'

/** How many of one client's requests may wait for the person at once, as
 *  an external agent's may (external-turn-asker.ts): an agent calls a few
 *  tools at a time; one that calls a gated tool as fast as it can would
 *  bury the person's queue (and the approver webhook, asked once for each)
 *  until one is allowed to make it stop. */
export const MAX_WAITING_ASKS = 16

/** How many gateway calls may wait for the person at once, from every
 *  gateway together. Each gateway keeps its own clients to
 *  `MAX_WAITING_ASKS`, but every gateway holds the same credential, and a
 *  process that starts gateways (or calls the runtime's gateway routes
 *  itself) would otherwise open as many approvals as it likes. */
export const MAX_WAITING_GATEWAY_CALLS = 64

/** Refuses (429 `too_many_waiting`) a gateway call that would ask the
 *  person while `waiting` others already do, before anything is stored or
 *  anyone asked: fails closed, nothing runs, and the gateway tells its
 *  client why. */
export function refuseAboveWaitingGatewayCalls(
  waiting: number,
  max: number = MAX_WAITING_GATEWAY_CALLS,
): void {
  if (waiting < max) return
  throw new Refusal(
    'too_many_waiting',
    `${max} MCP gateway calls already wait for the person: refused without asking; it did not run`,
  )
}

/** The refusal of a request made while `count` others wait. */
export function tooManyWaiting(count: number): McpRefusal {
  const words = message('mcp.tooManyWaiting', { count })
  return new McpRefusal('not_allowed', englishText(words), 'too_many_waiting', words)
}

/**
 * `port`, for one client: past `max` questions waiting for a decision, a
 * request is refused without asking anyone (fails closed: nothing runs, and
 * the client is told why), where each would otherwise open an approval of
 * its own. A question stops waiting once it is answered (or withdrawn,
 * or has run out of time), so a client that waits for its answers is never
 * refused. Only `ask` is counted: a call that runs unasked opens nothing.
 */
export function askingAtMost(
  port: McpConsentPort,
  max: number = MAX_WAITING_ASKS,
  log: (line: string) => void = () => undefined,
): McpConsentPort {
  let waiting = 0
  return {
    ask: async (request, signal) => {
      if (waiting >= max) {
        log(
          `assent-gateway: ${request.serverId}__${request.toolName} refused without asking: ${max} requests already wait for the person`,
        )
        throw tooManyWaiting(max)
      }
      waiting += 1
      try {
        return await port.ask(request, signal)
      } finally {
        waiting -= 1
      }
    },
    checkWorkspace: () => port.checkWorkspace?.(),
    mayRun: (name) => port.mayRun?.(name),
    beforeRun: (asked) => port.beforeRun?.(asked),
    drain: async () => port.drain?.(),
  }
}
