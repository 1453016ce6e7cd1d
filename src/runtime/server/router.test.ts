import { describe, expect, it } from 'vitest'
import { routeParam, Router } from './router.ts'

describe('route parameters', () => {
  const router = new Router()
  router.add({ method: 'GET', pattern: '/v1/rooms/:roomId', handle: async () => {} })

  it('reads each parameter of the pattern that matched', () => {
    const { params } = router.match('GET', '/v1/rooms/room-1')
    expect(routeParam(params, 'roomId')).toBe('room-1')
  })

  it('treats a parameter the pattern lacks as a bug, never as an empty id', () => {
    const { params } = router.match('GET', '/v1/rooms/room-1')
    expect(() => routeParam(params, 'turnId')).toThrow('the route has no :turnId parameter')
  })
})
