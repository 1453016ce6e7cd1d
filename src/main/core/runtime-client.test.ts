import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import type { ApprovalRecord } from '../../contracts/approval.ts'
import {
  RuntimeAnswerError,
  RuntimeClient,
  RuntimeRequestError,
  parseApprovalDecisionAnswer,
} from './runtime-client.ts'

const APPROVAL: ApprovalRecord = {
  id: 'ap_1',
  roomId: 'room_1',
  turnId: 'turn_1',
  toolCallId: 'call_1',
  kind: 'run-command',
  toolName: 'run_command',
  arguments: { command: 'npm test' },
  workingDirectory: '/w',
  sandboxMode: 'workspace-write',
  summary: 'Run the tests',
  status: 'allowed',
  decision: 'allow-once',
  decidedBy: 'user',
  createdAt: 1,
  expiresAt: 2,
  decidedAt: 1,
}

describe('parseApprovalDecisionAnswer', () => {
  it('reads a decided approval', () => {
    expect(parseApprovalDecisionAnswer({ status: 200, body: { approval: APPROVAL } })).toEqual({
      status: 'decided',
      approval: APPROVAL,
    })
  })

  it("reports a refusal with the runtime's code and message, or its status when there is none", () => {
    expect(
      parseApprovalDecisionAnswer({
        status: 410,
        body: { error: 'the approval expired', code: 'approval_expired' },
      }),
    ).toEqual({
      status: 'refused',
      httpStatus: 410,
      code: 'approval_expired',
      error: 'the approval expired',
    })
    expect(parseApprovalDecisionAnswer({ status: 502, body: null })).toEqual({
      status: 'refused',
      httpStatus: 502,
      code: undefined,
      error: 'the runtime answered 502',
    })
  })

  it('keeps no code the runtime does not define', () => {
    expect(
      parseApprovalDecisionAnswer({ status: 409, body: { error: 'x', code: 'made_up' } }),
    ).toMatchObject({ status: 'refused', code: undefined, error: 'x' })
  })

  it('fails closed on a 200 whose body is not { approval }', () => {
    for (const body of [
      null,
      {},
      { approval: { ...APPROVAL, status: 'maybe' } },
      { approval: { id: 'ap_1' } },
      { approval: APPROVAL, extra: true },
      [APPROVAL],
    ]) {
      expect(
        () => parseApprovalDecisionAnswer({ status: 200, body }),
        JSON.stringify(body),
      ).toThrow(RuntimeAnswerError)
    }
    expect(() => parseApprovalDecisionAnswer({ status: 200, body: {} })).toThrow(
      /did not match its contract \(approval: /,
    )
  })
})

describe('RuntimeClient against a runtime that answers off-contract (loopback server)', () => {
  let server: Server | undefined
  afterEach(async () => {
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()))
    server = undefined
  })

  async function clientAnswering(status: number, body: unknown): Promise<RuntimeClient> {
    server = createServer((_req, res) => {
      res.writeHead(status, { 'content-type': 'application/json' })
      res.end(JSON.stringify(body))
    })
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve))
    const { port } = server.address() as AddressInfo
    return new RuntimeClient(() => ({
      port,
      instanceId: 'instance-1',
      bearerToken: 'bearer',
      consentKey: Buffer.alloc(32),
    }))
  }

  it('refuses a room answer that is not { room }, naming the route', async () => {
    const client = await clientAnswering(200, { room: { id: 'room_1' } })
    await expect(client.getRoom('room_1')).rejects.toThrow(
      /^the runtime's answer to GET \/v1\/rooms\/room_1 did not match its contract/,
    )
    await expect(client.getRoom('room_1')).rejects.toBeInstanceOf(RuntimeAnswerError)
  })

  it('turns an error answer into a RuntimeRequestError with its message and code', async () => {
    const client = await clientAnswering(404, { error: 'unknown room', code: 'unknown_room' })
    const error = await client.getRoom('room_1').catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(RuntimeRequestError)
    expect(error).toMatchObject({ status: 404, message: 'unknown room', code: 'unknown_room' })
  })
})

