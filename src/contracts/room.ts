import { z } from 'zod'
import { ApprovalSummarySchema } from './approval.ts'
import { PermissionModeSchema, RoomPolicySchema } from './policy-axes.ts'
import { RuntimeMessageSchema } from './runtime-message.ts'

export const RoomKindSchema = z.enum(['direct', 'group'])
export type RoomKind = z.infer<typeof RoomKindSchema>

export const CreateRoomRequestSchema = z.strictObject({
  kind: RoomKindSchema,
  agentId: z.string().min(1).max(64),
  workspace: z.string().min(1).max(4096),
  title: z.string().trim().min(1).max(200),
})
export type CreateRoomRequest = z.infer<typeof CreateRoomRequestSchema>

export const RoomSchema = z.strictObject({
  id: z.string(),
  kind: RoomKindSchema,
  agentId: z.string(),
  workspace: z.string(),
  title: z.string(),
  mode: PermissionModeSchema,
  revision: z.number().int(),
  createdAt: z.number().int(),
})
export type Room = z.infer<typeof RoomSchema>

export const ClientRequestIdSchema = z.string().min(1).max(128)

export const SendMessageRequestSchema = z.strictObject({
  clientRequestId: ClientRequestIdSchema,
  text: z.string().trim().min(1).max(32_768),
  /** Run this message in plan mode, whatever the room's mode: it narrows,
   *  so it needs no consent. */
  plan: z.boolean().optional(),
})
export type SendMessageRequest = z.infer<typeof SendMessageRequestSchema>

export const FullAccessBlockerSchema = z.enum(['read_only_agent', 'agent_directory_limits'])
export type FullAccessBlocker = z.infer<typeof FullAccessBlockerSchema>

/** Whether a row's MAC under the integrity key verified when it was read
 *  (`tampered` when not), and whether the row came from a database older
 *  than its rollback anchor and has not been confirmed since
 *  (`rolled-back`). */
export const RowIntegritySchema = z.enum(['ok', 'tampered', 'rolled-back'])
export type RowIntegrity = z.infer<typeof RowIntegritySchema>

export const RoomPermissionsSchema = z.strictObject({
  roomId: z.string(),
  revision: z.number().int().min(0),
  policy: RoomPolicySchema,
  mode: PermissionModeSchema,
  fullAccessUnavailable: FullAccessBlockerSchema.nullable(),
  /** `tampered`: the stored row was edited outside Assent; `rolled-back`:
   *  it comes from an older copy of the database put back in place. Either
   *  way `policy` and `mode` are the narrowest, and the room has no grants,
   *  until the person confirms a mode. */
  integrity: RowIntegritySchema,
  /** Present when the folder at the room's workspace path is no longer the
   *  one the room was made for: its turns are refused until the person
   *  confirms a mode again in the protected window (which accepts a folder
   *  replaced under the same real path) or makes a new room. */
  workspaceMoved: z.literal(true).optional(),
})
export type RoomPermissions = z.infer<typeof RoomPermissionsSchema>

export const PermissionChangeRequestSchema = z.strictObject({
  clientRequestId: ClientRequestIdSchema,
  expectedRevision: z.number().int().min(0),
  mode: PermissionModeSchema,
  /** Present when the protected window told the person that confirming
   *  accepts the folder now at the room's workspace path (the room's own
   *  was replaced: `workspaceMoved`). */
  acceptsReplacedWorkspace: z.literal(true).optional(),
  /** Present when the window told the person that confirming seals again
   *  a room whose stored settings failed their check (`integrity` not
   *  `ok`), which gives it back its grants and approver webhook. */
  resealsRoom: z.literal(true).optional(),
})
export type PermissionChangeRequest = z.infer<typeof PermissionChangeRequestSchema>

/**
 * What a room's workspace is, beyond its name: its real path when the room
 * was made, and the device and inode of the folder there (decimal text, as
 * the numbers may exceed a double). A folder renamed away and replaced by a
 * link, or by another folder of the same name, keeps the path and loses the
 * identity.
 */
export const WorkspaceIdentitySchema = z.strictObject({
  realPath: z.string().min(1),
  dev: z.string().regex(/^\d+$/),
  ino: z.string().regex(/^\d+$/),
})
export type WorkspaceIdentity = z.infer<typeof WorkspaceIdentitySchema>

export const TurnStatusSchema = z.enum(['running', 'waiting', 'done', 'failed', 'interrupted'])
export type TurnStatus = z.infer<typeof TurnStatusSchema>

export const TurnSchema = z.strictObject({
  id: z.string(),
  roomId: z.string(),
  clientRequestId: z.string(),
  text: z.string(),
  attempt: z.number().int(),
  retryOf: z.string().nullable(),
  workspace: z.string(),
  /** The room's workspace identity, frozen with the turn like its policy:
   *  every door the turn acts through checks the folder is still this one.
   *  Absent on turns started before identities were kept. */
  workspaceIdentity: WorkspaceIdentitySchema.optional(),
  policy: RoomPolicySchema,
  /** The person sent this message in plan mode (`plan: true`): the turn,
   *  and any retry of it, runs under the plan preset. Absent or false when
   *  it was sent normally (it may still run in plan mode, in a plan room). */
  plan: z.boolean().optional(),
  status: TurnStatusSchema,
  createdAt: z.number().int(),
})
export type Turn = z.infer<typeof TurnSchema>

