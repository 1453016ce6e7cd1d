import { ApproverWebhookChangeRequestSchema } from '../../../contracts/approver-webhook.ts'
import { CONSENT_HEADER } from '../../../contracts/http-headers.ts'
import { parseConsentToken, type ConsentTokenVerifier } from '../../../consent/consent-token.ts'
import type { ApproverWebhooks } from '../../approver/approver-webhooks.ts'
import { Refusal } from '../../domain/refusal.ts'
import { expectNoBody, readJsonBody, sendJson } from '../http-kit.ts'
import { exactHeaderValue } from '../consent-headers.ts'
import { routeParam, type Route } from '../router.ts'

export interface ApproverWebhookRouteDeps {
  webhooks: ApproverWebhooks
  verifier: ConsentTokenVerifier
  instanceId: string
}

/** A room's approver webhook: anyone with the bearer token may see it
 *  (never its secret); only main, with a consent token from the protected
 *  window, may set or remove it. */
export function approverWebhookRoutes(deps: ApproverWebhookRouteDeps): Route[] {
  return [
    {
      method: 'GET',
      pattern: '/v1/rooms/:roomId/approver-webhook',
      handle: async ({ req, res, params }) => {
        await expectNoBody(req)
        sendJson(res, 200, deps.webhooks.view(routeParam(params, 'roomId')))
      },
    },
    {
      method: 'PUT',
      pattern: '/v1/rooms/:roomId/approver-webhook',
      handle: async ({ req, res, params }) => {
        const roomId = routeParam(params, 'roomId')
        const body = await readJsonBody(req, ApproverWebhookChangeRequestSchema)
        // Taken exactly as sent: padded, repeated or joined is the same 403.
        const token = exactHeaderValue(req, CONSENT_HEADER)
        // Verified before the room is looked up, bound to the room, the exact
        // URL (or its removal) and the request: the same 403 whatever was
        // wrong, so a caller without consent learns nothing.
        const verified =
          token !== null &&
          parseConsentToken(token) !== null &&
          deps.verifier.verify(token, {
            kind: 'approver-webhook',
            subject: { roomId, ...body, instanceId: deps.instanceId },
          })
        if (!verified) {
          throw new Refusal('consent_required', 'protected approver webhook consent required')
        }
        sendJson(res, 200, await deps.webhooks.change(roomId, body))
      },
    },
  ]
}
