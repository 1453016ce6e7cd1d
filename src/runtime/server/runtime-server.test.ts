import { Agent, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http'
import { afterEach, describe, expect, it } from 'vitest'
import { Router } from './router.ts'
import { KEEP_ALIVE_HINT_MS, KEEP_ALIVE_MARGIN_MS, startRuntimeServer } from './runtime-server.ts'

const BEARER = 'runtime-server-test-bearer-0123456789'
let server: Server | undefined

afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()))
  server = undefined
})

describe('the runtime server and kept-alive connections', () => {
  it('tells clients to let an idle connection go well before it closes one', async () => {
    const router = new Router()
    router.add({
      method: 'GET',
      pattern: '/v1/ping',
      handle: ({ res }) => {
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end('{}')
        return Promise.resolve()
      },
    })
    const started = await startRuntimeServer(
      router,
      { bearerToken: BEARER },
      (error) => {
        throw error
      },
      () => Promise.resolve(),
    )
    server = started.server
    const agent = new Agent({ keepAlive: true })
    const headers = await new Promise<IncomingHttpHeaders>((resolve, reject) => {
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port: started.port,
          path: '/v1/ping',
          headers: { authorization: `Bearer ${BEARER}`, host: `127.0.0.1:${started.port}` },
          agent,
        },
        (res) => {
          res.resume()
          res.on('end', () => resolve(res.headers))
        },
      )
      req.on('error', reject)
      req.end()
    })
    agent.destroy()
    // Clients stop reusing a connection at the hint (less a second); the
    // server keeps it ten seconds longer, so a client whose timer fires late
    // on a busy machine still finds it open.
    expect(headers['keep-alive']).toBe(`timeout=${KEEP_ALIVE_HINT_MS / 1000}`)
    expect(server.keepAliveTimeout).toBe(KEEP_ALIVE_HINT_MS)
    expect(server.keepAliveTimeoutBuffer).toBe(KEEP_ALIVE_MARGIN_MS)
    expect(KEEP_ALIVE_MARGIN_MS).toBeGreaterThanOrEqual(2 * KEEP_ALIVE_HINT_MS)
  })
})
