import { createHash, timingSafeEqual } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import { HttpError } from './http-kit.ts'

/**
 * Edge checks every request passes before routing. Each fails closed:
 * - Host must be exactly the bound loopback address, once (a DNS-rebinding
 *   page reaches us with its own host name);
 * - no browser may talk to the runtime: an Origin, Sec-Fetch-Site or
 *   Sec-Fetch-Dest header means a browser sent it, and only main (Node) is a
 *   client (Node's fetch sends Sec-Fetch-Mode, never Site or Dest);
 * - the bearer token is compared in constant time.
 */
export function checkRequestEdge(
  req: IncomingMessage,
  boundHost: string,
  bearerToken: string,
): void {
  const hosts = headerValues(req, 'host')
  if (hosts.length !== 1 || hosts[0] !== boundHost) {
    throw new HttpError(421, 'wrong_host', `Host must be ${boundHost}`)
  }
  if (headerValues(req, 'origin').length > 0 || hasBrowserFetchMetadata(req)) {
    throw new HttpError(403, 'browser_origin', 'requests from browsers are refused')
  }
  const authorizations = headerValues(req, 'authorization')
  const presented =
    authorizations.length === 1 ? /^Bearer (\S+)$/.exec(authorizations[0] ?? '')?.[1] : undefined
  if (!presented || !sameSecret(presented, bearerToken)) {
    throw new HttpError(401, 'unauthorized', 'a valid bearer token is required')
  }
}

export function headerValues(req: IncomingMessage, name: string): string[] {
  const values: string[] = []
  for (let index = 0; index < req.rawHeaders.length; index += 2) {
    if (req.rawHeaders[index]?.toLowerCase() === name) values.push(req.rawHeaders[index + 1] ?? '')
  }
  return values
}

function hasBrowserFetchMetadata(req: IncomingMessage): boolean {
  return (
    headerValues(req, 'sec-fetch-site').length > 0 || headerValues(req, 'sec-fetch-dest').length > 0
  )
}

/** Hash both sides first so the comparison is constant-time whatever the
 *  lengths: `timingSafeEqual` itself throws on a length mismatch. */
export function sameSecret(presented: string, expected: string): boolean {
  const a = createHash('sha256').update(presented).digest()
  const b = createHash('sha256').update(expected).digest()
  return timingSafeEqual(a, b)
}
