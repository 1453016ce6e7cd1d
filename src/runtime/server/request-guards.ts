import { timingSafeEqual } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import { Refusal } from '../domain/refusal.ts'
import { secretDigest } from '../domain/sha256.ts'
import { gatewayLinkKeys } from '../mcp/gateway-answer-proof.ts'

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
 * gateway's request key, derived from the credential in the connection
 * file: the gateway never sends the credential itself, which whoever took a
 * dead runtime's port would learn; gateway-answer-proof.ts). Both are
 * compared, always, so the answer's timing does not tell which one a guess
 * came close to.
 */
export type Caller = 'main' | 'gateway'

export interface RuntimeCredentials {
  bearerToken: string
  /** The credential in the connection file. Absent when none was issued:
   *  then nothing but the bearer token is accepted. */
  gatewayCredential?: string
}

/** Checks a request's edge for a server holding `credentials`. Their
 *  digests are made here, once: only the presented secret is hashed per
 *  request. */
export function requestEdgeCheck(
  credentials: RuntimeCredentials,
): (req: IncomingMessage, boundHost: string) => Caller {
  const main = secretDigest(credentials.bearerToken)
  const gateway =
    credentials.gatewayCredential === undefined
      ? undefined
      : secretDigest(gatewayLinkKeys(credentials.gatewayCredential).requestKey)
  return (req, boundHost) => {
    const edge = edgeHeadersOf(req)
    if (edge.hosts.length !== 1 || edge.hosts[0] !== boundHost) {
      throw new Refusal('wrong_host', `Host must be ${boundHost}`)
    }
    if (edge.fromBrowser) {
      throw new Refusal('browser_origin', 'requests from browsers are refused')
    }
    const presented =
      edge.authorizations.length === 1
        ? /^Bearer (\S+)$/.exec(edge.authorizations[0] ?? '')?.[1]
        : undefined
    if (!presented) throw new Refusal('unauthorized', 'a valid bearer token is required')
    // Hashed first, so the comparison is constant-time whatever the lengths
    // (timingSafeEqual itself throws on a length mismatch).
    const digest = secretDigest(presented)
    const isMain = timingSafeEqual(digest, main)
    const isGateway = gateway !== undefined && timingSafeEqual(digest, gateway)
    if (isMain) return 'main'
    if (isGateway) return 'gateway'
    throw new Refusal('unauthorized', 'a valid bearer token is required')
  }
}

/** The headers the edge checks, read in one pass over the raw headers. */
interface EdgeHeaders {
  hosts: string[]
  authorizations: string[]
  /** An Origin, Sec-Fetch-Site or Sec-Fetch-Dest header was sent. */
  fromBrowser: boolean
}

function edgeHeadersOf(req: IncomingMessage): EdgeHeaders {
  const edge: EdgeHeaders = { hosts: [], authorizations: [], fromBrowser: false }
  const raw = req.rawHeaders
  for (let index = 0; index < raw.length; index += 2) {
    const name = raw[index]?.toLowerCase()
    const value = raw[index + 1] ?? ''
    if (name === 'host') edge.hosts.push(value)
    else if (name === 'authorization') edge.authorizations.push(value)
    else if (name === 'origin' || name === 'sec-fetch-site' || name === 'sec-fetch-dest') {
      edge.fromBrowser = true
    }
  }
  return edge
}

export function headerValues(req: IncomingMessage, name: string): string[] {
  const values: string[] = []
  for (let index = 0; index < req.rawHeaders.length; index += 2) {
    if (req.rawHeaders[index]?.toLowerCase() === name) values.push(req.rawHeaders[index + 1] ?? '')
  }
  return values
}
