import { z } from 'zod'

// The three policy axes, kept apart from product words (docs/architecture.md §4).
export const ApprovalPolicySchema = z.enum([
  'always',
  'on-request',
  'untrusted',
  'never',
  'auto',
  'suggest',
])
export type ApprovalPolicy = z.infer<typeof ApprovalPolicySchema>

export const SandboxModeSchema = z.enum([
  'read-only',
  'workspace-write',
  'danger-full-access',
  'external-sandbox',
])
export type SandboxMode = z.infer<typeof SandboxModeSchema>

export const ApprovalReviewerSchema = z.enum(['user', 'agent'])
export type ApprovalReviewer = z.infer<typeof ApprovalReviewerSchema>

export const RoomPolicySchema = z.strictObject({
  approvalPolicy: ApprovalPolicySchema,
  sandboxMode: SandboxModeSchema,
  approvalReviewer: ApprovalReviewerSchema,
})
export type RoomPolicy = z.infer<typeof RoomPolicySchema>

/** The product's modes, narrowest first: `plan` offers only what runs
 *  without consent, and each mode after it lets the agent do more. */
export const PermissionModeSchema = z.enum([
  'plan',
  'ask-for-approval',
  'approve-for-me',
  'full-access',
])
export type PermissionMode = z.infer<typeof PermissionModeSchema>

/** What a tool declares it does; policy decides per effect. */
export const ToolEffectSchema = z.enum(['read', 'write', 'execute', 'network'])
export type ToolEffect = z.infer<typeof ToolEffectSchema>
