import type { IncomingMessage, ServerResponse } from 'node:http'
import type { z } from 'zod'

/**
 * The most bytes of a request body the runtime reads. Every route's schema
 * bounds its text in characters (UTF-16 units), and a unit takes at most 6
 * bytes of JSON (a control character's `\u00XX`; any other at most 3 of
 * UTF-8): the largest a contract allows (a gateway call, under 600 KiB; a
 * person's message of 32 768 characters, under 200 KiB) fits. A request
 * its contract allows is never refused for its bytes: that refusal would
 * reach a Chinese message's writer, or an agent behind the gateway, as
 * the runtime failing instead of the contract's reason
 * (tests/request-size.test.ts builds the largest).
 */
export const MAX_BODY_BYTES = 1024 * 1024

import { RUNTIME_PROOF_HEADER } from '../../contracts/http-headers.ts'
import { Refusal } from '../domain/refusal.ts'
import { httpStatusOf } from './error-status.ts'

interface DurabilityHold {
  durable: () => Promise<void>
  /** The last write queued on this response: writes keep their order. */
  last: Promise<void>
  queued: boolean
}

const holds = new WeakMap<ServerResponse, DurabilityHold>()

/** From now on, everything written through `whenDurable` (and so every
 *  `sendJson`) on `res` waits until `durable` resolves. */
export function holdUntilDurable(res: ServerResponse, durable: () => Promise<void>): void {
  holds.set(res, { durable, last: Promise.resolve(), queued: false })
}

/**
 * Runs `write` once every change committed before this call is on disk, in
 * call order per response. If the store cannot make it durable, nothing is
 * written: a client must never hear of a change that may be lost. It gets
 * a 503 if it has had no answer yet, and a closed connection otherwise.
 */
export function whenDurable(res: ServerResponse, write: () => void): void {
  const hold = holds.get(res)
  if (!hold) {
    write()
    return
  }
  hold.queued = true
  hold.last = hold.last
    .then(() => hold.durable())
    .then(write, () => {
      if (res.headersSent) res.destroy()
      else
        writeJson(
          res,
          httpStatusOf('not_durable'),
          JSON.stringify({ error: 'the store is not durable', code: 'not_durable' }),
        )
    })
}

/** How each answer on a response is proven, for the callers that check
 *  (the MCP gateway: runtime-server.ts). */
const provers = new WeakMap<ServerResponse, (status: number, body: string) => string>()

/** From now on, every answer written on `res` (a route's, a refusal, the
 *  store's 503) carries `prove(status, body)` in its proof header. */
export function proveAnswers(
  res: ServerResponse,
  prove: (status: number, body: string) => string,
): void {
  provers.set(res, prove)
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body)
  whenDurable(res, () => writeJson(res, status, text))
}

function writeJson(res: ServerResponse, status: number, text: string): void {
  // A handler that answered and then threw gets its first answer only.
  if (res.headersSent || res.writableEnded) return
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    ...proofHeaderOf(res, status, text),
  })
  res.end(text)
}

function proofHeaderOf(res: ServerResponse, status: number, text: string) {
  const prove = provers.get(res)
  return prove === undefined ? {} : { [RUNTIME_PROOF_HEADER]: prove(status, text) }
}

/** Whether an answer on `res` is already written or waiting for the store. */
export function answered(res: ServerResponse): boolean {
  return res.headersSent || holds.get(res)?.queued === true
}

/**
 * Refusals are answered at once, not behind the durability hold: a refusal
 * reports no write of its own. Answering at once also keeps the reason ahead
 * of Node's parser: bytes a client sent without framing (a GET's "body")
 * read as a next request, which Node refuses with a bare 400 and a closed
 * connection, and a held refusal would lose that race.
 */
export function sendError(res: ServerResponse, refusal: Refusal): void {
  writeJson(
    res,
    httpStatusOf(refusal.code),
    JSON.stringify({ error: refusal.message, code: refusal.code }),
  )
}

/**
 * Reads and parses a JSON body with a strict schema. Refuses before parsing
 * anything that is not `application/json` or exceeds the cap, so no handler
 * ever sees unvalidated input. Every refusal names what was wrong.
 */
export async function readJsonBody<S extends z.ZodType>(
  req: IncomingMessage,
  schema: S,
): Promise<z.infer<S>> {
  const type = req.headers['content-type'] ?? ''
  if (!/^application\/json(\s*;\s*charset=utf-8)?$/i.test(type)) {
    throw new Refusal('bad_content_type', 'content-type must be application/json')
  }
  const declared = req.headers['content-length']
  if (declared !== undefined && Number(declared) > MAX_BODY_BYTES) {
    throw new Refusal('body_too_large', `body exceeds ${MAX_BODY_BYTES} bytes`)
  }
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of bodyChunks(req)) {
    size += chunk.length
    if (size > MAX_BODY_BYTES)
      throw new Refusal('body_too_large', `body exceeds ${MAX_BODY_BYTES} bytes`)
    chunks.push(chunk)
  }
  let value: unknown
  try {
    value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks)))
  } catch {
    throw new Refusal('invalid_json', 'body is not valid UTF-8 JSON')
  }
  const parsed = schema.safeParse(value)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    const where = issue?.path.length ? issue.path.join('.') : 'body'
    throw new Refusal('invalid_body', `${where}: ${issue?.message ?? 'invalid'}`)
  }
  return parsed.data
}

/** Drains a body the route does not expect, refusing one that is present. */
export async function expectNoBody(req: IncomingMessage): Promise<void> {
  let size = 0
  for await (const chunk of bodyChunks(req)) {
    size += chunk.length
    if (size > 0) throw new Refusal('unexpected_body', 'this route takes no body')
  }
}

/** The body's chunks. A body that stops short (the client went away, or
 *  Node's parser refused its chunked framing and closed the connection) is
 *  the client's failure, not the runtime's: a 400, never an internal error. */
async function* bodyChunks(req: IncomingMessage): AsyncGenerator<Buffer> {
  try {
    for await (const chunk of req as AsyncIterable<Buffer>) yield chunk
  } catch {
    throw new Refusal('incomplete_body', 'the request body was not received completely')
  }
}
