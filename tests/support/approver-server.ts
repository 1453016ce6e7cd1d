import { createHmac } from 'node:crypto'
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import {
  ApproverWebhookRequestSchema,
  WEBHOOK_ID_HEADER,
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_TIMESTAMP_HEADER,
  webhookRequestSigningText,
  webhookResponseSigningText,
  type ApproverWebhookRequest,
} from '../../src/contracts/approver-webhook.ts'

/** One request as the approver received it. */
export interface ReceivedRequest {
  headers: IncomingHttpHeaders
  rawBody: string
  body: ApproverWebhookRequest
}

/** What the approver answers: a status, headers and a body, as given. */
export interface Reply {
  status: number
  headers?: Record<string, string>
  body?: string
  /** Waits this long before answering (a slow approver). */
  delayMs?: number
}

export type Behaviour = (request: ReceivedRequest) => Reply

/**
 * A real approver on 127.0.0.1, for tests: it records what the runtime sent
 * and answers with what the test's `behaviour` returns. `url` is its POST
 * address as the runtime must be configured with it.
 */
export class ApproverServer {
  readonly requests: ReceivedRequest[] = []
  behaviour: Behaviour = () => ({ status: 500 })
  private readonly server: Server
  private readonly open = new Set<Socket>()

  private constructor(server: Server) {
    this.server = server
    server.on('connection', (socket) => {
      this.open.add(socket)
      socket.on('close', () => this.open.delete(socket))
    })
  }

  static async start(): Promise<ApproverServer> {
    const server = createServer()
    const approver = new ApproverServer(server)
    server.on('request', (request, response) => {
      const chunks: Buffer[] = []
      request.on('data', (chunk: Buffer) => chunks.push(chunk))
      request.on('end', () => {
        const rawBody = Buffer.concat(chunks).toString('utf8')
        const received: ReceivedRequest = {
          headers: request.headers,
          rawBody,
          body: ApproverWebhookRequestSchema.parse(JSON.parse(rawBody)),
        }
        approver.requests.push(received)
        const reply = approver.behaviour(received)
        const send = () => {
          if (response.destroyed) return
          response.writeHead(reply.status, reply.headers ?? {})
          response.end(reply.body ?? '')
        }
        if (reply.delayMs === undefined) send()
        else setTimeout(send, reply.delayMs)
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    return approver
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/decide`
  }

  async close(): Promise<void> {
    for (const socket of this.open) socket.destroy()
    await new Promise<void>((resolve) => this.server.close(() => resolve()))
  }
}

export function hmacHex(secret: string, text: string): string {
  return createHmac('sha256', secret).update(text, 'utf8').digest('hex')
}

/** Whether the runtime signed `request` with `secret` as the protocol says. */
export function requestSignedWith(request: ReceivedRequest, secret: string): boolean {
  const timestamp = String(request.headers[WEBHOOK_TIMESTAMP_HEADER])
  const expected = `v1=${hmacHex(secret, webhookRequestSigningText(timestamp, request.rawBody))}`
  return request.headers[WEBHOOK_SIGNATURE_HEADER] === expected
}

export function webhookIdOf(request: ReceivedRequest): string {
  return String(request.headers[WEBHOOK_ID_HEADER])
}

/** A signed answer, as a conforming approver sends it; `bound` overrides
 *  what the signature is bound to (to forge one for another request). */
export function signedReply(
  secret: string,
  request: ReceivedRequest,
  body: string,
  bound: Partial<{
    approvalId: string
    actionDigest: string
    nonce: string
    timestamp: string
  }> = {},
): Reply {
  const timestamp = bound.timestamp ?? String(Date.now())
  const signature = hmacHex(
    secret,
    webhookResponseSigningText({
      approvalId: bound.approvalId ?? request.body.approvalId,
      actionDigest: bound.actionDigest ?? request.body.actionDigest,
      nonce: bound.nonce ?? request.body.nonce,
      timestamp,
      body,
    }),
  )
  return {
    status: 200,
    headers: {
      'content-type': 'application/json',
      [WEBHOOK_TIMESTAMP_HEADER]: timestamp,
      [WEBHOOK_SIGNATURE_HEADER]: `v1=${signature}`,
    },
    body,
  }
}
