import { describe, expect, it } from 'vitest'
import type { ApprovalRecord } from '../../../contracts/approval.ts'
import { CONSENT_HEADER } from '../../../contracts/http-headers.ts'
import type { PermissionMode } from '../../../contracts/policy-axes.ts'
import { ConsentTokenVerifier, mintConsentToken } from '../../../consent/consent-token.ts'
import { Refusal } from '../../domain/refusal.ts'
import { summarizeApproval } from '../../domain/approval.ts'
import {
  fixture,
  makeGate,
  openApproval,
  useGateDatabase,
} from '../../gate/test-support/approval-gate-fixture.ts'
import type { RoomService } from '../../rooms/room-service.ts'
import type { TurnService } from '../../rooms/turn-service.ts'
import { startRouteServer } from '../test-support/route-server.ts'
import { roomRoutes } from './room-routes.ts'

// The room routes over a real loopback server. The room and turn services
// are recorders here: their own tests hold what they do, and this file holds
// what the routes pass them and answer, above all that a mode change is
// passed on as consented only with a token bound to every field of it.

useGateDatabase()

const KEY = Buffer.alloc(32, 11)
const INSTANCE = 'instance-1'

type Call = [method: string, ...args: unknown[]]

function recorder<T>(answers: Record<string, (...args: unknown[]) => unknown>, calls: Call[]): T {
  return new Proxy(
    {},
    {
      get:
        (_target, method: string) =>
        (...args: unknown[]) => {
          calls.push([method, ...args])
          const answer = answers[method]
          if (!answer) throw new Error(`unexpected call ${method}`)
          return answer(...args)
        },
    },
  ) as T
}

async function serve(answers: Record<string, (...args: unknown[]) => unknown> = {}) {
  const calls: Call[] = []
  const { gate, approvals } = makeGate()
  openApproval(gate)
  const server = await startRouteServer(
    roomRoutes({
      rooms: recorder<RoomService>(answers, calls),
      turns: recorder<TurnService>(answers, calls),
      approvals,
      verifier: new ConsentTokenVerifier({ key: KEY, now: () => fixture.clock }),
      instanceId: INSTANCE,
    }),
  )
  return { server, calls, approvals }
}

const CHANGE = { clientRequestId: 'change-1', expectedRevision: 3, mode: 'full-access' as const }

function permissionToken(
  subject: {
    roomId?: string
    mode?: PermissionMode
    expectedRevision?: number
    instanceId?: string
  } = {},
) {
  return mintConsentToken({
    key: KEY,
    now: fixture.clock,
    binding: {
      kind: 'room-permission',
      subject: {
        roomId: subject.roomId ?? 'room-1',
        clientRequestId: CHANGE.clientRequestId,
        expectedRevision: subject.expectedRevision ?? CHANGE.expectedRevision,
        mode: subject.mode ?? CHANGE.mode,
        instanceId: subject.instanceId ?? INSTANCE,
      },
    },
  })
}

