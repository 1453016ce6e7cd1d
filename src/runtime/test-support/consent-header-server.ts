import { EventEmitter } from 'node:events'
import { createServer, type Server } from 'node:http'
import { connect, type Socket } from 'node:net'
import fc from 'fast-check'
import { afterAll, beforeAll } from 'vitest'
import { CONSENT_CARRYING_HEADERS } from '../../contracts/http-headers.ts'
import { exactHeaderValue, tapConsentHeaders } from '../server/consent-headers.ts'

// For the consent-header tests (src/runtime/server/consent-headers*.test.ts):
// a real HTTP server on loopback with the tap attached as the runtime
// attaches it, answering with what `exactHeaderValue` read for each
// consent-carrying header. Requests are written as raw bytes, so the tests
// choose every space, tab and line break, and how the bytes are split
// across writes.

export const MAX_HEADER_BYTES = 16 * 1024

export interface Answer {
  values: Record<string, string | null>
  /** 'data' events the server's connection had seen when it answered. */
  chunks: number
}

const chunksSeen = new WeakMap<object, number>()
/** Emits 'read' with the client's port and the bytes the server has read
 *  from it so far, each time a server reads from it. */
const serverReads = new EventEmitter()

/** Resolves once the server has read `bytes` bytes in all from `client`'s
 *  connection. */
export function serverReadUpTo(client: Socket, bytes: number): Promise<void> {
  return new Promise((resolve) => {
    const onRead = (clientPort: number | undefined, total: number) => {
      if (clientPort !== client.localPort || total < bytes) return
      serverReads.off('read', onRead)
      resolve()
    }
    serverReads.on('read', onRead)
  })
}

/** Counts what a server socket has read and announces it on `serverReads`. */
export function countReads(socket: Socket): void {
  let bytes = 0
  socket.on('data', (chunk: Buffer) => {
    bytes += chunk.length
    chunksSeen.set(socket, (chunksSeen.get(socket) ?? 0) + 1)
    serverReads.emit('read', socket.remotePort, bytes)
  })
}

function answering(server: Server): Server {
  server.on('request', (req, res) => {
    const values = Object.fromEntries(
      CONSENT_CARRYING_HEADERS.map((name) => [name, exactHeaderValue(req, name)]),
    )
    req.resume()
    req.on('end', () =>
      res.end(JSON.stringify({ values, chunks: chunksSeen.get(req.socket) ?? 0 } satisfies Answer)),
    )
  })
  return server
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  if (address === null || typeof address === 'string') throw new Error('no port')
  return address.port
}

/** The ports of the two servers `useConsentHeaderServers` starts: one with
 *  the tap attached as the runtime attaches it, one without. */
export const servers = { tapped: 0, untapped: 0 }

/** Starts both servers before the file's tests and closes them after. */
export function useConsentHeaderServers(): void {
  let tapped: Server
  let untapped: Server
  beforeAll(async () => {
    tapped = answering(createServer({ maxHeaderSize: MAX_HEADER_BYTES }))
    tapConsentHeaders(tapped, MAX_HEADER_BYTES)
    tapped.on('connection', countReads)
    untapped = answering(createServer({ maxHeaderSize: MAX_HEADER_BYTES }))
    servers.tapped = await listen(tapped)
    servers.untapped = await listen(untapped)
  })

  afterAll(async () => {
    // A failed test can leave a keep-alive connection open; close never
    // finishes while one is, so the failure would show as a hang.
    for (const server of [tapped, untapped]) server.closeAllConnections()
    await Promise.all(
      [tapped, untapped].map((server) => new Promise((resolve) => server.close(resolve))),
    )
  })
}

/** Writes `parts` one after another on one connection, then reads every
 *  answer. With `readApart`, each part is written only once the server has
 *  read every byte before it (its 'data' events, not a pause), so a read
 *  ends exactly where each part ends however busy the machine is. */
export function exchange(
  port: number,
  parts: string[],
  answers: number,
  readApart = false,
): Promise<Answer[]> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port })
    const received: Buffer[] = []
    socket.setNoDelay(true)
    socket.on('data', (chunk: Buffer) => received.push(chunk))
    socket.on('error', reject)
    socket.on('close', () => {
      // Heads are ASCII; the JSON bodies are UTF-8.
      const text = Buffer.concat(received).toString('utf8')
      const bodies = text
        .split('HTTP/1.1 ')
        .slice(1)
        .map((response) => JSON.parse(response.slice(response.indexOf('\r\n\r\n') + 4)) as Answer)
      if (bodies.length !== answers) reject(new Error(`expected ${answers} answers: ${text}`))
      else resolve(bodies)
    })
    void (async () => {
      let written = 0
      for (const [index, part] of parts.entries()) {
        const last = index === parts.length - 1
        written += part.length
        const read = readApart && !last ? serverReadUpTo(socket, written) : undefined
        socket.write(Buffer.from(part, 'latin1'))
        await read
      }
    })()
  })
}

export function request(headerLines: string[], options: { close?: boolean; body?: string } = {}) {
  const body = options.body ?? ''
  return (
    'POST /consent HTTP/1.1\r\nHost: 127.0.0.1\r\n' +
    headerLines.map((line) => `${line}\r\n`).join('') +
    `Content-Length: ${body.length}\r\n` +
    (options.close === false ? '' : 'Connection: close\r\n') +
    `\r\n${body}`
  )
}

export const TOKEN = `v1.1700000030000.${'A'.repeat(21)}Q.${'B'.repeat(42)}A`
export const DIGEST = 'ab'.repeat(32)

/** Values with no space or tab at either end: tokens, digests, and any
 *  other bytes Node passes through. */
export const valueArb = fc.oneof(
  fc.constantFrom(TOKEN, DIGEST),
  fc
    .string({ unit: fc.integer({ min: 0x21, max: 0xff }).map((code) => String.fromCharCode(code)) })
    .filter((value) => value.length > 0 && !value.includes('\x7f'))
    .map((value) => value.replace(/\s/g, 'x')),
)
export const nameArb = fc
  .constantFrom(...CONSENT_CARRYING_HEADERS)
  .chain((name) => fc.constantFrom(name, name.toUpperCase(), name.replace(/(^|-)x/g, '$1X')))
const whitespace = fc.stringMatching(/^[ \t]{0,3}$/)
export const isExactSpacing = (before: string, after: string) =>
  (before === '' || before === ' ') && after === ''
/** Exact and padded spellings drawn half and half, so both counts below
 *  are well above their floor in every run, not only in most. */
export const spacingArb = fc.oneof(
  fc.record({ before: fc.constantFrom('', ' '), after: fc.constant('') }),
  fc
    .record({ before: whitespace, after: whitespace })
    .filter(({ before, after }) => !isExactSpacing(before, after)),
)
