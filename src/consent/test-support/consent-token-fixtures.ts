/** Keys, clocks, bindings and fast-check arbitraries shared by the consent
 *  token tests, and the small helpers that mint, verify and edit tokens. */
import fc from 'fast-check'
import { expect } from 'vitest'
import {
  ApprovalConsentSubjectSchema,
  ApprovalDecisionSchema,
  ApproverWebhookConsentSubjectSchema,
  RoomPermissionConsentSubjectSchema,
} from '../../contracts/consent.ts'
import type {
  ApprovalConsentSubject,
  ApproverWebhookConsentSubject,
  ConsentBinding,
  RoomPermissionConsentSubject,
} from '../../contracts/consent.ts'
import { PermissionModeSchema } from '../../contracts/policy-axes.ts'
import { ConsentTokenVerifier, mintConsentToken } from '../consent-token.ts'

export const RUNS = { numRuns: 200 }
export const T0 = 1_700_000_000_000
export const KEY = Buffer.from(
  '9c1f4e7a2b8d3c6f0a5e1d9b7c4f2a8e6d3b0c9f1e7a5d2b8c4f6e0a3d9b1c7e',
  'hex',
)
export const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
// Last characters whose unused low bits are zero: a 16-byte nonce leaves 4
// spare bits in its 22nd character, a 32-byte signature 2 in its 43rd.
export const NONCE_LAST_CHARS = [...B64URL].filter((_, index) => index % 16 === 0)
export const SIG_LAST_CHARS = [...B64URL].filter((_, index) => index % 4 === 0)

export const text = fc.string({ minLength: 1, maxLength: 24, unit: 'binary' })
export const digest = fc
  .uint8Array({ minLength: 32, maxLength: 32 })
  .map((bytes) => Buffer.from(bytes).toString('hex'))
export const decision = fc.constantFrom(...ApprovalDecisionSchema.options)
export const mode = fc.constantFrom(...PermissionModeSchema.options)
/** The random part of a nonce (main seals it with the tag and mint second). */
export const nonceBytes = fc.uint8Array({ minLength: 8, maxLength: 8 })
export const keyBytes = fc
  .uint8Array({ minLength: 32, maxLength: 32 })
  .map((bytes) => Buffer.from(bytes))

export const APPROVAL_FIELDS: { [K in keyof ApprovalConsentSubject]: fc.Arbitrary<unknown> } = {
  approvalId: text,
  decision,
  actionDigest: digest,
  instanceId: text,
}
/** The fields every room-permission subject has; ROOM_FLAGS are the ones
 *  it may leave out. */
export const ROOM_FIELDS: {
  [K in Exclude<keyof RoomPermissionConsentSubject, RoomFlag>]: fc.Arbitrary<unknown>
} = {
  roomId: text,
  // 64 code points stay within the schema's 128 UTF-16 units.
  clientRequestId: fc.string({ minLength: 1, maxLength: 64, unit: 'binary' }),
  expectedRevision: fc.maxSafeNat(),
  mode,
  instanceId: text,
}
type RoomFlag = 'acceptsReplacedWorkspace' | 'resealsRoom'
export const ROOM_FLAGS: readonly RoomFlag[] = ['acceptsReplacedWorkspace', 'resealsRoom']
/** Each flag absent or true, as a subject carries them. */
export const roomFlags = fc.record(
  { acceptsReplacedWorkspace: fc.constant(true), resealsRoom: fc.constant(true) },
  { requiredKeys: [] },
)

export const WEBHOOK_FIELDS: { [K in keyof ApproverWebhookConsentSubject]: fc.Arbitrary<unknown> } =
  {
    roomId: text,
    clientRequestId: fc.string({ minLength: 1, maxLength: 64, unit: 'binary' }),
    url: fc.option(
      fc.webUrl().filter((url) => url.length <= 2_048),
      { nil: null },
    ),
    instanceId: text,
  }

export const SAMPLE_APPROVAL: ConsentBinding = {
  kind: 'approval',
  subject: {
    approvalId: 'appr-7',
    decision: 'allow-once',
    actionDigest: 'c4'.repeat(32),
    instanceId: 'inst-1',
  },
}
export const SAMPLE_ROOM: ConsentBinding = {
  kind: 'room-permission',
  subject: {
    roomId: 'room-1',
    clientRequestId: 'req-1',
    expectedRevision: 3,
    mode: 'full-access',
    instanceId: 'inst-1',
  },
}

export const approvalBinding: fc.Arbitrary<ConsentBinding> = fc
  .record(APPROVAL_FIELDS)
  .map((subject) => ({ kind: 'approval', subject: subject as ApprovalConsentSubject }))
export const roomBinding: fc.Arbitrary<ConsentBinding> = fc
  .tuple(fc.record(ROOM_FIELDS), roomFlags)
  .map(([fields, flags]) => ({
    kind: 'room-permission',
    subject: { ...fields, ...flags } as RoomPermissionConsentSubject,
  }))
export const webhookBinding: fc.Arbitrary<ConsentBinding> = fc
  .record(WEBHOOK_FIELDS)
  .map((subject) => ({
    kind: 'approver-webhook',
    subject: subject as ApproverWebhookConsentSubject,
  }))
export const anyBinding = fc.oneof(approvalBinding, roomBinding, webhookBinding)

export function mint(
  binding: ConsentBinding,
  extra: { now?: number; lifetimeMs?: number; nonce?: Uint8Array; key?: Buffer } = {},
) {
  const nonce = extra.nonce
  return mintConsentToken({
    key: extra.key ?? KEY,
    binding,
    now: extra.now ?? T0,
    lifetimeMs: extra.lifetimeMs,
    randomBytes: nonce === undefined ? undefined : () => Buffer.from(nonce),
  })
}

/** The ledger capacity of `verifierAt` unless a test asks for another: a
 *  verifier takes its ledger's memory up front, and most tests need a few
 *  slots, not the default's 65 536. */
export const SMALL_CAPACITY = 1_024

export function verifierAt(now: number, options: { key?: Buffer; maxUsedNonces?: number } = {}) {
  return new ConsentTokenVerifier({
    key: options.key ?? KEY,
    now: () => now,
    maxUsedNonces: options.maxUsedNonces ?? SMALL_CAPACITY,
  })
}

/** A fresh verifier accepting the token proves a refusal elsewhere comes from
 *  the change under test, not from a token that never worked. */
export function expectGenuine(token: string, binding: ConsentBinding, now = T0) {
  expect(verifierAt(now).verify(token, binding)).toBe(true)
}

export function segments(token: string) {
  const [, expiry = '', nonce = '', sig = ''] = token.split('.')
  return { expiry, nonce, sig }
}

export function replaceAt(value: string, index: number, char: string) {
  return value.slice(0, index) + char + value.slice(index + 1)
}

export function withSubjectField(
  binding: ConsentBinding,
  field: string,
  value: unknown,
): ConsentBinding {
  return { ...binding, subject: { ...binding.subject, [field]: value } } as ConsentBinding
}

export function schemaFor(kind: ConsentBinding['kind']) {
  switch (kind) {
    case 'approval':
      return ApprovalConsentSubjectSchema
    case 'room-permission':
      return RoomPermissionConsentSubjectSchema
    case 'approver-webhook':
      return ApproverWebhookConsentSubjectSchema
  }
}