describe('room routes: what each passes on and answers', () => {
  it.each([
    ['GET', '/v1/rooms', 'listRooms', [], 200, (value: unknown) => ({ rooms: value })],
    ['GET', '/v1/rooms/room-1', 'getRoom', ['room-1'], 200, (value: unknown) => ({ room: value })],
    ['GET', '/v1/rooms/room-1/timeline', 'timeline', ['room-1'], 200, (value: unknown) => value],
    [
      'GET',
      '/v1/rooms/room-1/timeline/recent',
      'timelinePage',
      ['room-1', { kind: 'recent' }],
      200,
      (value: unknown) => value,
    ],
    [
      'GET',
      '/v1/rooms/room-1/timeline/from/turn-1',
      'timelinePage',
      ['room-1', { kind: 'from', turnId: 'turn-1' }],
      200,
      (value: unknown) => value,
    ],
    [
      'GET',
      '/v1/rooms/room-1/timeline/before/turn-1',
      'timelinePage',
      ['room-1', { kind: 'before', turnId: 'turn-1' }],
      200,
      (value: unknown) => value,
    ],
    [
      'GET',
      '/v1/rooms/room-1/direct/permissions',
      'permissions',
      ['room-1'],
      200,
      (value: unknown) => value,
    ],
    [
      'GET',
      '/v1/rooms/room-1/grants',
      'listGrants',
      ['room-1'],
      200,
      (value: unknown) => ({ grants: value }),
    ],
    [
      'POST',
      '/v1/turns/turn-1/retry',
      'retryTurn',
      ['turn-1'],
      202,
      (value: unknown) => ({ turn: value }),
    ],
    [
      'POST',
      '/v1/turns/turn-1/stop',
      'stopTurn',
      ['turn-1'],
      202,
      (value: unknown) => ({ turn: value }),
    ],
  ] as const)('%s %s → %s', async (method, path, service, args, status, body) => {
    const value = { answeredBy: service }
    const { server, calls } = await serve({ [service]: () => value })
    const answer = await server.send(method, path)
    expect(answer).toEqual({ status, body: body(value) })
    expect(calls).toEqual([[service, ...args]])
  })

  it('creates a room from the parsed body and answers 201', async () => {
    const body = { kind: 'direct', agentId: 'assistant', workspace: '/ws', title: 'Notes' }
    const { server, calls } = await serve({ createRoom: async () => ({ id: 'room-2' }) })
    const answer = await server.send('POST', '/v1/rooms', { body })
    expect(answer).toEqual({ status: 201, body: { room: { id: 'room-2' } } })
    expect(calls).toEqual([['createRoom', body]])
  })

  it.each([
    [true, 202],
    [false, 200],
  ])('sends a message (created %s → %i)', async (created, status) => {
    const body = { clientRequestId: 'c-1', text: 'write a b' }
    const { server, calls } = await serve({
      sendMessage: () => ({ turn: { id: 'turn-2' }, created }),
    })
    const answer = await server.send('POST', '/v1/rooms/room-1/messages', { body })
    expect(answer).toEqual({ status, body: { turn: { id: 'turn-2' } } })
    expect(calls).toEqual([['sendMessage', 'room-1', body]])
  })

  it("lists a room's approvals as summaries, after checking the room exists", async () => {
    const { server, calls, approvals } = await serve({ getRoom: () => ({ id: 'room-1' }) })
    const answer = await server.send('GET', '/v1/rooms/room-1/approvals')
    const stored = approvals.get('approval-1') as ApprovalRecord
    expect(answer).toEqual({
      status: 200,
      body: { approvals: [JSON.parse(JSON.stringify(summarizeApproval(stored)))] },
    })
    expect(answer.body.approvals).toEqual([
      expect.not.objectContaining({ arguments: stored.arguments }),
    ])
    expect(calls).toEqual([['getRoom', 'room-1']])
  })

  it("refuses a room's approvals when the room is unknown", async () => {
    const { server } = await serve({
      getRoom: () => {
        throw new Refusal('unknown_room', 'unknown room')
      },
    })
    const answer = await server.send('GET', '/v1/rooms/room-9/approvals')
    expect(answer).toEqual({ status: 404, body: { code: 'unknown_room', error: 'unknown room' } })
  })

  it('revokes one grant, and every grant of an MCP server, taking no body', async () => {
    const { server, calls } = await serve({
      revokeGrant: () => undefined,
      revokeMcpServerGrants: () => 2,
    })
    expect(await server.send('DELETE', '/v1/rooms/room-1/grants/grant-1')).toEqual({
      status: 200,
      body: { revoked: 'grant-1' },
    })
    expect(await server.send('DELETE', '/v1/rooms/room-1/mcp-servers/files/grants')).toEqual({
      status: 200,
      body: { revoked: 2 },
    })
    expect(calls).toEqual([
      ['revokeGrant', 'room-1', 'grant-1'],
      ['revokeMcpServerGrants', 'room-1', 'files'],
    ])
    const withBody = await server.send('DELETE', '/v1/rooms/room-1/grants/grant-1', {
      body: { all: true },
    })
    expect(withBody).toEqual({
      status: 400,
      body: { code: 'unexpected_body', error: 'this route takes no body' },
    })
    expect(calls).toHaveLength(2)
  })

  it('reconciles an execution with the parsed outcome', async () => {
    const { server, calls } = await serve({ reconcileExecution: () => undefined })
    const answer = await server.send('POST', '/v1/executions/exec-1/reconcile', {
      body: { outcome: 'failed', note: 'ran twice' },
    })
    expect(answer).toEqual({ status: 200, body: { reconciled: 'exec-1' } })
    expect(calls).toEqual([
      ['reconcileExecution', 'exec-1', { outcome: 'failed', note: 'ran twice' }],
    ])
  })
})

