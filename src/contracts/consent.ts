import { z } from 'zod'
import { PermissionModeSchema } from './policy-axes.ts'

/** An action digest: SHA-256 in lowercase hex, one spelling per digest. */
export const ACTION_DIGEST_PATTERN = /^[0-9a-f]{64}$/
/** Longest client request id a room-permission subject takes, in UTF-16 units. */
export const CLIENT_REQUEST_ID_MAX_LENGTH = 128
/** Longest approver webhook URL a subject takes, in UTF-16 units. */
export const WEBHOOK_URL_MAX_LENGTH = 2_048

/** `allow-always` remembers the one MCP tool definition (or command, path,
 *  tool) the person saw; `allow-always-server` remembers every tool of an
 *  MCP server as its whole tool list was shown. They are two decisions,
 *  not one with an option, so a token minted for one can never be spent
 *  as the other (the decision is part of the token's subject). */
export const ApprovalDecisionSchema = z.enum([
  'allow-once',
  'allow-always',
  'allow-always-server',
  'deny',
])
export type ApprovalDecision = z.infer<typeof ApprovalDecisionSchema>

/** Whether a decision is one that writes an "always allow" grant (for one
 *  tool, or for every tool of a server): every rule about grants (the
 *  rollback anchor's wait, who may give one) asks this, so a kind of
 *  "always" added later cannot slip past one of them. */
export function writesGrant(decision: ApprovalDecision | undefined): boolean {
  return decision === 'allow-always' || decision === 'allow-always-server'
}

/** The digest of the canonical action a person was shown. */
export const ActionDigestSchema = z.string().regex(ACTION_DIGEST_PATTERN)

/** What an approval consent token is bound to. Travels in the request, never
 *  in the token: the runtime rebuilds it from what it is asked to do. */
export const ApprovalConsentSubjectSchema = z.strictObject({
  approvalId: z.string().min(1),
  decision: ApprovalDecisionSchema,
  actionDigest: ActionDigestSchema,
  instanceId: z.string().min(1),
})
export type ApprovalConsentSubject = z.infer<typeof ApprovalConsentSubjectSchema>

export const RoomPermissionConsentSubjectSchema = z.strictObject({
  roomId: z.string().min(1),
  clientRequestId: z.string().min(1).max(CLIENT_REQUEST_ID_MAX_LENGTH),
  expectedRevision: z.number().int().min(0),
  mode: PermissionModeSchema,
  /** What the window said confirming also does (PermissionChangeRequest):
   *  bound, so a confirm is never spent on a room other than the one shown. */
  acceptsReplacedWorkspace: z.literal(true).optional(),
  resealsRoom: z.literal(true).optional(),
  instanceId: z.string().min(1),
})
export type RoomPermissionConsentSubject = z.infer<typeof RoomPermissionConsentSubjectSchema>

/** What a token for setting or removing a room's approver webhook is bound
 *  to: the room, the exact URL the protected window showed (null for a
 *  removal) and the request's idempotency key. */
export const ApproverWebhookConsentSubjectSchema = z.strictObject({
  roomId: z.string().min(1),
  clientRequestId: z.string().min(1).max(CLIENT_REQUEST_ID_MAX_LENGTH),
  url: z.string().min(1).max(WEBHOOK_URL_MAX_LENGTH).nullable(),
  instanceId: z.string().min(1),
})
export type ApproverWebhookConsentSubject = z.infer<typeof ApproverWebhookConsentSubjectSchema>

/** Kinds are domain-separated inside the signature, so a token minted for one
 *  kind can never verify as another even if the subjects looked alike. */
export type ConsentBinding =
  | { kind: 'approval'; subject: ApprovalConsentSubject }
  | { kind: 'room-permission'; subject: RoomPermissionConsentSubject }
  | { kind: 'approver-webhook'; subject: ApproverWebhookConsentSubject }

export type ConsentKind = ConsentBinding['kind']
