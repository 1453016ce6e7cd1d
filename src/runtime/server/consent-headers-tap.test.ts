import { createServer } from 'node:http'
import { connect, type Socket } from 'node:net'
import { describe, expect, it } from 'vitest'
import { CONSENT_HEADER } from '../../contracts/http-headers.ts'
import { MAX_HEADS_AHEAD, exactHeaderValue, tapConsentHeaders } from './consent-headers.ts'
import {
  MAX_HEADER_BYTES,
  TOKEN,
  request,
  servers,
  useConsentHeaderServers,
} from '../test-support/consent-header-server.ts'

// Where the tap cannot follow a connection's framing, over a real loopback
// server: the request it lost the framing at and every one after it are
// refused consent, and the connection closes after the answer, so no later
// request is judged by a head that is not its own.

useConsentHeaderServers()

/** Writes `bytes` on a fresh connection; resolves with everything the server
 *  sent once it closes the connection, or with what came within `waitMs`
 *  when it keeps it open (then `closed` is false). */
function writeAndRead(bytes: string, waitMs = 2_000): Promise<{ text: string; closed: boolean }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port: servers.tapped })
    const received: Buffer[] = []
    const done = (closed: boolean) => {
      clearTimeout(timer)
      socket.destroy()
      resolve({ text: Buffer.concat(received).toString('utf8'), closed })
    }
    const timer = setTimeout(() => done(false), waitMs)
    socket.on('data', (chunk: Buffer) => received.push(chunk))
    socket.on('error', reject)
    socket.on('end', () => done(true))
    socket.write(Buffer.from(bytes, 'latin1'))
  })
}

const exact = `${CONSENT_HEADER}: ${TOKEN}`
const statuses = (text: string) =>
  [...text.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((match) => match[1])

describe('tapConsentHeaders: framing it cannot follow', () => {
  it('refuses consent at an Upgrade it is not answered for, and closes the connection after', async () => {
    const upgrade = request([exact, 'Connection: upgrade', 'Upgrade: websocket'], { close: false })
    const { text, closed } = await writeAndRead(upgrade + request([exact], { close: false }))
    // The server has no 'upgrade' listener, so Node answers it as a request.
    expect(statuses(text)).toEqual(['200'])
    expect(text).toContain(`"${CONSENT_HEADER}":null`)
    expect(closed).toBe(true)
  })

  it('refuses consent to the request after an Expect Node answers itself with a 417, and closes', async () => {
    const expectation = request([exact, 'Expect: something-else'], { close: false })
    const { text, closed } = await writeAndRead(expectation + request([exact], { close: false }))
    expect(statuses(text)).toEqual(['417', '200'])
    // Without the tap stopping, this request would take the 417's head.
    expect(text).toContain(`"${CONSENT_HEADER}":null`)
    expect(closed).toBe(true)
  })

  it('keeps a connection open and counts consent where it follows the framing', async () => {
    const { text, closed } = await writeAndRead(
      request([exact, 'Expect: 100-continue'], { close: false }) +
        request([exact], { close: false }),
      500,
    )
    expect(statuses(text)).toEqual(['100', '200', '200'])
    expect(text.split(`"${CONSENT_HEADER}":"${TOKEN}"`)).toHaveLength(3)
    expect(closed).toBe(false)
  })

  it('ends the connection at once on a read that would put more than MAX_HEADS_AHEAD heads waiting', async () => {
    const answered = async (heads: number) => {
      const server = createServer((req, res) => {
        res.end(String(exactHeaderValue(req, CONSENT_HEADER)))
      })
      tapConsentHeaders(server, MAX_HEADER_BYTES)
      const accepted = new Promise<Socket>((resolve) => server.once('connection', resolve))
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
      const address = server.address()
      if (address === null || typeof address === 'string') throw new Error('no port')
      const client = connect({ host: '127.0.0.1', port: address.port })
      const received: Buffer[] = []
      client.on('data', (chunk: Buffer) => received.push(chunk))
      const ended = new Promise<void>((resolve) => client.on('close', () => resolve()))
      const socket = await accepted
      // Every head in one read, as a 64 KiB read of tiny pipelined requests
      // would bring them: handed to the socket's readers directly, so the
      // split does not depend on how the kernel delivers them.
      const one = `GET / HTTP/1.1\r\nHost: x\r\n${CONSENT_HEADER}: ${TOKEN}\r\n\r\n`
      socket.emit(
        'data',
        Buffer.from(
          one.repeat(heads - 1) + one.replace('\r\n\r\n', '\r\nConnection: close\r\n\r\n'),
        ),
      )
      await ended
      server.close()
      return [
        ...Buffer.concat(received)
          .toString('latin1')
          .matchAll(/\r\n\r\n(v1\.[^H]*?|null)(?=HTTP|$)/g),
      ].map((match) => (match[1] === 'null' ? null : 'token'))
    }
    const atCap = await answered(MAX_HEADS_AHEAD)
    expect(atCap).toHaveLength(MAX_HEADS_AHEAD)
    expect(atCap.every((value) => value === 'token')).toBe(true)
    expect(await answered(MAX_HEADS_AHEAD + 1)).toEqual([])
  })
})
