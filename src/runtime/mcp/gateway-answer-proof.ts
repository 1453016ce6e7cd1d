import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto'

/**
 * How the MCP gateway knows that the runtime answered, and not another
 * process on its port. The connection file names a port, and after a crash
 * (only a clean close removes the file) any local process, another OS
 * user's included (loopback TCP has no owner check), can bind that port and
 * answer "allowed". So the runtime proves every answer it gives the
 * gateway, and the gateway believes no answer without its proof.
 *
 * Both keys come from the credential in the connection file (mode 0600,
 * this account only), each by HMAC-SHA256 under its own label:
 * - the request key is what the gateway presents as its bearer, so whoever
 *   holds the port learns it and nothing more (HMAC is one-way: it does not
 *   give back the credential, nor the other key);
 * - the response key never leaves either process: the runtime proves each
 *   answer with it, over the gateway's fresh nonce and everything the
 *   gateway acts on (method, path, status, body), so a proof fits one
 *   answer to one request and nothing else.
 *
 * The gateway and the runtime both import this module, so the two sides
 * cannot drift apart.
 */
export interface GatewayLinkKeys {
  /** What the gateway sends as `Authorization: Bearer …`, and the runtime
   *  compares (in constant time) with its own derivation. */
  requestKey: string
  /** Proves the runtime's answers; never sent by either side. */
  responseKey: Buffer
}

const REQUEST_KEY_LABEL = 'assent-gateway/request-key/v1'
const RESPONSE_KEY_LABEL = 'assent-gateway/response-key/v1'
const PROOF_LABEL = 'assent-gateway/answer/v1'
const NONCE_BYTES = 32
/** 32 bytes in unpadded base64url: a nonce, or an HMAC-SHA256 proof. */
const BASE64URL_OF_32_BYTES = /^[A-Za-z0-9_-]{43}$/

export function gatewayLinkKeys(credential: string): GatewayLinkKeys {
  const derive = (label: string) => createHmac('sha256', credential).update(label).digest()
  return {
    requestKey: derive(REQUEST_KEY_LABEL).toString('base64url'),
    responseKey: derive(RESPONSE_KEY_LABEL),
  }
}

/** A fresh nonce for one request: 32 random bytes, base64url. */
export function newGatewayNonce(random: (size: number) => Buffer = randomBytes): string {
  return random(NONCE_BYTES).toString('base64url')
}

/** Whether `value` has a nonce's shape; the runtime proves no answer over
 *  anything else. */
export function isGatewayNonce(value: string): boolean {
  return BASE64URL_OF_32_BYTES.test(value)
}

/** One answer to one gateway request, as both sides see it: `path` is the
 *  request target exactly as sent, `body` the answer's text. */
export interface GatewayAnswer {
  nonce: string
  method: string
  path: string
  status: number
  body: string
}

/** The proof of `answer`: HMAC-SHA256 under the response key, base64url. */
export function answerProof(responseKey: Buffer, answer: GatewayAnswer): string {
  const bodyDigest = createHash('sha256').update(answer.body, 'utf8').digest('hex')
  // Newline-separated: no field can hold one (a nonce and a digest are
  // base64url and hex, a method and a path cannot in HTTP/1.1), so no two
  // answers read as the same text.
  const text = [PROOF_LABEL, answer.nonce, answer.method, answer.path, answer.status, bodyDigest]
  return createHmac('sha256', responseKey).update(text.join('\n')).digest('base64url')
}

/** Whether `proof` proves `answer`, compared in constant time. Anything not
 *  exactly one well-formed proof (absent, repeated, padded) proves nothing. */
export function isProvenAnswer(
  responseKey: Buffer,
  answer: GatewayAnswer,
  proof: string | undefined,
): boolean {
  if (proof === undefined || !BASE64URL_OF_32_BYTES.test(proof)) return false
  const expected = Buffer.from(answerProof(responseKey, answer), 'base64url')
  return timingSafeEqual(Buffer.from(proof, 'base64url'), expected)
}
