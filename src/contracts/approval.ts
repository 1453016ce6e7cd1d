import { z } from 'zod'
import { CommandContainmentSchema } from './command-containment.ts'
import { ApprovalDecisionSchema } from './consent.ts'
import { FileChangeSchema } from './file-change.ts'
import { FileTargetSchema } from './file-target.ts'
import { SandboxModeSchema } from './policy-axes.ts'
import { RuntimeMessageSchema } from './runtime-message.ts'

/** How long an approval waits for the person before it expires, unless the
 *  runtime was started with another lifetime. Part of the contract: the
 *  workbench, the smoke and the docs all state it. */
export const DEFAULT_APPROVAL_TTL_MS = 120_000

export const ApprovalStatusSchema = z.enum(['pending', 'allowed', 'denied', 'expired'])
export type ApprovalStatus = z.infer<typeof ApprovalStatusSchema>

/** The reason on every approval a runtime expires at start because the
 *  instance that asked for it is gone: nobody waits on it any more. The
 *  workbench recognises such an expiry by this exact value. */
export const RESTART_EXPIRY_REASON = 'the runtime restarted; the agent is no longer waiting'

/** Who decided: the person (`user`), the approve-for-me reviewer, policy, the
 *  clock, or the room's approver webhook standing in for the person. */
export const DecidedBySchema = z.enum(['user', 'agent-review', 'policy', 'timeout', 'webhook'])
export type DecidedBy = z.infer<typeof DecidedBySchema>

/** Who decided an approval, as the model, the person and the timeline are
 *  told at every door: only the person's own decision (`user`) is worded
 *  as theirs. The clock never decides (it expires), and a decided approval
 *  always records who did, so a denial that names neither is worded as
 *  nobody's rather than the person's. */
export type Decider =
  'person' | 'automatic-review' | 'approver-webhook' | 'room-policy' | 'unrecorded'

export function deciderOf(decidedBy: DecidedBy | undefined): Decider {
  switch (decidedBy) {
    case 'user':
      return 'person'
    case 'agent-review':
      return 'automatic-review'
    case 'webhook':
      return 'approver-webhook'
    case 'policy':
      return 'room-policy'
    case 'timeout':
    case undefined:
      return 'unrecorded'
  }
}

const DENIED_BY_EN = {
  person: 'Denied by the person',
  'automatic-review': 'Denied by the automatic review',
  'approver-webhook': 'Denied by the approver webhook',
  'room-policy': 'Denied by the room’s policy',
  unrecorded: 'Denied',
} as const satisfies Record<Decider, string>

/** "Denied by …" in English, for the model and logs. */
export function deniedByEnglish(decidedBy: DecidedBy | undefined): string {
  return DENIED_BY_EN[deciderOf(decidedBy)]
}

/** What the card and the protected window title the request as. */
export const ApprovalKindSchema = z.enum([
  'run-command',
  'apply-changes',
  'mcp-tool-call',
  'read',
  'permission-request',
])
export type ApprovalKind = z.infer<typeof ApprovalKindSchema>

/**
 * Exactly what a permission request widens, with its targets resolved as
 * the runtime will enforce them: write access to one more real directory,
 * or network access for one command line run in one directory.
 */
export const PermissionWideningSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('write-directory'), path: z.string().min(1).max(4_096) }),
  z.strictObject({
    type: z.literal('network'),
    argv: z.array(z.string().max(131_072)).min(1).max(1_024),
    directory: z.string().min(1).max(4_096),
  }),
])
export type PermissionWidening = z.infer<typeof PermissionWideningSchema>

/** An agent's request for a permission its room does not give: what
 *  widens, for how long (this turn only: never the room's stored mode),
 *  and why the agent says it needs it (its words, shown as text). Part of
 *  the canonical action, so the consent token covers all of it. */
export const PermissionRequestSchema = z.strictObject({
  widen: PermissionWideningSchema,
  duration: z.literal('turn'),
  reason: z.string().max(2_000),
})
export type PermissionRequest = z.infer<typeof PermissionRequestSchema>
/** Most tools one server's list may name in an approval: far above any
 *  real `allowed_tools`, low enough to show whole. */
export const MAX_SERVER_TOOLS = 256
/** The longest tool description and preview (UTF-16 units) an MCP call's
 *  approval may show: a person reads them whole, and a call whose server
 *  sends longer is refused, at every door (gated-mcp-call.ts). */
export const MAX_MCP_DESCRIPTION_CHARS = 8_192
export const MAX_MCP_PREVIEW_CHARS = 32_768
/** The longest an MCP call's arguments may be as the approval shows them
 *  (`argumentsText`, UTF-16 units), under the same rule: a resource read's
 *  URI and a server's sampling request are arguments too. */
export const MAX_MCP_ARGUMENTS_CHARS = 32_768

/** An action's arguments as the protected window shows them. */
export function argumentsText(args: unknown): string {
  return JSON.stringify(args, null, 2)
}

/** A server's whole tool list as the person is shown it with the offer to
 *  allow every tool of the server: the names, and the hash of every
 *  definition (`toolListHash`), which a server-wide grant is bound to. */
export const McpServerToolsSchema = z.strictObject({
  names: z.array(z.string().min(1).max(128)).min(1).max(MAX_SERVER_TOOLS),
  hash: z.string().regex(/^[0-9a-f]{64}$/),
})
export type McpServerTools = z.infer<typeof McpServerToolsSchema>

