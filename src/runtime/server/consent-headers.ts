import type { IncomingMessage } from 'node:http'
import type { Socket } from 'node:net'
import {
  CONSENT_CARRYING_HEADERS,
  type ConsentCarryingHeader,
} from '../../contracts/http-headers.ts'
import { headerValues } from './request-guards.ts'

// Consent-carrying headers are taken exactly as they arrived.
//
// Node's parser hands the runtime a header value with the spaces and tabs
// around it removed (in `req.rawHeaders` as in `req.headers`), so
// `x-assent-consent:  <token> ` reads the same as `x-assent-consent: <token>`.
// It keeps duplicates apart in `rawHeaders` (and joins them with ", " in
// `headers`), and it refuses control characters and obsolete line folding
// itself. What it hides is the whitespace, so each connection's bytes are
// read before the parser reads them, and a connection that ever carries a
// consent-carrying header line with anything but `name:value` or
// `name: value` (no other space or tab before or after the value) is refused
// consent from then on. The tap reads ahead of the parser, so it has seen a
// request's header lines before the request reaches a route. It does not
// follow message framing: a body line that looks like a padded consent
// header also marks the connection, which refuses, never admits.

/** Per connection: whether a padded consent-carrying line was seen, and the
 *  unfinished line at the end of the last chunk (of a line being skipped,
 *  only its last character). */
interface ConnectionTap {
  padded: boolean
  carry: string
  /** The unfinished line was longer than any head Node accepts: the rest of
   *  it is body bytes and is not read. */
  skipping: boolean
}

const taps = new WeakMap<Socket, ConnectionTap>()

/**
 * Reads each chunk of `socket` before Node's HTTP parser does. Attach it in
 * the server's 'connection' event. `maxHeaderBytes` is the server's limit
 * for a whole head: no header line it accepts is longer.
 */
export function tapConsentHeaderLines(socket: Socket, maxHeaderBytes: number): void {
  const tap: ConnectionTap = { padded: false, carry: '', skipping: false }
  taps.set(socket, tap)
  // prependListener: this runs before the parser's own 'data' listener, and
  // Node's HTTP server feeds its parser from 'data' events once one is added.
  socket.prependListener('data', (chunk: Buffer) => readChunk(tap, chunk, maxHeaderBytes))
}

/**
 * The one value of `name` exactly as it arrived, or null when it is
 * missing, sent more than once, or arrived padded (on this connection). The
 * caller still checks the value against its grammar. Null too when the
 * connection was never tapped: then nothing says how the value arrived.
 */
export function exactHeaderValue(req: IncomingMessage, name: ConsentCarryingHeader): string | null {
  const tap = taps.get(req.socket)
  if (tap === undefined || tap.padded) return null
  const values = headerValues(req, name)
  return values.length === 1 ? values[0]! : null
}

function readChunk(tap: ConnectionTap, chunk: Buffer, maxHeaderBytes: number): void {
  // Marked for good: reading on would change nothing.
  if (tap.padded) return
  // latin1: one character per byte, whatever the bytes are.
  const text = tap.carry + chunk.toString('latin1')
  let start = 0
  for (let end = text.indexOf('\r\n'); end >= 0; end = text.indexOf('\r\n', start)) {
    if (tap.skipping) tap.skipping = false
    else if (isPaddedConsentLine(text, start, end)) {
      tap.padded = true
      return
    }
    start = end + 2
  }
  const rest = text.length - start
  tap.skipping = tap.skipping || rest > maxHeaderBytes
  // A skipped line is not kept, but its last character is: a CR there and
  // an LF opening the next read are the line break that ends it. Dropping
  // the CR would let the skip run on over the line after, which can be a
  // padded consent header.
  tap.carry = text.slice(tap.skipping ? text.length - 1 : start)
}

const COLON = 0x3a
const SPACE = 0x20
const TAB = 0x09

/** Whether the line text[start, end) is a consent-carrying header with any
 *  space or tab around its value other than one space after the colon. */
function isPaddedConsentLine(text: string, start: number, end: number): boolean {
  for (const name of CONSENT_CARRYING_HEADERS) {
    const colon = start + name.length
    // A colon at or past the line's end is not this line's: the slice then
    // holds the line break and matches no name.
    if (text.charCodeAt(colon) !== COLON || text.slice(start, colon).toLowerCase() !== name) {
      continue
    }
    // One space after the colon is how every client writes a header; the
    // value follows it directly and ends the line.
    const valueStart = text.charCodeAt(colon + 1) === SPACE ? colon + 2 : colon + 1
    const first = text.charCodeAt(valueStart)
    const last = text.charCodeAt(end - 1)
    return first === SPACE || first === TAB || last === SPACE || last === TAB
  }
  return false
}
