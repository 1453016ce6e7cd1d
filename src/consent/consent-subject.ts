import {
  ApprovalDecisionSchema,
  CLIENT_REQUEST_ID_MAX_LENGTH,
  WEBHOOK_URL_MAX_LENGTH,
} from '../contracts/consent.ts'
import { PermissionModeSchema } from '../contracts/policy-axes.ts'

// What a consent token's signature covers besides its expiry and nonce: the
// binding's kind and its subject in RFC 8785 (JCS) form. Both sides (mint and
// verify) build it on every token, so it is built by hand instead of through
// zod and a generic canonicaliser: the checks below are exactly those of
// ApprovalConsentSubjectSchema, RoomPermissionConsentSubjectSchema and
// ApproverWebhookConsentSubjectSchema
// (src/contracts/consent.ts, ACTION_DIGEST_PATTERN written as a loop), and
// the fixed-order templates are exactly JCS
// for the objects those schemas accept (keys in UTF-16 order, strings as
// JSON.stringify writes them, integers in their shortest decimal form).
// consent-subject.test.ts holds both claims against zod and the canonicaliser
// over arbitrary input.

export const DOMAIN_TAG = 'assent-consent-token/v1'

/** Why a binding cannot be signed or verified; never a partial result. */
export interface BindingRefusal {
  reason: string
}

const DECISIONS: ReadonlySet<unknown> = new Set(ApprovalDecisionSchema.options)
const MODES: ReadonlySet<unknown> = new Set(PermissionModeSchema.options)
const APPROVAL_FIELDS: ReadonlySet<string> = new Set([
  'approvalId',
  'decision',
  'actionDigest',
  'instanceId',
])
const ROOM_FIELDS: ReadonlySet<string> = new Set([
  'roomId',
  'clientRequestId',
  'expectedRevision',
  'mode',
  'acceptsReplacedWorkspace',
  'resealsRoom',
  'instanceId',
])
const WEBHOOK_FIELDS: ReadonlySet<string> = new Set([
  'roomId',
  'clientRequestId',
  'url',
  'instanceId',
])

/**
 * `DOMAIN_TAG`, the kind and the canonical subject, each followed by a
 * newline: the part of the signed string that depends on the binding. Reads
 * `kind`, `subject` and each subject field once, so a getter cannot show the
 * check one value and the signature another.
 */
export function signingPrefix(binding: unknown): string | BindingRefusal {
  if (typeof binding !== 'object' || binding === null) {
    return { reason: 'binding must be an object' }
  }
  const { kind, subject } = binding as { kind?: unknown; subject?: unknown }
  if (kind === 'approval') return approvalPrefix(subject)
  if (kind === 'room-permission') return roomPermissionPrefix(subject)
  if (kind === 'approver-webhook') return approverWebhookPrefix(subject)
  return { reason: 'binding.kind must be "approval", "room-permission" or "approver-webhook"' }
}

function approvalPrefix(subject: unknown): string | BindingRefusal {
  const unknown = unknownField(subject, APPROVAL_FIELDS)
  if (unknown !== undefined) return refusal('approval', unknown)
  const { approvalId, decision, actionDigest, instanceId } = subject as Record<string, unknown>
  if (!isNonEmptyString(approvalId))
    return refusal('approval', 'approvalId must be a non-empty, well-formed string')
  if (!DECISIONS.has(decision)) return refusal('approval', 'decision is not a decision')
  if (!isActionDigest(actionDigest)) {
    return refusal('approval', 'actionDigest must be 64 lowercase hex digits')
  }
  if (!isNonEmptyString(instanceId))
    return refusal('approval', 'instanceId must be a non-empty, well-formed string')
  // The decision and the digest are from fixed alphabets that JSON never
  // escapes; the ids may hold anything and are written as JSON strings.
  return (
    `${DOMAIN_TAG}\napproval\n` +
    `{"actionDigest":"${actionDigest}","approvalId":${jsonString(approvalId)},` +
    `"decision":"${decision as string}","instanceId":${jsonString(instanceId)}}\n`
  )
}