/** What an MCP tool call adds to its approval: which server and tool
 *  definition the person is allowing, and the preview they saw. */
export const McpActionSchema = z.strictObject({
  serverId: z.string(),
  serverName: z.string(),
  toolDescription: z.string(),
  inputSchemaHash: z.string().regex(/^[0-9a-f]{64}$/),
  definitionHash: z.string().regex(/^[0-9a-f]{64}$/),
  /** The text of the tool's side-effect-free preview, or null if it has none. */
  preview: z.string().nullable(),
  /** The server's whole tool list; absent on approvals stored before it was
   *  recorded, which can then not be allowed server-wide. */
  serverTools: McpServerToolsSchema.optional(),
  /** The folder the server works in, for one Assent started as a process:
   *  its relative arguments mean places there. Absent for a server whose
   *  folder Assent cannot know (over HTTP) and for the built-in one, which
   *  works in the workspace. */
  serverFolder: z.string().optional(),
})
export type McpAction = z.infer<typeof McpActionSchema>

/** Everything the person is shown, and nothing else: its digest is what a
 *  consent token is bound to. */
export const CanonicalActionSchema = z.strictObject({
  kind: ApprovalKindSchema,
  roomId: z.string(),
  toolName: z.string(),
  arguments: z.record(z.string(), z.unknown()),
  workingDirectory: z.string(),
  sandboxMode: SandboxModeSchema,
  summary: z.string(),
  mcp: McpActionSchema.optional(),
  /** The file a write or delete acts on, as observed when the approval was
   *  opened: the runtime refuses the call if it is another file by then. */
  target: FileTargetSchema.optional(),
  /** What a write changes, against the content `target` was hashed over. */
  fileChange: FileChangeSchema.optional(),
  permission: PermissionRequestSchema.optional(),
  /** For a command the runtime runs: what the OS lets it do. */
  containment: CommandContainmentSchema.optional(),
})
export type CanonicalAction = z.infer<typeof CanonicalActionSchema>

export const ApprovalRecordSchema = z.strictObject({
  id: z.string(),
  roomId: z.string(),
  turnId: z.string(),
  toolCallId: z.string(),
  kind: ApprovalKindSchema,
  toolName: z.string(),
  arguments: z.record(z.string(), z.unknown()),
  workingDirectory: z.string(),
  sandboxMode: SandboxModeSchema,
  summary: z.string(),
  /** The summary as a code with parameters, for the person's language. Not
   *  part of the canonical action: `summary` is what the digest binds. */
  summaryMessage: RuntimeMessageSchema.optional(),
  mcp: McpActionSchema.optional(),
  target: FileTargetSchema.optional(),
  fileChange: FileChangeSchema.optional(),
  /** For a `permission-request`: what widens and for how long. */
  permission: PermissionRequestSchema.optional(),
  /** For a command the runtime runs: what the OS lets it do (part of the
   *  canonical action). */
  containment: CommandContainmentSchema.optional(),
  status: ApprovalStatusSchema,
  decision: ApprovalDecisionSchema.optional(),
  decidedBy: DecidedBySchema.optional(),
  reason: z.string().optional(),
  /** `reason` as a code, where whoever gave it has one (the built-in
   *  reviewer does; a model's words do not). */
  reasonMessage: RuntimeMessageSchema.optional(),
  /** Why the approve-for-me reviewer left this to the person. Not part of
   *  the canonical action: it explains the request, it is not what runs. */
  escalationReason: z.string().optional(),
  escalationMessage: RuntimeMessageSchema.optional(),
  createdAt: z.number().int(),
  expiresAt: z.number().int(),
  decidedAt: z.number().int().optional(),
})
export type ApprovalRecord = z.infer<typeof ApprovalRecordSchema>

/** `GET /v1/approvals/:id`: main's route, never on the renderer allowlist. */
export const ApprovalViewSchema = z.strictObject({
  approval: ApprovalRecordSchema,
  action: CanonicalActionSchema,
  actionDigest: z.string().regex(/^[0-9a-f]{64}$/),
  /** Whether an allow-always decision can be honoured for this action (a
   *  grant can be scoped to it); when false the runtime refuses allow-always
   *  with 409, so the window should not offer it. */
  alwaysAllowAvailable: z.boolean().optional(),
  /** The same for `allow-always-server` (an MCP call whose server's whole
   *  tool list the action shows). Absent means not offered. */
  serverAlwaysAllowAvailable: z.boolean().optional(),
})
export type ApprovalView = z.infer<typeof ApprovalViewSchema>

/** What the workbench card may show: the action text, tool and directory, no
 *  raw argument object, and nothing of the file a write replaces (its
 *  preview holds the file's current lines). */
export const ApprovalSummarySchema = ApprovalRecordSchema.omit({
  arguments: true,
  toolCallId: true,
  sandboxMode: true,
  target: true,
  fileChange: true,
})
export type ApprovalSummary = z.infer<typeof ApprovalSummarySchema>

export const ApprovalDecisionRequestSchema = z.strictObject({
  decision: ApprovalDecisionSchema,
})
export type ApprovalDecisionRequest = z.infer<typeof ApprovalDecisionRequestSchema>
