import { connect } from 'node:net'

/** One final response read off a raw socket. */
export interface RawExchangeResponse {
  status: number
  headers: Record<string, string>
  body: string
}

/**
 * What happened to bytes written to a fresh loopback connection:
 * `responses` holds every final (non-1xx) response the server sent, in
 * order; `closed` is true when the server ended the connection; `timedOut`
 * when nothing more arrived before the deadline while a response was still
 * owed (a hang).
 */
export interface RawExchangeResult {
  responses: RawExchangeResponse[]
  closed: boolean
  timedOut: boolean
}

/**
 * Writes `bytes` as-is on a new TCP connection and parses the responses the
 * server sends back, for requests `fetch` and `node:http` refuse to produce:
 * malformed request lines, conflicting framing, raw non-ASCII, pipelining.
 *
 * `methods` lists the method of each request written, so a HEAD response is
 * read without a body. Reading stops when `methods.length` final responses
 * have arrived, the server closes, or `timeoutMs` passes. An event stream
 * (`text/event-stream`) counts as answered once its headers arrive: its body
 * never ends by design.
 */
export function rawExchange(options: {
  port: number
  bytes: Buffer
  methods: readonly string[]
  timeoutMs: number
}): Promise<RawExchangeResult> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port: options.port })
    let buffer = Buffer.alloc(0)
    const responses: RawExchangeResponse[] = []
    let closed = false
    let finished = false
    const finish = (timedOut: boolean) => {
      if (finished) return
      finished = true
      clearTimeout(timer)
      socket.destroy()
      resolve({ responses, closed, timedOut })
    }
    const timer = setTimeout(() => finish(true), options.timeoutMs)

    const parseAvailable = (atEnd: boolean): void => {
      for (;;) {
        if (responses.length >= options.methods.length) return finish(false)
        const parsed = parseOne(buffer, options.methods[responses.length] ?? 'GET', atEnd)
        if (parsed === undefined) return
        buffer = buffer.subarray(parsed.consumed)
        if (parsed.response.status >= 100 && parsed.response.status < 200) continue
        responses.push(parsed.response)
        if (parsed.streaming) return finish(false)
      }
    }

    socket.on('data', (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk])
      parseAvailable(false)
    })
    socket.on('end', () => {
      closed = true
      parseAvailable(true)
      finish(false)
    })
    socket.on('close', () => {
      closed = true
      finish(false)
    })
    // A reset after the server answered and closed is how a refused body
    // ends; what counts is what was read before it.
    socket.on('error', () => {
      closed = true
      finish(false)
    })
    socket.write(options.bytes)
  })
}

function parseOne(
  buffer: Buffer,
  method: string,
  atEnd: boolean,
): { response: RawExchangeResponse; consumed: number; streaming: boolean } | undefined {
  const headerEnd = buffer.indexOf('\r\n\r\n')
  if (headerEnd < 0) return undefined
  const head = buffer.subarray(0, headerEnd).toString('latin1').split('\r\n')
  const statusMatch = /^HTTP\/1\.[01] (\d{3})/.exec(head[0] ?? '')
  if (!statusMatch) {
    // Not HTTP: report it as status 0 so the caller's assertions name it.
    return {
      response: { status: 0, headers: {}, body: buffer.toString('latin1') },
      consumed: buffer.length,
      streaming: false,
    }
  }
  const status = Number(statusMatch[1])
  const headers: Record<string, string> = {}
  for (const line of head.slice(1)) {
    const colon = line.indexOf(':')
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
  }
  const bodyStart = headerEnd + 4
  const noBody =
    method.toUpperCase() === 'HEAD' ||
    status === 204 ||
    status === 304 ||
    (status >= 100 && status < 200)
  if (noBody) {
    return { response: { status, headers, body: '' }, consumed: bodyStart, streaming: false }
  }
  if ((headers['content-type'] ?? '').startsWith('text/event-stream')) {
    return { response: { status, headers, body: '' }, consumed: buffer.length, streaming: true }
  }
  if (headers['content-length'] !== undefined) {
    const length = Number(headers['content-length'])
    if (buffer.length < bodyStart + length) return undefined
    const body = buffer.subarray(bodyStart, bodyStart + length).toString('utf8')
    return { response: { status, headers, body }, consumed: bodyStart + length, streaming: false }
  }
  if ((headers['transfer-encoding'] ?? '').toLowerCase() === 'chunked') {
    const chunked = readChunked(buffer, bodyStart)
    if (chunked === undefined) return undefined
    return {
      response: { status, headers, body: chunked.body },
      consumed: chunked.end,
      streaming: false,
    }
  }
  // No framing: the body runs to the end of the connection.
  if (!atEnd) return undefined
  return {
    response: { status, headers, body: buffer.subarray(bodyStart).toString('utf8') },
    consumed: buffer.length,
    streaming: false,
  }
}

function readChunked(buffer: Buffer, start: number): { body: string; end: number } | undefined {
  const parts: Buffer[] = []
  let at = start
  for (;;) {
    const lineEnd = buffer.indexOf('\r\n', at)
    if (lineEnd < 0) return undefined
    const size = parseInt(buffer.subarray(at, lineEnd).toString('latin1').split(';')[0] ?? '', 16)
    if (!Number.isFinite(size)) return undefined
    const dataStart = lineEnd + 2
    if (size === 0) {
      const trailerEnd = buffer.indexOf('\r\n', dataStart)
      if (trailerEnd < 0) return undefined
      return { body: Buffer.concat(parts).toString('utf8'), end: trailerEnd + 2 }
    }
    if (buffer.length < dataStart + size + 2) return undefined
    parts.push(buffer.subarray(dataStart, dataStart + size))
    at = dataStart + size + 2
  }
}