function roomPermissionPrefix(subject: unknown): string | BindingRefusal {
  const unknown = unknownField(subject, ROOM_FIELDS)
  if (unknown !== undefined) return refusal('room-permission', unknown)
  const { roomId, clientRequestId, expectedRevision, mode, instanceId } = subject as Record<
    string,
    unknown
  >
  const accepts = optionalTrue(subject as object, 'acceptsReplacedWorkspace')
  const reseals = optionalTrue(subject as object, 'resealsRoom')
  if (!isNonEmptyString(roomId))
    return refusal('room-permission', 'roomId must be a non-empty, well-formed string')
  if (!isNonEmptyString(clientRequestId) || clientRequestId.length > CLIENT_REQUEST_ID_MAX_LENGTH) {
    return refusal(
      'room-permission',
      `clientRequestId must be a well-formed string of 1..${CLIENT_REQUEST_ID_MAX_LENGTH} UTF-16 units`,
    )
  }
  // -0 passes (as it does the schema) and is written "0", as JCS writes it.
  if (
    typeof expectedRevision !== 'number' ||
    !Number.isSafeInteger(expectedRevision) ||
    expectedRevision < 0
  ) {
    return refusal('room-permission', 'expectedRevision must be a non-negative safe integer')
  }
  if (!MODES.has(mode)) return refusal('room-permission', 'mode is not a permission mode')
  if (accepts === null) return refusal('room-permission', 'acceptsReplacedWorkspace must be true')
  if (reseals === null) return refusal('room-permission', 'resealsRoom must be true')
  if (!isNonEmptyString(instanceId)) {
    return refusal('room-permission', 'instanceId must be a non-empty, well-formed string')
  }
  // The two flags are absent or true: written only when present, each in
  // its key's place, so a token with one never verifies without it.
  return (
    `${DOMAIN_TAG}\nroom-permission\n` +
    `{${accepts ? '"acceptsReplacedWorkspace":true,' : ''}` +
    `"clientRequestId":${jsonString(clientRequestId)},"expectedRevision":${expectedRevision},` +
    `"instanceId":${jsonString(instanceId)},"mode":"${mode as string}",` +
    `${reseals ? '"resealsRoom":true,' : ''}"roomId":${jsonString(roomId)}}\n`
  )
}

function approverWebhookPrefix(subject: unknown): string | BindingRefusal {
  const unknown = unknownField(subject, WEBHOOK_FIELDS)
  if (unknown !== undefined) return refusal('approver-webhook', unknown)
  const { roomId, clientRequestId, url, instanceId } = subject as Record<string, unknown>
  if (!isNonEmptyString(roomId))
    return refusal('approver-webhook', 'roomId must be a non-empty, well-formed string')
  if (!isNonEmptyString(clientRequestId) || clientRequestId.length > CLIENT_REQUEST_ID_MAX_LENGTH) {
    return refusal(
      'approver-webhook',
      `clientRequestId must be a well-formed string of 1..${CLIENT_REQUEST_ID_MAX_LENGTH} UTF-16 units`,
    )
  }
  // null is a removal; a URL is bound exactly as the window showed it.
  if (url !== null && (!isNonEmptyString(url) || url.length > WEBHOOK_URL_MAX_LENGTH)) {
    return refusal(
      'approver-webhook',
      `url must be null or a well-formed string of 1..${WEBHOOK_URL_MAX_LENGTH} UTF-16 units`,
    )
  }
  if (!isNonEmptyString(instanceId)) {
    return refusal('approver-webhook', 'instanceId must be a non-empty, well-formed string')
  }
  return (
    `${DOMAIN_TAG}\napprover-webhook\n` +
    `{"clientRequestId":${jsonString(clientRequestId)},"instanceId":${jsonString(instanceId)},` +
    `"roomId":${jsonString(roomId)},"url":${url === null ? 'null' : jsonString(url)}}\n`
  )
}

/** An optional field that may only be `true`: false when absent (not even
 *  inherited, as the strict schemas count keys), true when true, null for
 *  anything else (undefined included, which JCS cannot write). Reads the
 *  value once. */
function optionalTrue(subject: object, name: string): boolean | null {
  if (!(name in subject)) return false
  return (subject as Record<string, unknown>)[name] === true ? true : null
}

/** Why `subject` is not an object with only `fields` (own or inherited
 *  enumerable keys, as the strict schemas count them), or undefined. */
function unknownField(subject: unknown, fields: ReadonlySet<string>): string | undefined {
  if (typeof subject !== 'object' || subject === null || Array.isArray(subject)) {
    return 'the subject must be an object'
  }
  for (const key in subject) {
    if (!fields.has(key)) return `unknown field ${JSON.stringify(key)}`
  }
  return undefined
}

/** ACTION_DIGEST_PATTERN, as a loop: the regular expression costs more than
 *  the rest of the subject together. */
function isActionDigest(value: unknown): value is string {
  if (typeof value !== 'string' || value.length !== 64) return false
  for (let index = 0; index < 64; index += 1) {
    const code = value.charCodeAt(index)
    // 0-9 or a-f
    if (!((code >= 0x30 && code <= 0x39) || (code >= 0x61 && code <= 0x66))) return false
  }
  return true
}

/** `value` as JCS (and JSON.stringify) writes a well-formed string. Printable
 *  ASCII other than `"` and `\` stands for itself, so such a string (every
 *  id the app makes) is quoted as it is; anything else goes through
 *  JSON.stringify. */
function jsonString(value: string): string {
  for (let index = 0; index < value.length; index += 1) {
    const code = value.charCodeAt(index)
    if (code < 0x20 || code > 0x7e || code === 0x22 || code === 0x5c) return JSON.stringify(value)
  }
  return `"${value}"`
}

/** RFC 8785 takes only well-formed Unicode: a lone surrogate has no
 *  canonical form, so a subject holding one cannot be bound (the generic
 *  canonicaliser throws on it too). */
function isNonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.isWellFormed()
}

function refusal(kind: string, problem: string): BindingRefusal {
  return { reason: `binding.subject is not a valid ${kind} subject: ${problem}` }
}
