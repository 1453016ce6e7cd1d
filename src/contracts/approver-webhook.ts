import { z } from 'zod'
import { CanonicalActionSchema } from './approval.ts'
import { ClientRequestIdSchema } from './room.ts'

/**
 * A room's approver webhook: where the runtime sends an action it would
 * otherwise ask the person about, for someone else (a service, a person on
 * another machine) to decide. Configured only through the protected window,
 * since it hands decisions to someone else.
 */

export const MAX_WEBHOOK_URL_CHARS = 2_048

/** How long a webhook has to answer before its silence is a denial (the
 *  protected window says so when the person sets one). */
export const WEBHOOK_TIMEOUT_MS = 10_000

/** The loopback hosts a plain `http:` webhook may name: literal addresses
 *  only. A name (`localhost`) goes through DNS and the hosts file, which
 *  whoever controls them could point anywhere. */
const LOOPBACK_LITERALS: ReadonlySet<string> = new Set(['127.0.0.1', '[::1]'])

/** Why a URL cannot be an approver webhook, or null when it can. */
export function approverWebhookUrlProblem(value: string): string | null {
  if (value.length > MAX_WEBHOOK_URL_CHARS) return `longer than ${MAX_WEBHOOK_URL_CHARS} characters`
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return 'not a URL'
  }
  // Only the form the URL parser would write itself: `http://127.1/`,
  // `HTTPS://Example.com`, a stray space or an encoded host all read as one
  // address here and may be another elsewhere. The person confirms exactly
  // what will be called.
  if (url.href !== value) return `write it as ${url.href}`
  if (url.username !== '' || url.password !== '') return 'must not carry a user name or password'
  if (url.hash !== '') return 'must not have a #fragment'
  if (url.protocol === 'https:') return url.hostname === '' ? 'names no host' : null
  if (url.protocol === 'http:') {
    return LOOPBACK_LITERALS.has(url.hostname)
      ? null
      : 'plain http is only for 127.0.0.1 or [::1]; use https'
  }
  return 'must be https://, or http:// on 127.0.0.1 or [::1]'
}

export const ApproverWebhookUrlSchema = z.string().superRefine((value, context) => {
  const problem = approverWebhookUrlProblem(value)
  if (problem !== null) context.addIssue({ code: 'custom', message: problem })
})

/** `PUT /v1/rooms/:roomId/approver-webhook` (main only, with a consent
 *  token): `url` names the webhook, `null` removes it. */
export const ApproverWebhookChangeRequestSchema = z.strictObject({
  clientRequestId: ClientRequestIdSchema,
  url: ApproverWebhookUrlSchema.nullable(),
})
export type ApproverWebhookChangeRequest = z.infer<typeof ApproverWebhookChangeRequestSchema>

/** A room's webhook as anyone may see it: never its secret. */
export const ApproverWebhookSchema = z.strictObject({
  /** Random, made with the secret; names which secret signs a request. */
  webhookId: z.string().regex(/^[A-Za-z0-9_-]{22}$/),
  url: z.string(),
  createdAt: z.number().int(),
})
export type ApproverWebhook = z.infer<typeof ApproverWebhookSchema>

/** `GET /v1/rooms/:roomId/approver-webhook`. */
export const ApproverWebhookViewSchema = z.strictObject({
  roomId: z.string(),
  webhook: ApproverWebhookSchema.nullable(),
})
export type ApproverWebhookView = z.infer<typeof ApproverWebhookViewSchema>

/** The answer to a change: the webhook now in force, and, only when one was
 *  set, its new secret, which the runtime hands out this once (to main,
 *  which shows it in the protected window and keeps it nowhere). */
export const ApproverWebhookChangeAnswerSchema = z.strictObject({
  roomId: z.string(),
  webhook: ApproverWebhookSchema.nullable(),
  secret: z
    .string()
    .regex(/^[A-Za-z0-9_-]{43}$/)
    .nullable(),
})
export type ApproverWebhookChangeAnswer = z.infer<typeof ApproverWebhookChangeAnswerSchema>

// The wire protocol between the runtime and an approver (docs/approver-webhook.md).

export const WEBHOOK_ID_HEADER = 'x-assent-webhook-id'
export const WEBHOOK_TIMESTAMP_HEADER = 'x-assent-timestamp'
export const WEBHOOK_SIGNATURE_HEADER = 'x-assent-signature'

/** What the runtime POSTs: the canonical action the person would have been
 *  shown, and what binds the answer to this one request. Sent as RFC 8785
 *  canonical JSON, the exact bytes the signature covers. */
export const ApproverWebhookRequestSchema = z.strictObject({
  version: z.literal(1),
  webhookId: z.string(),
  approvalId: z.string(),
  actionDigest: z.string().regex(/^[0-9a-f]{64}$/),
  /** 16 random bytes, base64url: the answer must name it. */
  nonce: z.string().regex(/^[A-Za-z0-9_-]{22}$/),
  expiresAt: z.number().int(),
  action: CanonicalActionSchema,
  escalationReason: z.string().optional(),
})
export type ApproverWebhookRequest = z.infer<typeof ApproverWebhookRequestSchema>

/** The one answer that allows: a JSON object whose only member is
 *  `"approved": true` (whitespace as JSON allows, nothing else: no other
 *  member, no second `approved`). Anything else denies. */
export const APPROVED_BODY_PATTERN = /^\s*\{\s*"approved"\s*:\s*true\s*\}\s*$/

/** The text a request's signature covers (HMAC-SHA256 under the webhook's
 *  secret, lowercase hex, sent as `v1=<hex>`). */
export function webhookRequestSigningText(timestamp: string, body: string): string {
  return ['assent-approver-request/v1', timestamp, body].join('\n')
}

/** The text an answer's signature covers: the approval, its digest and the
 *  request's nonce, so an answer to one request never counts for another
 *  (another approval, or the same one asked again). */
export function webhookResponseSigningText(fields: {
  approvalId: string
  actionDigest: string
  nonce: string
  timestamp: string
  body: string
}): string {
  return [
    'assent-approver-response/v1',
    fields.approvalId,
    fields.actionDigest,
    fields.nonce,
    fields.timestamp,
    fields.body,
  ].join('\n')
}
