import { IncomingMessage } from 'node:http'
import { connect, createServer as createNetServer, type Socket } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CONSENT_HEADER } from '../../contracts/http-headers.ts'
import { exactHeaderValue, tapConsentHeaderLines } from './consent-headers.ts'
import {
  MAX_HEADER_BYTES,
  TOKEN,
  countReads,
  serverReadUpTo,
} from '../test-support/consent-header-server.ts'

describe('tapConsentHeaderLines: every line from the first byte of a connection', () => {
  // A raw loopback connection, no HTTP server: the test writes the first
  // bytes itself, so the first line can be one an HTTP parser would refuse
  // (that is the parser's business; the tap reads every line). The request
  // it then asks about is built on the tapped socket.
  let raw: ReturnType<typeof createNetServer>
  let rawPort: number
  const accepted: Array<(socket: Socket) => void> = []

  beforeAll(async () => {
    raw = createNetServer((socket) => {
      tapConsentHeaderLines(socket, MAX_HEADER_BYTES)
      countReads(socket)
      accepted.shift()?.(socket)
    })
    await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve))
    const address = raw.address()
    if (address === null || typeof address === 'string') throw new Error('no port')
    rawPort = address.port
  })

  afterAll(async () => {
    await new Promise((resolve) => raw.close(resolve))
  })

  /** What `exactHeaderValue` reads on a connection whose first bytes are `bytes`. */
  async function valueAfter(bytes: string): Promise<string | null> {
    const serverSide = new Promise<Socket>((resolve) => accepted.push(resolve))
    const client = connect({ host: '127.0.0.1', port: rawPort })
    await new Promise<void>((resolve) => client.once('connect', resolve))
    const read = serverReadUpTo(client, bytes.length)
    client.write(Buffer.from(bytes, 'latin1'))
    const [socket] = await Promise.all([serverSide, read])
    const req = new IncomingMessage(socket)
    req.rawHeaders = [CONSENT_HEADER, TOKEN]
    const value = exactHeaderValue(req, CONSENT_HEADER)
    client.destroy()
    return value
  }

  it('marks a connection whose very first line is a padded consent line', async () => {
    expect(await valueAfter(`${CONSENT_HEADER}: ${TOKEN}\r\n`)).toBe(TOKEN)
    expect(await valueAfter(`${CONSENT_HEADER}:  ${TOKEN}\r\n`)).toBeNull()
    expect(await valueAfter(`${CONSENT_HEADER}: ${TOKEN}\t\r\n`)).toBeNull()
  })
})
