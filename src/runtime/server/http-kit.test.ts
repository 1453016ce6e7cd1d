import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { connect } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { Refusal } from '../domain/refusal.ts'
import { httpStatusOf } from './error-status.ts'
import {
  expectNoBody,
  holdUntilDurable,
  MAX_BODY_BYTES,
  readJsonBody,
  sendJson,
} from './http-kit.ts'

let server: Server | undefined

afterEach(async () => {
  const current = server
  server = undefined
  if (current) await new Promise<void>((resolve) => current.close(() => resolve()))
})

/** Serves one request with `read` and resolves with what it threw (or
 *  undefined), while a raw socket writes `bytes`. */
async function outcomeOfReading(
  read: (req: IncomingMessage) => Promise<unknown>,
  bytes: string,
): Promise<unknown> {
  let settle: (value: unknown) => void = () => {}
  const thrown = new Promise<unknown>((resolve) => (settle = resolve))
  server = createServer((req, res) => {
    read(req).then(
      () => settle(undefined),
      (error: unknown) => settle(error),
    )
    res.on('error', () => {})
  })
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', () => resolve()))
  const address = server.address()
  if (address === null || typeof address === 'string') throw new Error('no port')
  const socket = connect(address.port, '127.0.0.1')
  socket.on('error', () => {})
  socket.write(bytes.replace('HOST', `127.0.0.1:${address.port}`))
  try {
    return await thrown
  } finally {
    socket.destroy()
  }
}

const broken = (method: string) =>
  `${method} / HTTP/1.1\r\nHost: HOST\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`

describe('reading a request body', () => {
  it('refuses a body whose chunked framing breaks off as the client failure it is (400)', async () => {
    const error = await outcomeOfReading(
      (req) => readJsonBody(req, z.strictObject({})),
      broken('POST'),
    )
    expect(error).toBeInstanceOf(Refusal)
    expect(error).toMatchObject({ code: 'incomplete_body' })
    expect(httpStatusOf((error as Refusal).code)).toBe(400)
  })

  it('refuses an unexpected body that breaks off the same way', async () => {
    const error = await outcomeOfReading((req) => expectNoBody(req), broken('DELETE'))
    expect(error).toMatchObject({ code: 'incomplete_body' })
    expect(httpStatusOf((error as Refusal).code)).toBe(400)
  })

  it('still reads a complete chunked body', async () => {
    const error = await outcomeOfReading(
      (req) =>
        readJsonBody(req, z.strictObject({ a: z.literal(1) })).then((body) =>
          expect(body).toEqual({ a: 1 }),
        ),
      `POST / HTTP/1.1\r\nHost: HOST\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n7\r\n{"a":1}\r\n0\r\n\r\n`,
    )
    expect(error).toBeUndefined()
  })

  it('keeps the over-limit refusal for a body that is too large', async () => {
    // One 16 KiB chunk more than MAX_BODY_BYTES holds.
    const chunk = 'x'.repeat(16 * 1024)
    const chunks = MAX_BODY_BYTES / chunk.length + 1
    const error = await outcomeOfReading(
      (req) => readJsonBody(req, z.strictObject({})),
      `POST / HTTP/1.1\r\nHost: HOST\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${`4000\r\n${chunk}\r\n`.repeat(chunks)}0\r\n\r\n`,
    )
    expect(error).toMatchObject({ code: 'body_too_large' })
    expect(httpStatusOf((error as Refusal).code)).toBe(400)
  })
})

describe('answers held until the store is durable', () => {
  /** Serves every request with `sendJson(200)` behind `durable`. */
  async function serveBehind(
    durable: () => Promise<void>,
    answered: (res: ServerResponse) => void = () => {},
  ): Promise<string> {
    server = createServer((req, res) => {
      holdUntilDurable(res, durable)
      sendJson(res, 200, { ok: true })
      answered(res)
    })
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', () => resolve()))
    const address = server.address()
    if (address === null || typeof address === 'string') throw new Error('no port')
    return `http://127.0.0.1:${address.port}/`
  }

  it('sends nothing until the barrier resolves', async () => {
    let release: () => void = () => {}
    const barrier = new Promise<void>((resolve) => (release = resolve))
    let handled: (res: ServerResponse) => void = () => {}
    const handlerDone = new Promise<ServerResponse>((resolve) => (handled = resolve))
    const url = await serveBehind(() => barrier, handled)
    let received = false
    const response = fetch(url).then((r) => {
      received = true
      return r
    })
    // The handler has answered; the answer is held until the barrier. Read
    // on the server, not by waiting a while on the client: not even the
    // status line has gone to the socket.
    const res = await handlerDone
    expect(res.headersSent).toBe(false)
    expect(received).toBe(false)
    release()
    const { status } = await response
    expect(status).toBe(200)
  })

  it("answers 503 and never the handler's answer when the store cannot be made durable", async () => {
    const url = await serveBehind(() => Promise.reject(new Error('fsync failed')))
    const response = await fetch(url)
    expect(response.status).toBe(503)
    expect(await response.json()).toEqual({
      error: 'the store is not durable',
      code: 'not_durable',
    })
  })
})
