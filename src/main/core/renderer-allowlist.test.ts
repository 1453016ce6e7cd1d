import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { RUNTIME_ROUTE_TABLE } from '../../runtime/server/route-table.ts'
import {
  MAX_RENDERER_PATH_LENGTH,
  ROUTE_CLASSIFICATIONS,
  classifyRequest,
  isPlainPath,
  isAllowedForRenderer,
} from './renderer-allowlist.ts'

const key = (route: { method: string; pattern: string }) => `${route.method} ${route.pattern}`

/** A concrete path for a pattern, with every `:param` replaced by `id`. */
const concrete = (pattern: string, id = 'abc_123-XYZ') =>
  pattern
    .split('/')
    .map((part) => (part.startsWith(':') ? id : part))
    .join('/')

describe('renderer allowlist: the classification', () => {
  it('classifies every runtime route exactly once, and nothing else', () => {
    const classified = ROUTE_CLASSIFICATIONS.map(key)
    expect(new Set(classified).size).toBe(classified.length)
    expect([...classified].sort()).toEqual(RUNTIME_ROUTE_TABLE.map(key).sort())
  })

  it('gives every route a one-line reason', () => {
    for (const route of ROUTE_CLASSIFICATIONS) {
      expect(route.reason.trim().length, key(route)).toBeGreaterThan(10)
      expect(route.reason, key(route)).not.toContain('\n')
    }
  })

  it('keeps reading, deciding, widening, exporting and streaming with main', () => {
    const mainOnly = ROUTE_CLASSIFICATIONS.filter((route) => route.access === 'main-only').map(key)
    expect(mainOnly.sort()).toEqual(
      [
        'GET /v1/approvals/:approvalId',
        'POST /v1/approvals/:approvalId',
        'PUT /v1/rooms/:roomId/direct/permissions',
        'PUT /v1/rooms/:roomId/approver-webhook',
        'GET /v1/audit/export',
        'GET /v1/events',
        'GET /v1/input-requests/:requestId',
        'POST /v1/input-requests/:requestId/protected-response',
        'POST /v1/gateway/mode',
        'POST /v1/gateway/calls',
        'GET /v1/gateway/calls/:callId',
        'POST /v1/gateway/calls/:callId/cancel',
        'POST /v1/gateway/calls/:callId/result',
        'POST /v1/gateway/calls/:callId/elicitations',
        'GET /v1/gateway/elicitations/:requestId',
        'POST /v1/gateway/elicitations/:requestId/withdraw',
      ].sort(),
    )
  })

  it('lets the workbench use what it displays and what only narrows', () => {
    for (const [method, pattern] of [
      ['GET', '/v1/health'],
      ['GET', '/v1/settings/global'],
      ['GET', '/v1/agents'],
      ['GET', '/v1/rooms'],
      ['POST', '/v1/rooms'],
      ['GET', '/v1/rooms/:roomId'],
      ['POST', '/v1/rooms/:roomId/messages'],
      ['GET', '/v1/rooms/:roomId/timeline'],
      ['GET', '/v1/rooms/:roomId/timeline/recent'],
      ['GET', '/v1/rooms/:roomId/timeline/from/:turnId'],
      ['GET', '/v1/rooms/:roomId/timeline/before/:turnId'],
      ['GET', '/v1/rooms/:roomId/approvals'],
      ['GET', '/v1/rooms/:roomId/direct/permissions'],
      ['GET', '/v1/rooms/:roomId/grants'],
      ['GET', '/v1/rooms/:roomId/approver-webhook'],
      ['DELETE', '/v1/rooms/:roomId/grants/:grantId'],
      ['DELETE', '/v1/rooms/:roomId/mcp-servers/:serverId/grants'],
      ['POST', '/v1/turns/:turnId/retry'],
      ['POST', '/v1/turns/:turnId/stop'],
      ['POST', '/v1/executions/:executionId/reconcile'],
      ['GET', '/v1/rooms/:roomId/input-requests'],
      ['POST', '/v1/input-requests/:requestId/response'],
      ['POST', '/v1/input-requests/:requestId/keep-waiting'],
    ] as const) {
      expect(isAllowedForRenderer(method, concrete(pattern)), `${method} ${pattern}`).toBe(true)
    }
  })

  it('has no two routes of one method that a single concrete path could both match', () => {
    for (const a of ROUTE_CLASSIFICATIONS) {
      for (const b of ROUTE_CLASSIFICATIONS) {
        if (a === b || a.method !== b.method) continue
        const left = a.pattern.split('/')
        const right = b.pattern.split('/')
        const distinct =
          left.length !== right.length ||
          left.some((part, index) => {
            const other = right[index] ?? ''
            return !part.startsWith(':') && !other.startsWith(':') && part !== other
          })
        expect(distinct, `${key(a)} vs ${key(b)}`).toBe(true)
      }
    }
  })
})

