import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import type { Duplex } from 'node:stream'
import type { RuntimeErrorCode } from '../../contracts/error-codes.ts'
import { GATEWAY_NONCE_HEADER } from '../../contracts/http-headers.ts'
import { Refusal } from '../domain/refusal.ts'
import { answerProof, gatewayLinkKeys, isGatewayNonce } from '../mcp/gateway-answer-proof.ts'
import { httpStatusOf } from './error-status.ts'
import { answered, holdUntilDurable, proveAnswers, sendError } from './http-kit.ts'
import { tapConsentHeaders } from './consent-headers.ts'
import {
  headerValues,
  requestEdgeCheck,
  type Caller,
  type RuntimeCredentials,
} from './request-guards.ts'
import type { Router } from './router.ts'

export const RUNTIME_HOST = '127.0.0.1'
// Taken as Node's own module, not through `import`: importing node:http
// into an ES module reads every export to build its namespace, and one of
// them (WebSocket) loads Node's whole fetch implementation, a tenth of the
// runtime's start on a quiet machine, for nothing the runtime uses.
const { createServer } = process.getBuiltinModule('node:http')
const MAX_HEADER_BYTES = 16 * 1024
/** What the server tells clients (`Keep-Alive: timeout=5`): Node's agent
 *  and fetch stop reusing an idle connection a second before that. */
export const KEEP_ALIVE_HINT_MS = 5_000
/** How much longer than its hint the server really keeps an idle connection.
 *  A client reusing a connection in the same instant the server closes it
 *  gets a reset instead of an answer; on a loaded machine, where timers fire
 *  seconds late, Node's own one-second margin was not enough (Node 22.19
 *  and 24.6 on, the floor scripts/require-node.cjs enforces). Main's client
 *  also sends again a request reset on a reused connection. */
export const KEEP_ALIVE_MARGIN_MS = 10_000

/**
 * Starts the HTTP server on 127.0.0.1 with a random port. Every answer and
 * every streamed event waits for `durable` (the store's group commit), so no
 * client hears of a write that a power loss could still undo.
 */
export async function startRuntimeServer(
  router: Router,
  credentials: RuntimeCredentials,
  onError: (error: unknown) => void,
  durable: () => Promise<void>,
): Promise<{ server: Server; port: number }> {
  let boundHost = ''
  const checkEdge = requestEdgeCheck(credentials)
  const gatewayResponseKey =
    credentials.gatewayCredential === undefined
      ? undefined
      : gatewayLinkKeys(credentials.gatewayCredential).responseKey
  const server = createServer(
    {
      maxHeaderSize: MAX_HEADER_BYTES,
      keepAliveTimeout: KEEP_ALIVE_HINT_MS,
      keepAliveTimeoutBuffer: KEEP_ALIVE_MARGIN_MS,
    },
    (req, res) => {
      holdUntilDurable(res, durable)
      latestResponse.set(req.socket, res)
      void handle(router, boundHost, checkEdge, gatewayResponseKey, req, res, onError)
    },
  )
  tapConsentHeaders(server, MAX_HEADER_BYTES)
  server.on('clientError', answerClientError)
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
  checkEdge: (req: IncomingMessage, boundHost: string) => Caller,
  gatewayResponseKey: Buffer | undefined,
  req: IncomingMessage,
  res: ServerResponse,
  onError: (error: unknown) => void,
): Promise<void> {
  try {
    const caller = checkEdge(req, boundHost)
    if (caller === 'gateway' && gatewayResponseKey !== undefined) {
      proveGatewayAnswers(gatewayResponseKey, req, res)
    }
    const url = new URL(req.url ?? '/', `http://${boundHost}`)
    if (url.search !== '') throw new Refusal('unexpected_query', 'this API takes no query string')
    const { route, params } = router.match(req.method ?? '', url.pathname)
    // The gateway credential sits in a file any process of this user can
    // read, so it may only open gateway calls and read their outcome. Every
    // other route, deciding an approval above all, refuses it.
    if (caller === 'gateway' && route.gatewayMayCall !== true) {
      throw new Refusal('gateway_forbidden', 'the gateway credential cannot call this route')
    }
    await route.handle({ req, res, params })
  } catch (error) {
    if (res.headersSent) {
      res.destroy()
      return
    }
    // The handler answered, and that answer waits for the store: it stands.
    if (answered(res)) {
      onError(error)
      return
    }
    // A refused request may still be sending its body: answer and close the
    // connection instead of reading the rest of it.
    if (!req.complete) res.shouldKeepAlive = false
    if (error instanceof Refusal) {
      sendError(res, error)
    } else {
      onError(error)
      sendError(res, new Refusal('internal', 'internal error'))
    }
  }
}

/**
 * Proves every answer to a gateway's request (its refusals too) over the
 * nonce it sent (gateway-answer-proof.ts), so the gateway can tell this
 * runtime from a process that took its port after a crash. Only once the
 * caller showed the gateway's request key: a caller without it gets no
 * proof of anything. A request without exactly one well-formed nonce gets
 * an answer without proof, which the gateway refuses as unproven.
 */
function proveGatewayAnswers(responseKey: Buffer, req: IncomingMessage, res: ServerResponse) {
  const nonces = headerValues(req, GATEWAY_NONCE_HEADER)
  const nonce = nonces.length === 1 ? nonces[0] : undefined
  if (nonce === undefined || !isGatewayNonce(nonce)) return
  const method = req.method ?? ''
  const path = req.url ?? ''
  proveAnswers(res, (status, body) =>
    answerProof(responseKey, { nonce, method, path, status, body }),
  )
}

/** The last response started on each connection, for `answerClientError`. */
const latestResponse = new WeakMap<object, ServerResponse>()

/** Node's parser errors, as the code and reason phrase the answer names;
 *  the status comes from the one table (error-status.ts). */
const CLIENT_ERRORS: Record<string, { reason: string; code: RuntimeErrorCode }> = {
  HPE_HEADER_OVERFLOW: { reason: 'Request Header Fields Too Large', code: 'headers_too_large' },
  ERR_HTTP_REQUEST_TIMEOUT: { reason: 'Request Timeout', code: 'request_timeout' },
}

/**
 * Bytes Node cannot parse as a request (a body sent without framing, a
 * header too large, a request too slow) end the connection. Node's own
 * handler destroys a socket whose last answer is already written, and the
 * reset can make the client drop that answer unread; ending it gracefully
 * lets an earlier refusal arrive with its reason, then says why it closed.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy()
    return
  }
  // The request before the bad bytes was answered: a second answer would be
  // read by the client as the answer to its next request. Just close.
  if (latestResponse.get(socket)?.headersSent) {
    socket.end()
    return
  }
  const { reason, code } = CLIENT_ERRORS[error.code ?? ''] ?? {
    reason: 'Bad Request',
    code: 'malformed_request',
  }
  const status = httpStatusOf(code)
  const body = JSON.stringify({ error: 'the request could not be parsed', code })
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\n` +
      'content-type: application/json; charset=utf-8\r\n' +
      `content-length: ${Buffer.byteLength(body)}\r\n` +
      'connection: close\r\n\r\n' +
      body,
  )
}
