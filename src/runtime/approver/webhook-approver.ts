import { createHmac, timingSafeEqual } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import {
  APPROVED_BODY_PATTERN,
  WEBHOOK_TIMEOUT_MS,
  WEBHOOK_ID_HEADER,
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_TIMESTAMP_HEADER,
  approverWebhookUrlProblem,
  webhookRequestSigningText,
  webhookResponseSigningText,
  type ApproverWebhookRequest,
} from '../../contracts/approver-webhook.ts'
import { canonicalJson } from '../../contracts/canonical-json.ts'
import type { StoredApproverWebhook } from '../ports/approver-webhook-store.ts'
import type {
  DelegatedApproval,
  DelegatedApprover,
  DelegatedVerdict,
} from '../ports/delegated-approver.ts'

/** How far an answer's timestamp may be from the runtime's clock. */
export const WEBHOOK_TIMESTAMP_WINDOW_MS = 60_000
/** The longest answer read: `{"approved": true}` is 18 bytes. */
export const WEBHOOK_MAX_ANSWER_BYTES = 1_024

export interface WebhookApproverOptions {
  timeoutMs?: number
  now: () => number
  randomBytes: (size: number) => Buffer
}

const SIGNATURE_PATTERN = /^v1=([0-9a-f]{64})$/
const TIMESTAMP_PATTERN = /^[1-9][0-9]{0,15}$/

/**
 * One room's approver webhook, asked about one approval at a time. It POSTs
 * the canonical action as canonical JSON, signed with the webhook's secret,
 * and allows once only for a 2xx answer whose body is exactly
 * `{"approved": true}` and whose signature, under the same secret, covers
 * this approval's id, its digest and this request's nonce, with a timestamp
 * inside the window. Everything else denies: another status (a redirect is
 * never followed), a slow, long, unsigned or malformed answer, an answer
 * signed for another request, a network error.
 */
export class WebhookApprover implements DelegatedApprover {
  private readonly webhook: StoredApproverWebhook
  private readonly options: WebhookApproverOptions

  constructor(webhook: StoredApproverWebhook, options: WebhookApproverOptions) {
    this.webhook = webhook
    this.options = options
  }

  get id(): string {
    return this.webhook.webhookId
  }

  async decide(request: DelegatedApproval): Promise<DelegatedVerdict> {
    try {
      return await this.ask(request)
    } catch (error) {
      return deny(`the approver webhook failed: ${(error as Error).message}`)
    }
  }

  private async ask(request: DelegatedApproval): Promise<DelegatedVerdict> {
    const { webhook, options } = this
    // Checked again at every use: a row that passed its MAC was written by
    // this runtime, but a rule tightened since must still hold.
    const problem = approverWebhookUrlProblem(webhook.url)
    if (problem !== null) return deny(`the approver webhook URL is refused: ${problem}`)
    const nonce = options.randomBytes(16).toString('base64url')
    const payload: ApproverWebhookRequest = {
      version: 1,
      webhookId: webhook.webhookId,
      approvalId: request.approval.id,
      actionDigest: request.actionDigest,
      nonce,
      expiresAt: request.approval.expiresAt,
      action: request.action,
      ...(request.approval.escalationReason === undefined
        ? {}
        : { escalationReason: request.approval.escalationReason }),
    }
    const body = canonicalJson(payload)
    const timestamp = String(options.now())
    const answer = await post(
      webhook.url,
      {
        'content-type': 'application/json',
        [WEBHOOK_ID_HEADER]: webhook.webhookId,
        [WEBHOOK_TIMESTAMP_HEADER]: timestamp,
        [WEBHOOK_SIGNATURE_HEADER]: `v1=${hmacHex(webhook.secret, webhookRequestSigningText(timestamp, body))}`,
      },
      body,
      options.timeoutMs ?? WEBHOOK_TIMEOUT_MS,
    )
    if ('failure' in answer) return deny(answer.failure)
    return this.judge(answer, request, nonce)
  }

  private judge(answer: Answer, request: DelegatedApproval, nonce: string): DelegatedVerdict {
    if (answer.status >= 300 && answer.status < 400) {
      return deny(`the approver webhook answered ${answer.status}: redirects are not followed`)
    }
    if (answer.status < 200 || answer.status >= 300) {
      return deny(`the approver webhook answered ${answer.status}`)
    }
    const timestamp = single(answer.headers[WEBHOOK_TIMESTAMP_HEADER])
    const signature = SIGNATURE_PATTERN.exec(single(answer.headers[WEBHOOK_SIGNATURE_HEADER]) ?? '')
    if (timestamp === undefined || !TIMESTAMP_PATTERN.test(timestamp) || !signature) {
      return deny('the approver webhook answer is not signed')
    }
    if (Math.abs(this.options.now() - Number(timestamp)) > WEBHOOK_TIMESTAMP_WINDOW_MS) {
      return deny('the approver webhook answer is outside the time window')
    }
    const expected = hmacHex(
      this.webhook.secret,
      webhookResponseSigningText({
        approvalId: request.approval.id,
        actionDigest: request.actionDigest,
        nonce,
        timestamp,
        body: answer.body,
      }),
    )
    // An answer signed for another approval, another digest or an earlier
    // request (another nonce) fails here: it is a replay, not an answer.
    if (!timingSafeEqual(Buffer.from(expected, 'hex'), Buffer.from(signature[1] ?? '', 'hex'))) {
      return deny('the approver webhook answer is not signed for this approval')
    }
    if (!APPROVED_BODY_PATTERN.test(answer.body)) {
      return deny('the approver webhook did not approve')
    }
    return { decision: 'allow-once', reason: 'the approver webhook approved it' }
  }
}

interface Answer {
  status: number
  headers: IncomingMessage['headers']
  body: string
}

/** POSTs once; never follows a redirect (node:http does not), reads at most
 *  WEBHOOK_MAX_ANSWER_BYTES, and gives up after `timeoutMs` in all. */
function post(
  url: string,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
): Promise<Answer | { failure: string }> {
  return new Promise((resolve) => {
    let settled = false
    const settle = (value: Answer | { failure: string }) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resolve(value)
    }
    // Node's own modules, not imported: see runtime-server.ts on node:http.
    const send =
      new URL(url).protocol === 'https:'
        ? process.getBuiltinModule('node:https').request
        : process.getBuiltinModule('node:http').request
    const request = send(url, {
      method: 'POST',
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      // No pooled socket: each decision is its own connection.
      agent: false,
    })
    const timer = setTimeout(() => {
      settle({ failure: `the approver webhook did not answer within ${timeoutMs} ms` })
      request.destroy()
    }, timeoutMs)
    request.on('error', (error) =>
      settle({ failure: `the approver webhook could not be reached: ${error.message}` }),
    )
    request.on('response', (response) => {
      const chunks: Buffer[] = []
      let size = 0
      response.on('data', (chunk: Buffer) => {
        size += chunk.length
        if (size > WEBHOOK_MAX_ANSWER_BYTES) {
          settle({ failure: 'the approver webhook answer is too long' })
          request.destroy()
          return
        }
        chunks.push(chunk)
      })
      response.on('error', (error) =>
        settle({ failure: `the approver webhook answer broke off: ${error.message}` }),
      )
      response.on('end', () =>
        settle({
          status: response.statusCode ?? 0,
          headers: response.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        }),
      )
    })
    request.end(body)
  })
}

function hmacHex(secret: string, text: string): string {
  return createHmac('sha256', secret).update(text, 'utf8').digest('hex')
}

function single(value: string | string[] | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined
}

function deny(reason: string): DelegatedVerdict {
  return { decision: 'deny', reason }
}
