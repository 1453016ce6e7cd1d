import { describe, expect, it } from 'vitest'
import { RUNTIME_EVENT_TYPES } from '../../contracts/events.ts'
import {
  RelayRequestSchema,
  RENDERER_EVENT_TYPES,
  RendererRelay,
  filterEventForRenderer,
  type RelayClient,
} from './renderer-relay.ts'

/**
 * A recording stand-in for main's runtime client. The runtime and the real
 * client are exercised over loopback in tests/; here only the relay's
 * decision to forward, or not, is under test.
 */
function recordingClient(answer = { status: 200, body: { ok: true } as unknown }) {
  const calls: unknown[][] = []
  const client: RelayClient = {
    raw: async (...args: unknown[]) => {
      calls.push(args)
      return answer
    },
  }
  return { client, calls }
}

describe('RendererRelay', () => {
  it('forwards an allowlisted call and returns the runtime status and body', async () => {
    const { client, calls } = recordingClient({ status: 201, body: { room: { id: 'r1' } } })
    const relay = new RendererRelay({ client })
    const body = { kind: 'direct', agentId: 'a1', workspace: '/w', title: 'T' }
    await expect(relay.call({ method: 'POST', path: '/v1/rooms', body })).resolves.toEqual({
      status: 201,
      body: { room: { id: 'r1' } },
    })
    expect(calls).toEqual([['POST', '/v1/rooms', body]])
  })

  it('never passes headers, so the workbench cannot present a consent token', async () => {
    const { client, calls } = recordingClient()
    await new RendererRelay({ client }).call({ method: 'GET', path: '/v1/rooms' })
    expect(calls).toHaveLength(1)
    expect(calls[0]).toEqual(['GET', '/v1/rooms', undefined])
    expect(calls[0]).toHaveLength(3)
  })

  it('refuses a main-only route with the exact message and forwards nothing', async () => {
    const { client, calls } = recordingClient()
    const relay = new RendererRelay({ client })
    await expect(relay.call({ method: 'POST', path: '/v1/approvals/ap_1' })).rejects.toThrow(
      /^not allowed from the workbench: POST \/v1\/approvals\/ap_1$/,
    )
    await expect(relay.call({ method: 'GET', path: '/v1/approvals/ap_1' })).rejects.toThrow(
      'not allowed from the workbench: GET /v1/approvals/ap_1',
    )
    await expect(
      relay.call({
        method: 'PUT',
        path: '/v1/rooms/r1/direct/permissions',
        body: { clientRequestId: 'c', expectedRevision: 0, mode: 'full-access' },
      }),
    ).rejects.toThrow('not allowed from the workbench: PUT /v1/rooms/r1/direct/permissions')
    await expect(relay.call({ method: 'GET', path: '/v1/audit/export' })).rejects.toThrow(
      'not allowed from the workbench: GET /v1/audit/export',
    )
    await expect(relay.call({ method: 'GET', path: '/v1/events' })).rejects.toThrow(
      'not allowed from the workbench: GET /v1/events',
    )
    await expect(relay.call({ method: 'GET', path: '/v1/events' })).rejects.toMatchObject({
      code: 'relay_refused',
    })
    expect(calls).toEqual([])
  })

  it('refuses tricks on an allowed route and forwards nothing', async () => {
    const { client, calls } = recordingClient()
    const relay = new RendererRelay({ client })
    for (const [method, path] of [
      ['get', '/v1/rooms'],
      ['GET', '/v1/rooms?x=1'],
      ['GET', '/v1/rooms/%2e%2e/approvals/a'],
      ['GET', '/v1/rooms/../approvals/a'],
      ['GET', '/v1//rooms'],
      ['GET', '/v1/rooms/'],
    ]) {
      await expect(relay.call({ method, path })).rejects.toThrow(
        `not allowed from the workbench: ${method} ${path}`,
      )
    }
    expect(calls).toEqual([])
  })

  it('refuses malformed input with a message naming the problem', async () => {
    const { client, calls } = recordingClient()
    const relay = new RendererRelay({ client })
    await expect(relay.call(undefined)).rejects.toThrow(/^malformed workbench call/)
    await expect(relay.call('GET /v1/rooms')).rejects.toThrow(/^malformed workbench call/)
    await expect(relay.call({ method: 'GET' })).rejects.toThrow(/^malformed workbench call: path/)
    await expect(relay.call({ method: 7, path: '/v1/rooms' })).rejects.toThrow(
      /^malformed workbench call: method/,
    )
    await expect(relay.call(undefined)).rejects.toMatchObject({ code: 'relay_refused' })
    expect(calls).toEqual([])
  })

  it('refuses extra keys such as headers or a consent token', async () => {
    const { client, calls } = recordingClient()
    const relay = new RendererRelay({ client })
    await expect(
      relay.call({ method: 'GET', path: '/v1/rooms', headers: { 'x-assent-consent': 'v1.x' } }),
    ).rejects.toThrow(/^malformed workbench call/)
    expect(
      RelayRequestSchema.safeParse({ method: 'GET', path: '/v1/rooms', token: 't' }).success,
    ).toBe(false)
    expect(calls).toEqual([])
  })

  it('refuses a body on GET and DELETE', async () => {
    const { client, calls } = recordingClient()
    const relay = new RendererRelay({ client })
    await expect(relay.call({ method: 'GET', path: '/v1/rooms', body: {} })).rejects.toThrow(
      'a GET request carries no body',
    )
    await expect(
      relay.call({ method: 'DELETE', path: '/v1/rooms/r1/grants/g1', body: null }),
    ).rejects.toThrow('a DELETE request carries no body')
    expect(calls).toEqual([])
  })

  it('passes a runtime failure through to the workbench', async () => {
    const relay = new RendererRelay({
      client: {
        raw: async () => {
          throw new Error('the runtime is not running')
        },
      },
    })
    await expect(relay.call({ method: 'GET', path: '/v1/health' })).rejects.toThrow(
      'the runtime is not running',
    )
  })
})

describe('runtime events for the workbench', () => {
  it('lists only runtime event types, the integrity notice included', () => {
    for (const type of RENDERER_EVENT_TYPES) expect(RUNTIME_EVENT_TYPES).toContain(type)
    expect([...RENDERER_EVENT_TYPES].sort()).toEqual(
      [
        'approval.requested',
        'approval.resolved',
        'room.created',
        'room.updated',
        'timeline.updated',
        'grant.changed',
        'runtime.integrity',
        'input.requested',
        'input.resolved',
      ].sort(),
    )
  })

  it('forwards the integrity notice so the workbench can show a banner', () => {
    const data = { table: 'rooms', rowId: 'r1', roomId: 'r1', problem: 'mac_mismatch' }
    expect(filterEventForRenderer({ id: 3, type: 'runtime.integrity', data })).toEqual({
      type: 'runtime.integrity',
      data,
    })
  })

  it('forwards an allowlisted event as type and data only', () => {
    expect(
      filterEventForRenderer({ id: 7, type: 'timeline.updated', data: { roomId: 'r1' } }),
    ).toEqual({ type: 'timeline.updated', data: { roomId: 'r1' } })
  })

  it('drops unknown types and malformed events', () => {
    expect(filterEventForRenderer({ id: 1, type: 'approval.decided', data: {} })).toBeUndefined()
    expect(filterEventForRenderer({ type: 'room.created' })).toBeUndefined()
    expect(filterEventForRenderer({ type: 'room.created', data: 'x' })).toBeUndefined()
    expect(filterEventForRenderer(null)).toBeUndefined()
  })
})
