import {
  CONSENT_CARRYING_HEADERS,
  type ConsentCarryingHeader,
} from '../../contracts/http-headers.ts'

// Reads a connection's request bytes as HTTP/1.1 frames them, ahead of
// Node's parser, and yields what each request head carried in its
// consent-carrying header lines. Bodies are skipped by their framing
// (Content-Length, or chunked with its trailers), never read as lines.
//
// It follows only framing Node's parser would follow the same way. Anything
// else (a Transfer-Encoding other than one `chunked`, one beside a
// Content-Length, a Content-Length that is not one number, an Upgrade or a
// CONNECT, an Expect Node answers itself, a line longer than any head) makes
// it stop for good: it cannot say where the next request starts, so it yields
// no head for it, and every request after is refused consent.

/** Each consent-carrying header's values in one head, in order: the text
 *  after `name:` (and one space), or null for a value padded with any other
 *  space or tab. */
export type HeadReading = ReadonlyMap<ConsentCarryingHeader, ReadonlyArray<string | null>>

export interface StreamReader {
  /** Reads the next bytes of the connection; returns the heads they finished. */
  read(chunk: Buffer): HeadReading[]
}

interface Head {
  requestLine: string | null
  bytes: number
  consent: Map<ConsentCarryingHeader, Array<string | null>>
  contentLength: string[]
  transferEncoding: string[]
  expect: string[]
  upgrade: boolean
}

type Place =
  | { at: 'head'; head: Head }
  | { at: 'body'; left: number; then: 'head' | 'chunk-end' }
  | { at: 'chunk-size' }
  | { at: 'chunk-end' }
  | { at: 'trailers'; bytes: number }
  | { at: 'lost' }

const CRLF = Buffer.from('\r\n', 'latin1')
const NO_BYTES = Buffer.alloc(0)
const DIGITS = /^[0-9]{1,15}$/
const CHUNK_SIZE = /^([0-9a-fA-F]{1,12})(;.*)?$/
const OWS = /^[ \t]+|[ \t]+$/g

function newHead(): Head {
  return {
    requestLine: null,
    bytes: 0,
    consent: new Map(),
    contentLength: [],
    transferEncoding: [],
    expect: [],
    upgrade: false,
  }
}

export function readRequestStream(maxHeaderBytes: number): StreamReader {
  let place: Place = { at: 'head', head: newHead() }
  let carry = NO_BYTES

  /** Reads one line of a head, a chunk size line or a trailer. */
  function readLine(line: string, finished: HeadReading[]): void {
    switch (place.at) {
      case 'head':
        readHeadLine(place.head, line, finished)
        return
      case 'chunk-size': {
        const size = CHUNK_SIZE.exec(line)
        if (size === null) return lose()
        const bytes = Number.parseInt(size[1]!, 16)
        place =
          bytes === 0
            ? { at: 'trailers', bytes: 0 }
            : { at: 'body', left: bytes, then: 'chunk-end' }
        return
      }
      case 'chunk-end':
        place = line === '' ? { at: 'chunk-size' } : { at: 'lost' }
        return
      case 'trailers':
        place.bytes += line.length + 2
        if (place.bytes > maxHeaderBytes) return lose()
        if (line === '') place = { at: 'head', head: newHead() }
        return
      case 'body':
      case 'lost':
        return
    }
  }

  function readHeadLine(head: Head, line: string, finished: HeadReading[]): void {
    head.bytes += line.length + 2
    if (head.bytes > maxHeaderBytes) return lose()
    if (head.requestLine === null) {
      // Empty lines before a request line are skipped, as RFC 9112 asks.
      if (line !== '') head.requestLine = line
      return
    }
    if (line === '') return endHead(head, finished)
    const colon = line.indexOf(':')
    if (colon < 0) return
    const name = line.slice(0, colon).toLowerCase()
    const raw = line.slice(colon + 1)
    const consentName = CONSENT_CARRYING_HEADERS.find((header) => header === name)
    if (consentName !== undefined) {
      const values = head.consent.get(consentName) ?? []
      values.push(exactValue(raw))
      head.consent.set(consentName, values)
    } else if (name === 'content-length') head.contentLength.push(raw.replace(OWS, ''))
    else if (name === 'transfer-encoding') head.transferEncoding.push(raw.replace(OWS, ''))
    else if (name === 'expect') head.expect.push(raw.replace(OWS, '').toLowerCase())
    else if (name === 'upgrade') head.upgrade = true
  }

  function endHead(head: Head, finished: HeadReading[]): void {
    const method = head.requestLine!.slice(0, head.requestLine!.indexOf(' '))
    // Node answers these without a 'request' (an Upgrade or CONNECT when the
    // server listens for one, an Expect it cannot meet with a 417), or the
    // bytes after them are no longer HTTP: a head queued for them could be
    // taken by the next request. Queue none, and stop.
    if (method === 'CONNECT' || head.upgrade) return lose()
    if (head.expect.some((expectation) => expectation !== '100-continue')) return lose()
    finished.push(head.consent)
    const { contentLength, transferEncoding } = head
    if (transferEncoding.length > 0) {
      // Node refuses any other coding on a request, and a Content-Length
      // beside it: the framing is ambiguous, and the parser ends the connection.
      const chunked =
        transferEncoding.length === 1 &&
        transferEncoding[0]!.toLowerCase() === 'chunked' &&
        contentLength.length === 0
      place = chunked ? { at: 'chunk-size' } : { at: 'lost' }
      return
    }
    if (contentLength.length === 0) {
      place = { at: 'head', head: newHead() }
      return
    }
    if (contentLength.length > 1 || !DIGITS.test(contentLength[0]!)) return lose()
    const length = Number(contentLength[0])
    place =
      length === 0 ? { at: 'head', head: newHead() } : { at: 'body', left: length, then: 'head' }
  }

  function lose(): void {
    place = { at: 'lost' }
  }

  // A function, not a test of `place` inline: the line readers change
  // `place`, which narrowing within `read` would not see.
  function lost(): boolean {
    return place.at === 'lost'
  }

  return {
    read(chunk: Buffer): HeadReading[] {
      const finished: HeadReading[] = []
      if (lost()) return finished
      const data = carry.length === 0 ? chunk : Buffer.concat([carry, chunk])
      let start = 0
      while (start < data.length && !lost()) {
        if (place.at === 'body') {
          const taken = Math.min(place.left, data.length - start)
          start += taken
          place.left -= taken
          if (place.left === 0) {
            place = place.then === 'head' ? { at: 'head', head: newHead() } : { at: 'chunk-end' }
          }
          continue
        }
        const end = data.indexOf(CRLF, start)
        if (end < 0) break
        // latin1: one character per byte, whatever the bytes are.
        readLine(data.toString('latin1', start, end), finished)
        start = end + 2
      }
      // An unfinished line longer than any head is no line Node accepts.
      if (!lost() && data.length - start > maxHeaderBytes) lose()
      carry = lost() ? NO_BYTES : Buffer.from(data.subarray(start))
      return finished
    },
  }
}

const SPACE = ' '
const TAB = '\t'

/** The value after `name:` as sent with one space after the colon or none,
 *  or null when any other space or tab stands around it. */
function exactValue(raw: string): string | null {
  const value = raw.startsWith(SPACE) ? raw.slice(1) : raw
  const first = value.charAt(0)
  const last = raw.charAt(raw.length - 1)
  if (first === SPACE || first === TAB || last === SPACE || last === TAB) return null
  return value
}