describe('RuntimeClient on the wire (loopback server)', () => {
  let server: Server | undefined
  afterEach(async () => {
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()))
    server = undefined
  })

  async function listen(handler: Parameters<typeof createServer>[1]): Promise<number> {
    server = createServer(handler)
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve))
    return (server.address() as AddressInfo).port
  }

  const clientOn = (port: number) =>
    new RuntimeClient(() => ({
      port,
      instanceId: 'instance-1',
      bearerToken: 'bearer',
      consentKey: Buffer.alloc(32),
    }))

  it('sends the bearer token, its headers and a JSON body, over one kept-alive connection', async () => {
    const seen: Array<{ method?: string; url?: string; headers: unknown; body: string }> = []
    const sockets = new Set<unknown>()
    const port = await listen((req, res) => {
      sockets.add(req.socket)
      let body = ''
      req.setEncoding('utf8')
      req.on('data', (chunk: string) => (body += chunk))
      req.on('end', () => {
        seen.push({ method: req.method, url: req.url, headers: req.headers, body })
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end(JSON.stringify({ echo: body.length }))
      })
    })
    const client = clientOn(port)
    const first = await client.raw(
      'POST',
      '/v1/x',
      { decision: 'deny', note: 'é' },
      { 'x-one': '1' },
    )
    const second = await client.raw('GET', '/v1/y')
    expect(first).toEqual({ status: 200, body: { echo: 30 } })
    expect(second).toEqual({ status: 200, body: { echo: 0 } })
    expect(seen[0]).toMatchObject({
      method: 'POST',
      url: '/v1/x',
      body: '{"decision":"deny","note":"é"}',
      headers: {
        authorization: 'Bearer bearer',
        'content-type': 'application/json',
        'content-length': '31',
        'x-one': '1',
      },
    })
    expect(seen[1]).toMatchObject({ method: 'GET', url: '/v1/y', body: '' })
    expect(seen[1]?.headers).not.toHaveProperty('content-type')
    expect(sockets.size).toBe(1)
  })

  it('reads an empty answer as no body', async () => {
    const port = await listen((_req, res) => {
      res.writeHead(204)
      res.end()
    })
    expect(await clientOn(port).raw('GET', '/v1/x')).toEqual({ status: 204, body: null })
  })

  it('rejects an answer the runtime cut off, rather than reading part of it', async () => {
    const port = await listen((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' })
      res.write('{"approval":')
      setImmediate(() => res.socket?.destroy())
    })
    await expect(clientOn(port).raw('GET', '/v1/x')).rejects.toThrow()
  })

  it('rejects when nothing listens on the port', async () => {
    const port = await listen((_req, res) => res.end())
    await new Promise<void>((resolve) => server?.close(() => resolve()))
    server = undefined
    await expect(clientOn(port).raw('GET', '/v1/x')).rejects.toThrow(/ECONNREFUSED/)
  })

  it('sends a request again, once and on a new connection, when a reused connection resets before any answer', async () => {
    const requests: Array<{ url?: string; socket: number }> = []
    const sockets: unknown[] = []
    const port = await listen((req, res) => {
      if (!sockets.includes(req.socket)) sockets.push(req.socket)
      const socket = sockets.indexOf(req.socket)
      requests.push({ url: req.url, socket })
      // The runtime closing an idle connection as the client reuses it: the
      // second request on the first connection gets a reset, no answer.
      if (socket === 0 && requests.length === 2) {
        req.socket.destroy()
        return
      }
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ n: requests.length }))
    })
    const client = clientOn(port)
    expect(await client.raw('GET', '/v1/first')).toEqual({ status: 200, body: { n: 1 } })
    expect(await client.raw('POST', '/v1/second', { decision: 'deny' })).toEqual({
      status: 200,
      body: { n: 3 },
    })
    expect(requests).toEqual([
      { url: '/v1/first', socket: 0 },
      { url: '/v1/second', socket: 0 },
      { url: '/v1/second', socket: 1 },
    ])
  })

  it('does not send again once the answer began, or after a reset on a new connection', async () => {
    const urls: Array<string | undefined> = []
    const port = await listen((req, res) => {
      urls.push(req.url)
      if (req.url === '/v1/reset') {
        req.socket.destroy()
        return
      }
      if (req.url === '/v1/ok') {
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end('{}')
        return
      }
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' })
      res.write('{"n":')
      setImmediate(() => res.socket?.destroy())
    })
    const client = clientOn(port)
    await client.raw('GET', '/v1/ok')
    // Reused connection, cut off mid-answer: the runtime saw this one.
    await expect(client.raw('POST', '/v1/cut', {})).rejects.toThrow()
    // That connection is gone, so this reset is on a new one.
    await expect(client.raw('GET', '/v1/reset')).rejects.toMatchObject({ code: 'ECONNRESET' })
    expect(urls).toEqual(['/v1/ok', '/v1/cut', '/v1/reset'])
  })
})