describe('renderer allowlist: concrete requests', () => {
  it('refuses the main-only routes for any id', () => {
    expect(isAllowedForRenderer('GET', '/v1/approvals/ap_1')).toBe(false)
    expect(isAllowedForRenderer('POST', '/v1/approvals/ap_1')).toBe(false)
    expect(isAllowedForRenderer('PUT', '/v1/rooms/room_1/direct/permissions')).toBe(false)
    expect(isAllowedForRenderer('GET', '/v1/audit/export')).toBe(false)
    expect(isAllowedForRenderer('GET', '/v1/events')).toBe(false)
  })

  it('names the route a concrete path matches', () => {
    expect(classifyRequest('GET', '/v1/rooms/room_1/timeline')).toMatchObject({
      pattern: '/v1/rooms/:roomId/timeline',
      access: 'renderer',
    })
    expect(classifyRequest('GET', '/v1/approvals/ap_1')).toMatchObject({
      pattern: '/v1/approvals/:approvalId',
      access: 'main-only',
    })
  })

  it('refuses paths that are not in the table', () => {
    for (const path of [
      '/',
      '/v1',
      '/v2/rooms',
      '/v1/rooms/r1/unknown',
      '/v1/rooms/r1/grants/g1/x',
    ]) {
      expect(isAllowedForRenderer('GET', path), path).toBe(false)
    }
  })

  it('refuses a method the route does not have', () => {
    expect(isAllowedForRenderer('DELETE', '/v1/rooms/room_1')).toBe(false)
    expect(isAllowedForRenderer('PUT', '/v1/rooms')).toBe(false)
  })

  it('accepts only the exact upper-case methods GET, POST, PUT and DELETE', () => {
    expect(isAllowedForRenderer('GET', '/v1/rooms')).toBe(true)
    for (const method of [
      'get',
      'Get',
      ' GET',
      'GET ',
      'HEAD',
      'PATCH',
      'OPTIONS',
      'CONNECT',
      '',
    ]) {
      expect(isAllowedForRenderer(method, '/v1/rooms'), JSON.stringify(method)).toBe(false)
    }
  })

  it('refuses queries, fragments, encodings, dot segments, double and trailing slashes', () => {
    for (const path of [
      '/v1/rooms?all=1',
      '/v1/rooms?',
      '/v1/rooms#x',
      '/v1/rooms/room%5F1',
      '/v1/rooms/%2e%2e/approvals/ap_1',
      '/v1/rooms/../approvals/ap_1',
      '/v1/rooms/./timeline',
      '/v1/rooms/room_1/..',
      '/v1//rooms',
      '//v1/rooms',
      '/v1/rooms/',
      '/v1/rooms/room_1/timeline/',
      'v1/rooms',
      '/v1/rooms\\room_1',
      '/v1/rooms/room 1',
      '/v1/rooms/room_1\n',
      'http://127.0.0.1/v1/rooms',
      '',
    ]) {
      expect(isAllowedForRenderer('GET', path), JSON.stringify(path)).toBe(false)
    }
  })

  it('matches a parameter only against a plain id of 1 to 128 characters', () => {
    expect(isAllowedForRenderer('GET', `/v1/rooms/${'a'.repeat(128)}`)).toBe(true)
    expect(isAllowedForRenderer('GET', `/v1/rooms/${'a'.repeat(129)}`)).toBe(false)
    for (const id of ['room.1', 'room:1', 'room@1', 'röom', 'room~1', "room'1"]) {
      expect(isAllowedForRenderer('GET', `/v1/rooms/${id}`), id).toBe(false)
    }
  })

  it('refuses a path longer than the limit before matching it', () => {
    const path = `/v1/rooms/${'a'.repeat(MAX_RENDERER_PATH_LENGTH)}`
    expect(classifyRequest('GET', path)).toBeUndefined()
  })

  it('matches a renderer route only when each id in it is plain', () => {
    const rendererRoutes = ROUTE_CLASSIFICATIONS.filter(
      (route) => route.access === 'renderer' && route.pattern.includes(':'),
    )
    fc.assert(
      fc.property(
        fc.constantFrom(...rendererRoutes),
        fc.string({ minLength: 0, maxLength: 140 }),
        (route, id) => {
          const plain = /^[A-Za-z0-9_-]{1,128}$/.test(id)
          const matched = classifyRequest(route.method, concrete(route.pattern, id))
          expect(matched?.pattern === route.pattern).toBe(plain)
        },
      ),
    )
  })

  it('never allows a request that is a main-only route', () => {
    const mainOnly = ROUTE_CLASSIFICATIONS.filter((route) => route.access === 'main-only')
    fc.assert(
      fc.property(
        fc.constantFrom(...mainOnly),
        fc.stringMatching(/^[A-Za-z0-9_-]{1,128}$/),
        (route, id) => {
          expect(isAllowedForRenderer(route.method, concrete(route.pattern, id))).toBe(false)
        },
      ),
    )
  })
})