describe('PUT /v1/rooms/:roomId/direct/permissions', () => {
  const changed = () => ({ room: { id: 'room-1' }, mode: 'changed' })

  it('passes a change on as consented with a token bound to every field', async () => {
    const { server, calls } = await serve({ changeMode: async () => changed() })
    const answer = await server.send('PUT', '/v1/rooms/room-1/direct/permissions', {
      headers: { [CONSENT_HEADER]: permissionToken() },
      body: CHANGE,
    })
    expect(answer).toEqual({ status: 200, body: changed() })
    expect(calls).toEqual([['changeMode', 'room-1', CHANGE, { consented: true }]])
  })

  it.each([
    ['no token', undefined],
    ['a token out of grammar', 'v1.1.x.y'],
    ['a token for another room', () => permissionToken({ roomId: 'room-2' })],
    ['a token for another mode', () => permissionToken({ mode: 'ask-for-approval' })],
    ['a token for another revision', () => permissionToken({ expectedRevision: 4 })],
    ['a token for another runtime', () => permissionToken({ instanceId: 'instance-2' })],
  ] as const)('refuses a widening change with %s, and changes nothing', async (_case, token) => {
    const { server, calls } = await serve({ changeMode: async () => changed() })
    const value = typeof token === 'function' ? token() : token
    const answer = await server.send('PUT', '/v1/rooms/room-1/direct/permissions', {
      headers: value === undefined ? {} : { [CONSENT_HEADER]: value },
      body: CHANGE,
    })
    expect(answer).toEqual({
      status: 403,
      body: { code: 'consent_required', error: 'protected permission consent required' },
    })
    expect(calls).toEqual([])
  })

  it('lets plan mode in without a token, passed on as not consented', async () => {
    const { server, calls } = await serve({ changeMode: async () => changed() })
    const plan = { ...CHANGE, mode: 'plan' as const }
    const answer = await server.send('PUT', '/v1/rooms/room-1/direct/permissions', { body: plan })
    expect(answer.status).toBe(200)
    expect(calls).toEqual([['changeMode', 'room-1', plan, { consented: false }]])
  })

  it('verifies a consent header sent with plan mode: a bad one is refused, not ignored', async () => {
    const { server, calls } = await serve({ changeMode: async () => changed() })
    const plan = { ...CHANGE, mode: 'plan' as const }
    const answer = await server.send('PUT', '/v1/rooms/room-1/direct/permissions', {
      headers: { [CONSENT_HEADER]: permissionToken() },
      body: plan,
    })
    expect(answer.status).toBe(403)
    expect(calls).toEqual([])
  })

  it('spends a permission token once', async () => {
    const { server, calls } = await serve({ changeMode: async () => changed() })
    const headers = { [CONSENT_HEADER]: permissionToken() }
    const put = () =>
      server.send('PUT', '/v1/rooms/room-1/direct/permissions', { headers, body: CHANGE })
    expect((await put()).status).toBe(200)
    expect((await put()).status).toBe(403)
    expect(calls).toHaveLength(1)
  })
})
