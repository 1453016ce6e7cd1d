import { InputResponseSchema } from '../../../contracts/input-request.ts'
import type { InputRequestService } from '../../input/input-request-service.ts'
import type { RoomService } from '../../rooms/room-service.ts'
import { expectNoBody, readJsonBody, sendJson } from '../http-kit.ts'
import { routeParam, type Route } from '../router.ts'

export interface InputRequestRouteDeps {
  inputs: InputRequestService
  rooms: RoomService
}

/** Questions and forms. The workbench lists and answers them; a sensitive
 *  form is accepted only through main's route, which only main's protected
 *  window feeds. */
export function inputRequestRoutes(deps: InputRequestRouteDeps): Route[] {
  const { inputs } = deps
  return [
    {
      method: 'GET',
      pattern: '/v1/rooms/:roomId/input-requests',
      handle: async ({ res, params }) => {
        const roomId = routeParam(params, 'roomId')
        deps.rooms.getRoom(roomId)
        sendJson(res, 200, { requests: inputs.list(roomId) })
      },
    },
    {
      method: 'GET',
      pattern: '/v1/input-requests/:requestId',
      handle: async ({ res, params }) =>
        sendJson(res, 200, { request: inputs.get(routeParam(params, 'requestId')) }),
    },
    {
      method: 'POST',
      pattern: '/v1/input-requests/:requestId/response',
      handle: async ({ req, res, params }) => {
        const body = await readJsonBody(req, InputResponseSchema)
        const request = inputs.respond(routeParam(params, 'requestId'), body, 'workbench')
        sendJson(res, 200, { request })
      },
    },
    {
      method: 'POST',
      pattern: '/v1/input-requests/:requestId/keep-waiting',
      handle: async ({ req, res, params }) => {
        await expectNoBody(req)
        sendJson(res, 200, { request: inputs.keepWaiting(routeParam(params, 'requestId')) })
      },
    },
    {
      method: 'POST',
      pattern: '/v1/input-requests/:requestId/protected-response',
      handle: async ({ req, res, params }) => {
        const body = await readJsonBody(req, InputResponseSchema)
        const request = inputs.respond(routeParam(params, 'requestId'), body, 'protected-window')
        sendJson(res, 200, { request })
      },
    },
  ]
}
