import {
  GatewayCallCancelSchema,
  GatewayCallRequestSchema,
  GatewayCallResultSchema,
  GatewayFormRequestSchema,
  GatewayModeRequestSchema,
} from '../../../contracts/mcp-gateway.ts'
import type { GatewayCallService } from '../../mcp/gateway-call-service.ts'
import type { GatewayElicitations } from '../../mcp/gateway-elicitations.ts'
import type { GatewayModeService } from '../../mcp/gateway-mode-service.ts'
import { expectNoBody, readJsonBody, sendJson } from '../http-kit.ts'
import { routeParam, type Route } from '../router.ts'

/** How long one outcome request waits for a decision before answering
 *  `pending`: well inside the server's 30 s request timeout. */
export const GATEWAY_LONG_POLL_MS = 20_000

/**
 * The MCP gateway's routes, the only ones its credential may call: open a
 * call (which asks the person), read its outcome, withdraw it when the
 * agent's client cancels it (with the key only its opener holds), report
 * what an allowed call returned, and pass on a server's request for input
 * during an allowed call, and watch the gateway room's mode (what it runs
 * without asking depends on it). None of them allows anything.
 */
export function gatewayRoutes(deps: {
  calls: GatewayCallService
  elicitations: GatewayElicitations
  mode: GatewayModeService
}): Route[] {
  return [
    {
      method: 'POST',
      pattern: '/v1/gateway/mode',
      gatewayMayCall: true,
      handle: async ({ req, res }) => {
        const body = await readJsonBody(req, GatewayModeRequestSchema)
        // A gateway that goes away (or stops) ends its wait here too.
        const gone = new AbortController()
        res.once('close', () => gone.abort())
        sendJson(res, 200, await deps.mode.watch(body, GATEWAY_LONG_POLL_MS, gone.signal))
      },
    },
    {
      method: 'POST',
      pattern: '/v1/gateway/calls',
      gatewayMayCall: true,
      handle: async ({ req, res }) => {
        const body = await readJsonBody(req, GatewayCallRequestSchema)
        sendJson(res, 201, await deps.calls.open(body))
      },
    },
    {
      method: 'GET',
      pattern: '/v1/gateway/calls/:callId',
      gatewayMayCall: true,
      handle: async ({ req, res, params }) => {
        await expectNoBody(req)
        sendJson(
          res,
          200,
          await deps.calls.outcome(routeParam(params, 'callId'), GATEWAY_LONG_POLL_MS),
        )
      },
    },
    {
      method: 'POST',
      pattern: '/v1/gateway/calls/:callId/cancel',
      gatewayMayCall: true,
      handle: async ({ req, res, params }) => {
        const body = await readJsonBody(req, GatewayCallCancelSchema)
        sendJson(res, 200, deps.calls.cancel(routeParam(params, 'callId'), body.cancelKey))
      },
    },
    {
      method: 'POST',
      pattern: '/v1/gateway/calls/:callId/result',
      gatewayMayCall: true,
      handle: async ({ req, res, params }) => {
        const body = await readJsonBody(req, GatewayCallResultSchema)
        const callId = routeParam(params, 'callId')
        try {
          deps.calls.report(callId, body)
        } finally {
          // Reported (or refused as not running), the call is over: a form
          // it asked for goes with it.
          deps.elicitations.ended(callId)
        }
        sendJson(res, 200, { reported: callId })
      },
    },
    {
      method: 'POST',
      pattern: '/v1/gateway/calls/:callId/elicitations',
      gatewayMayCall: true,
      handle: async ({ req, res, params }) => {
        const body = await readJsonBody(req, GatewayFormRequestSchema)
        sendJson(res, 201, deps.elicitations.ask(routeParam(params, 'callId'), body))
      },
    },
    {
      method: 'GET',
      pattern: '/v1/gateway/elicitations/:requestId',
      gatewayMayCall: true,
      handle: async ({ req, res, params }) => {
        await expectNoBody(req)
        sendJson(
          res,
          200,
          await deps.elicitations.state(routeParam(params, 'requestId'), GATEWAY_LONG_POLL_MS),
        )
      },
    },
    {
      // The server cancelled its request (or the call ended) before the
      // person answered: the form goes, rather than wait for its call's
      // report while the person may still be filling it in.
      method: 'POST',
      pattern: '/v1/gateway/elicitations/:requestId/withdraw',
      gatewayMayCall: true,
      handle: async ({ req, res, params }) => {
        await expectNoBody(req)
        sendJson(res, 200, await deps.elicitations.withdrawn(routeParam(params, 'requestId')))
      },
    },
  ]
}
