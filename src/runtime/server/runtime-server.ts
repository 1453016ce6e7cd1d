import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { HttpError, sendError } from './http-kit.ts'
import { checkRequestEdge, type RuntimeCredentials } from './request-guards.ts'
import type { Router } from './router.ts'

export const RUNTIME_HOST = '127.0.0.1'

/** Starts the HTTP server on 127.0.0.1 with a random port. */
export async function startRuntimeServer(
  router: Router,
  credentials: RuntimeCredentials,
  onError: (error: unknown) => void,
): Promise<{ server: Server; port: number }> {
  let boundHost = ''
  const server = createServer({ maxHeaderSize: 16 * 1024 }, (req, res) => {
    void handle(router, boundHost, credentials, req, res, onError)
  })
  server.headersTimeout = 10_000
  server.requestTimeout = 30_000
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, RUNTIME_HOST, () => resolve())
  })
  const address = server.address()
  if (address === null || typeof address === 'string')
    throw new Error('the runtime server has no port')
  boundHost = `${RUNTIME_HOST}:${address.port}`
  return { server, port: address.port }
}

async function handle(
  router: Router,
  boundHost: string,
  credentials: RuntimeCredentials,
  req: IncomingMessage,
  res: ServerResponse,
  onError: (error: unknown) => void,
): Promise<void> {
  try {
    const caller = checkRequestEdge(req, boundHost, credentials)
    const url = new URL(req.url ?? '/', `http://${boundHost}`)
    if (url.search !== '')
      throw new HttpError(400, 'unexpected_query', 'this API takes no query string')
    const { route, params } = router.match(req.method ?? '', url.pathname)
    // The gateway credential sits in a file any process of this user can
    // read, so it may only open gateway calls and read their outcome. Every
    // other route, deciding an approval above all, refuses it.
    if (caller === 'gateway' && route.gatewayMayCall !== true) {
      throw new HttpError(403, 'gateway_forbidden', 'the gateway credential cannot call this route')
    }
    await route.handle({ req, res, params })
  } catch (error) {
    if (res.headersSent) {
      res.destroy()
      return
    }
    // A refused request may still be sending its body: answer and close the
    // connection instead of reading the rest of it.
    if (!req.complete) res.shouldKeepAlive = false
    if (error instanceof HttpError) {
      sendError(res, error)
    } else {
      onError(error)
      sendError(res, new HttpError(500, 'internal', 'internal error'))
    }
  }
}
