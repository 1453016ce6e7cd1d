import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import type { ConsentCarryingHeader } from '../../contracts/http-headers.ts'
import { headerValues } from './request-guards.ts'
import { readRequestStream, type HeadReading, type StreamReader } from './request-stream-reader.ts'

// Consent-carrying headers are taken exactly as they arrived.
//
// Node's parser hands the runtime a header value with the spaces and tabs
// around it removed (in `req.rawHeaders` as in `req.headers`), so
// `x-assent-consent:  <token> ` reads the same as `x-assent-consent: <token>`.
// It keeps duplicates apart in `rawHeaders` (and joins them with ", " in
// `headers`), and it refuses control characters and obsolete line folding
// itself. What it hides is the whitespace, so each connection's bytes are
// read before the parser reads them (request-stream-reader.ts), head by
// head: what stood between `name:` (and one space) and the line break.
//
// The judgement is per request. Each head the reader finishes waits in a
// queue until the parser makes a request of it; that request takes it, so
// nothing one request sent is left for the next on the same kept-alive
// connection to be judged by. The reader follows the framing (Content-Length,
// chunked), so a body line that looks like a padded header is never read as
// one. Where it cannot follow the framing it stops: later requests on the
// connection find no head, are refused consent, and the connection closes
// after the answer.

/** Heads read ahead of the parser and not yet taken, oldest first. The parser
 *  takes one per request, in order, so the first is the next request's. */
interface ConnectionTap {
  heads: HeadReading[]
  reader: StreamReader
}

/** Node's parser takes a read's heads as soon as it has parsed the read, so
 *  only a flood of pipelined requests keeps this many waiting. */
export const MAX_HEADS_AHEAD = 1024

const taps = new WeakMap<Socket, ConnectionTap>()
const headOf = new WeakMap<IncomingMessage, HeadReading>()

/**
 * Reads every connection of `server` before Node's HTTP parser does, and
 * hands each request the head it was made of. Call it before listening, after
 * the request handler is added: the head is handed over ahead of every
 * 'request' listener. `maxHeaderBytes` is the server's limit for a whole head.
 */
export function tapConsentHeaders(server: Server, maxHeaderBytes: number): void {
  server.on('connection', (socket: Socket) => {
    const tap: ConnectionTap = { heads: [], reader: readRequestStream(maxHeaderBytes) }
    taps.set(socket, tap)
    // prependListener: this runs before the parser's own 'data' listener, and
    // Node's HTTP server feeds its parser from 'data' events once one is added.
    socket.prependListener('data', (chunk: Buffer) => {
      const heads = tap.reader.read(chunk)
      // A flood of pipelined requests. Dropping a head would hand a later
      // request the wrong one, so none of these is queued and the connection
      // ends now: the requests the parser still makes of this read find no
      // head and are refused, and no later read is judged at all.
      if (tap.heads.length + heads.length > MAX_HEADS_AHEAD) socket.destroy()
      else tap.heads.push(...heads)
    })
  })
  server.prependListener('request', takeHead)
}

function takeHead(req: IncomingMessage, res: ServerResponse): void {
  const head = taps.get(req.socket)?.heads.shift()
  if (head !== undefined) {
    headOf.set(req, head)
    return
  }
  // The reader lost the framing (or never read this connection): nothing
  // says how this request's headers arrived, nor where the next one starts.
  // Refuse consent to this one and end the connection after its answer, so
  // no later request is judged by a head that is not its own.
  res.shouldKeepAlive = false
}

/**
 * The one value of `name` exactly as it arrived, or null when it is missing,
 * sent more than once, or arrived padded. The caller still checks the value
 * against its grammar. Null too when no head was read for this request: then
 * nothing says how the value arrived.
 */
export function exactHeaderValue(req: IncomingMessage, name: ConsentCarryingHeader): string | null {
  const head = headOf.get(req)
  if (head === undefined) return null
  const read = head.get(name)
  if (read?.length !== 1) return null
  const value = read[0]!
  // A padded value was read as null, which equals no value the parser hands
  // over; a value that differs from the parser's would mean the head is not
  // this request's: refused alike.
  return value === headerValues(req, name)[0] ? value : null
}
