import {
  CreateRoomRequestSchema,
  PermissionChangeRequestSchema,
  ReconcileRequestSchema,
  SendMessageRequestSchema,
} from '../../../contracts/room.ts'
import type { ConsentTokenVerifier } from '../../../consent/consent-token.ts'
import type { RoomService } from '../../rooms/room-service.ts'
import type { TurnService } from '../../rooms/turn-service.ts'
import { summarizeApproval } from '../../domain/approval.ts'
import type { ApprovalStore } from '../../ports/approval-store.ts'
import { exactHeaderValue } from '../consent-headers.ts'
import { headerValues } from '../request-guards.ts'
import { Refusal } from '../../domain/refusal.ts'
import { expectNoBody, readJsonBody, sendJson } from '../http-kit.ts'
import { routeParam, type Route } from '../router.ts'
import { CONSENT_HEADER } from '../../../contracts/http-headers.ts'

export interface RoomRouteDeps {
  rooms: RoomService
  turns: TurnService
  approvals: Pick<ApprovalStore, 'listByRoom'>
  verifier: ConsentTokenVerifier
  instanceId: string
}

export function roomRoutes(deps: RoomRouteDeps): Route[] {
  const { rooms, turns } = deps
  return [
    {
      method: 'GET',
      pattern: '/v1/rooms',
      handle: async ({ res }) => sendJson(res, 200, { rooms: rooms.listRooms() }),
    },
    {
      method: 'POST',
      pattern: '/v1/rooms',
      handle: async ({ req, res }) => {
        const body = await readJsonBody(req, CreateRoomRequestSchema)
        sendJson(res, 201, { room: await rooms.createRoom(body) })
      },
    },
    {
      method: 'GET',
      pattern: '/v1/rooms/:roomId',
      handle: async ({ res, params }) =>
        sendJson(res, 200, { room: rooms.getRoom(routeParam(params, 'roomId')) }),
    },
    {
      method: 'POST',
      pattern: '/v1/rooms/:roomId/messages',
      handle: async ({ req, res, params }) => {
        const body = await readJsonBody(req, SendMessageRequestSchema)
        const { turn, created } = turns.sendMessage(routeParam(params, 'roomId'), body)
        sendJson(res, created ? 202 : 200, { turn })
      },
    },
    {
      method: 'GET',
      pattern: '/v1/rooms/:roomId/timeline',
      handle: async ({ res, params }) =>
        sendJson(res, 200, rooms.timeline(routeParam(params, 'roomId'))),
    },
    {
      method: 'GET',
      pattern: '/v1/rooms/:roomId/timeline/recent',
      handle: async ({ res, params }) =>
        sendJson(res, 200, rooms.timelinePage(routeParam(params, 'roomId'), { kind: 'recent' })),
    },
    ...(['from', 'before'] as const).map((kind): Route => ({
      method: 'GET',
      pattern: `/v1/rooms/:roomId/timeline/${kind}/:turnId`,
      handle: async ({ res, params }) =>
        sendJson(
          res,
          200,
          rooms.timelinePage(routeParam(params, 'roomId'), {
            kind,
            turnId: routeParam(params, 'turnId'),
          }),
        ),
    })),
    {
      method: 'GET',
      pattern: '/v1/rooms/:roomId/approvals',
      handle: async ({ res, params }) => {
        const roomId = routeParam(params, 'roomId')
        rooms.getRoom(roomId)
        sendJson(res, 200, { approvals: deps.approvals.listByRoom(roomId).map(summarizeApproval) })
      },
    },
    {
      method: 'GET',
      pattern: '/v1/rooms/:roomId/direct/permissions',
      handle: async ({ res, params }) =>
        sendJson(res, 200, rooms.permissions(routeParam(params, 'roomId'))),
    },
    {
      method: 'PUT',
      pattern: '/v1/rooms/:roomId/direct/permissions',
      handle: async ({ req, res, params }) => {
        const roomId = routeParam(params, 'roomId')
        const body = await readJsonBody(req, PermissionChangeRequestSchema)
        // Entering plan mode only narrows: it may come without a token (the
        // room service still refuses it for a room that needs vouching for).
        // A consent header sent in any form is verified: the header exactly
        // as sent (the verifier refuses anything else, a missing header
        // included), before the room is looked up, bound to every field of
        // the request: the same 403 whatever was wrong.
        const narrowing = headerValues(req, CONSENT_HEADER).length === 0 && body.mode === 'plan'
        const verified = deps.verifier.verify(exactHeaderValue(req, CONSENT_HEADER), {
          kind: 'room-permission',
          subject: { roomId, ...body, instanceId: deps.instanceId },
        })
        if (!verified && !narrowing)
          throw new Refusal('consent_required', 'protected permission consent required')
        sendJson(res, 200, await rooms.changeMode(roomId, body, { consented: verified }))
      },
    },
    {
      method: 'GET',
      pattern: '/v1/rooms/:roomId/grants',
      handle: async ({ res, params }) =>
        sendJson(res, 200, { grants: rooms.listGrants(routeParam(params, 'roomId')) }),
    },
    {
      method: 'DELETE',
      pattern: '/v1/rooms/:roomId/grants/:grantId',
      handle: async ({ req, res, params }) => {
        await expectNoBody(req)
        rooms.revokeGrant(routeParam(params, 'roomId'), routeParam(params, 'grantId'))
        sendJson(res, 200, { revoked: params.grantId })
      },
    },
    {
      method: 'DELETE',
      pattern: '/v1/rooms/:roomId/mcp-servers/:serverId/grants',
      handle: async ({ req, res, params }) => {
        await expectNoBody(req)
        const revoked = rooms.revokeMcpServerGrants(
          routeParam(params, 'roomId'),
          routeParam(params, 'serverId'),
        )
        sendJson(res, 200, { revoked })
      },
    },
    {
      method: 'POST',
      pattern: '/v1/turns/:turnId/retry',
      handle: async ({ req, res, params }) => {
        await expectNoBody(req)
        sendJson(res, 202, { turn: turns.retryTurn(routeParam(params, 'turnId')) })
      },
    },
    {
      method: 'POST',
      pattern: '/v1/turns/:turnId/stop',
      handle: async ({ req, res, params }) => {
        await expectNoBody(req)
        sendJson(res, 202, { turn: turns.stopTurn(routeParam(params, 'turnId')) })
      },
    },
    {
      method: 'POST',
      pattern: '/v1/executions/:executionId/reconcile',
      handle: async ({ req, res, params }) => {
        const body = await readJsonBody(req, ReconcileRequestSchema)
        turns.reconcileExecution(routeParam(params, 'executionId'), body)
        sendJson(res, 200, { reconciled: params.executionId })
      },
    },
  ]
}