export const ToolCallStatusSchema = z.enum([
  'awaiting-approval',
  'running',
  'succeeded',
  'failed',
  'refused',
  'denied',
  'expired',
  'unknown',
])
export type ToolCallStatus = z.infer<typeof ToolCallStatusSchema>

export const ToolResultSchema = z.strictObject({
  ok: z.boolean(),
  /** What the tool returned: data (a file, a listing, a command's output)
   *  or, when `message` is there, the same words in English. */
  output: z.string(),
  exitCode: z.number().int().nullable().optional(),
  code: z.string().optional(),
  /** The result in words, for the person's language; absent when the
   *  output is data, shown as it is. */
  message: RuntimeMessageSchema.optional(),
})

export const ToolCallRecordSchema = z.strictObject({
  id: z.string(),
  roomId: z.string(),
  turnId: z.string(),
  seq: z.number().int(),
  toolName: z.string(),
  arguments: z.record(z.string(), z.unknown()),
  status: ToolCallStatusSchema,
  result: ToolResultSchema.nullable(),
  approvalId: z.string().nullable(),
  createdAt: z.number().int(),
  updatedAt: z.number().int(),
})
export type ToolCallRecord = z.infer<typeof ToolCallRecordSchema>

export const MessageSchema = z.strictObject({
  id: z.string(),
  roomId: z.string(),
  turnId: z.string(),
  role: z.enum(['user', 'agent', 'system']),
  text: z.string(),
  /** `text` as a code with parameters, when the runtime or its offline
   *  agent wrote it; a model's own words have none. */
  message: RuntimeMessageSchema.optional(),
  createdAt: z.number().int(),
})
export type Message = z.infer<typeof MessageSchema>

export const TimelineSchema = z.strictObject({
  roomId: z.string(),
  turns: z.array(TurnSchema),
  messages: z.array(MessageSchema),
  toolCalls: z.array(ToolCallRecordSchema),
  approvals: z.array(ApprovalSummarySchema),
})
export type Timeline = z.infer<typeof TimelineSchema>

/** Part of a room's timeline: some of its turns (the newest, or those from
 *  or before one turn), with their messages, tool calls and approvals, and
 *  every approval of the room still pending whatever its turn. */
export const TimelinePageSchema = TimelineSchema.extend({
  /** How many of the room's turns come before this page's first one. */
  earlierTurns: z.number().int().nonnegative(),
})
export type TimelinePage = z.infer<typeof TimelinePageSchema>

/** Which turns of a room's timeline to read: the newest page, every turn
 *  from one on (what a reader has loaded so far, brought up to date), or
 *  the page just before one. */
export type TimelinePageRequest =
  { kind: 'recent' } | { kind: 'from'; turnId: string } | { kind: 'before'; turnId: string }

export const ReconcileRequestSchema = z.strictObject({
  outcome: z.enum(['succeeded', 'failed', 'not-run']),
  note: z.string().max(2000).optional(),
})
export type ReconcileRequest = z.infer<typeof ReconcileRequestSchema>

/** What a grant answers for, besides its room: every call of one tool
 *  (`tool`), one exact command line (`command`), one real path (`path`),
 *  one MCP tool definition (`mcp`), or every tool of one MCP server as long
 *  as its whole tool list is the one the person saw (`mcp-server`). */
export const GrantScopeSchema = z.enum(['tool', 'command', 'path', 'mcp', 'mcp-server'])
export type GrantScope = z.infer<typeof GrantScopeSchema>

export const GrantSchema = z.strictObject({
  id: z.string(),
  roomId: z.string(),
  toolName: z.string(),
  /** Absent only on rows written before scopes were stored; such a row is
   *  honoured for its exact command or MCP definition and nothing wider. */
  scope: GrantScopeSchema.optional(),
  command: z.array(z.string()).nullable(),
  /** For a `path` grant: the real path the person allowed the tool on. */
  path: z.string().optional(),
  /** For an MCP tool: the server and the tool definition the grant is bound
   *  to. A changed definition has another hash, so the grant stops applying.
   *  For an `mcp-server` grant, `toolListHash` is the hash of the server's
   *  whole tool list as the person saw it, and what the grant is bound to
   *  (`toolName` and `definitionHash` then name the call it was given on). */
  mcp: z
    .strictObject({
      serverId: z.string(),
      definitionHash: z.string(),
      toolListHash: z.string().optional(),
      /** For a prompt's grant at assent-gateway (`prompts/get`): the
       *  prompt's name, as the person was shown it. The definition hash
       *  already binds the grant to it; this names it where the person
       *  revokes, where `prompts/get` alone would not say which prompt. */
      prompt: z.string().optional(),
    })
    .optional(),
  approvalId: z.string(),
  createdAt: z.number().int(),
})
export type Grant = z.infer<typeof GrantSchema>

export const GlobalSettingsSchema = z.record(z.string(), z.unknown())
