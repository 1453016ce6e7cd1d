import { request as httpRequest, type Server } from 'node:http'
import { afterEach } from 'vitest'
import { Router } from '../router.ts'
import type { Route } from '../router.ts'
import { startRuntimeServer } from '../runtime-server.ts'

/**
 * A real runtime server on a loopback port serving only the routes under
 * test, behind the same edge checks, consent-header tap and error table as
 * the runtime's own: a route's unit test sees exactly what main would see,
 * without spawning a runtime process.
 */
export const ROUTE_TEST_BEARER = 'route-test-bearer-0123456789abcdef'

export interface RouteAnswer {
  status: number
  body: Record<string, unknown>
}

export interface RouteServer {
  /** Sends one request with main's credential and the exact extra headers
   *  given, on a fresh connection; a `body` object is sent as JSON. */
  send(
    method: string,
    path: string,
    options?: { headers?: Record<string, string>; body?: unknown },
  ): Promise<RouteAnswer>
}

const open: Server[] = []

afterEach(async () => {
  const closing = open
    .splice(0)
    .map((server) => new Promise<void>((resolve) => server.close(() => resolve())))
  await Promise.all(closing)
})

export async function startRouteServer(routes: Route[]): Promise<RouteServer> {
  const router = new Router()
  router.add(...routes)
  const errors: unknown[] = []
  const { server, port } = await startRuntimeServer(
    router,
    { bearerToken: ROUTE_TEST_BEARER },
    (error) => errors.push(error),
    () => Promise.resolve(),
  )
  open.push(server)
  return {
    send: (method, path, options = {}) => {
      const payload = options.body === undefined ? undefined : JSON.stringify(options.body)
      const headers: Record<string, string> = {
        host: `127.0.0.1:${port}`,
        authorization: `Bearer ${ROUTE_TEST_BEARER}`,
        // Framed by its length whatever the method: Node's client sends a
        // DELETE's body unframed, which the server rightly reads as a second,
        // malformed request.
        ...(payload === undefined
          ? {}
          : {
              'content-type': 'application/json',
              'content-length': String(Buffer.byteLength(payload)),
            }),
        ...options.headers,
      }
      return new Promise((resolve, reject) => {
        const req = httpRequest(
          { host: '127.0.0.1', port, method, path, headers, agent: false },
          (res) => {
            const chunks: Buffer[] = []
            res.on('data', (chunk: Buffer) => chunks.push(chunk))
            res.on('end', () => {
              const text = Buffer.concat(chunks).toString('utf8')
              // An unexpected internal error fails the test with its cause
              // rather than as a bare 500.
              if (errors.length > 0) reject(errors.shift())
              else resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) })
            })
          },
        )
        req.on('error', reject)
        req.end(payload)
      })
    },
  }
}