describe('classifyRequest on concrete requests', () => {
  it('classifies a concrete request of every method the runtime serves', () => {
    expect(classifyRequest('PUT', '/v1/rooms/room-1/direct/permissions')).toMatchObject({
      method: 'PUT',
      access: 'main-only',
    })
    expect(classifyRequest('DELETE', '/v1/rooms/room-1/grants/grant-1')).toMatchObject({
      method: 'DELETE',
      access: 'renderer',
    })
    expect(classifyRequest('POST', '/v1/approvals/approval-1')).toMatchObject({
      access: 'main-only',
    })
    expect(classifyRequest('GET', '/v1/health')).toMatchObject({ access: 'renderer' })
  })

  it('refuses, without throwing, a path that is not a string (an untyped IPC payload)', () => {
    for (const path of [42, null, undefined, { toString: () => '/v1/health' }, ['/v1/health']]) {
      expect(() => classifyRequest('GET', path as unknown as string)).not.toThrow()
      expect(classifyRequest('GET', path as unknown as string)).toBeUndefined()
      expect(isAllowedForRenderer('GET', path as unknown as string)).toBe(false)
    }
  })
})

describe('isPlainPath, the filter before any matching', () => {
  it('accepts a plain absolute path of letters, digits, "_", "-" and single slashes', () => {
    expect(isPlainPath('/v1/rooms/abc_123-XYZ/timeline')).toBe(true)
    expect(isPlainPath('/a')).toBe(true)
    expect(isPlainPath(`/${'a'.repeat(MAX_RENDERER_PATH_LENGTH - 1)}`)).toBe(true)
  })

  it.each<[string, string]>([
    ['', 'empty'],
    [`/${'a'.repeat(MAX_RENDERER_PATH_LENGTH)}`, 'one character over the limit'],
    ['v1/health', 'relative'],
    ['/v1/health/', 'a trailing slash'],
    ['/', 'the bare root'],
    ['/v1//health', 'an empty segment'],
    ['/v1/../health', 'a dot-dot segment'],
    ['/v1/a..b', 'two dots inside a segment'],
    ['/v1/health?x', 'a query'],
    ['/v1/health#x', 'a fragment'],
    ['/v1/%2e%2e/health', 'percent-encoding'],
    ['/v1\\health', 'a backslash'],
    ['/v1/health.json', 'a dot'],
    ['/v1/h\u00e9alth', 'a non-ASCII letter'],
    ['/v1/health x', 'a space'],
    ['x/v1/health', 'a character before the first slash'],
  ])('refuses %j (%s)', (path) => {
    expect(isPlainPath(path)).toBe(false)
  })
})
