import { createHash, timingSafeEqual } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import { Refusal } from '../domain/refusal.ts'

/**
 * Edge checks every request passes before routing. Each fails closed:
 * - Host must be exactly the bound loopback address, once (a DNS-rebinding
 *   page reaches us with its own host name);
 * - no browser may talk to the runtime: an Origin, Sec-Fetch-Site or
 *   Sec-Fetch-Dest header means a browser sent it, and only main (Node) is a
 *   client (Node's fetch sends Sec-Fetch-Mode, never Site or Dest);
 * - the bearer token is compared in constant time.
 *
 * Answers who is calling: `main` (the bearer token) or `gateway` (the MCP
 * gateway's credential from the connection file). Both are compared, always,
 * so the answer's timing does not tell which one a guess came close to.
 */
export type Caller = 'main' | 'gateway'

export interface RuntimeCredentials {
  bearerToken: string
  /** Absent when no gateway credential was issued: then nothing but the
   *  bearer token is accepted. */
  gatewayCredential?: string
}

export function checkRequestEdge(
  req: IncomingMessage,
  boundHost: string,
  credentials: RuntimeCredentials,
): Caller {
  const hosts = headerValues(req, 'host')
  if (hosts.length !== 1 || hosts[0] !== boundHost) {
    throw new Refusal('wrong_host', `Host must be ${boundHost}`)
  }
  if (headerValues(req, 'origin').length > 0 || hasBrowserFetchMetadata(req)) {
    throw new Refusal('browser_origin', 'requests from browsers are refused')
  }
  const authorizations = headerValues(req, 'authorization')
  const presented =
    authorizations.length === 1 ? /^Bearer (\S+)$/.exec(authorizations[0] ?? '')?.[1] : undefined
  if (!presented) throw new Refusal('unauthorized', 'a valid bearer token is required')
  const isMain = sameSecret(presented, credentials.bearerToken)
  const isGateway =
    credentials.gatewayCredential !== undefined &&
    sameSecret(presented, credentials.gatewayCredential)
  if (isMain) return 'main'
  if (isGateway) return 'gateway'
  throw new Refusal('unauthorized', 'a valid bearer token is required')
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
