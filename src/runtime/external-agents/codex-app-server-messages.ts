import { isAbsolute, resolve } from 'node:path'
import { z } from 'zod'
import type { ToolCallStatus } from '../../contracts/room.ts'
import type {
  ExternalAction,
  ExternalDecision,
  ExternalFileChange,
  ExternalRefusalCode,
} from './external-agent-port.ts'

/**
 * The parts of Codex's app-server protocol (`codex app-server`, 0.169) that
 * the client reads. Codex adds fields as it grows, so every object here is
 * loose: unknown keys are tolerated and never read. A message that lacks a
 * field the client uses does not parse, and is never acted on.
 */

const Text = z.string().max(16 * 1024 * 1024)
const Id = z.string().min(1).max(512)

export const CodexInitializeResultSchema = z.looseObject({ userAgent: Text })

/** `thread/start`'s answer, with the settings Codex actually applied. */
export const CodexThreadStartResultSchema = z.looseObject({
  thread: z.looseObject({ id: Id }),
  approvalPolicy: z.unknown(),
  approvalsReviewer: z.string(),
  sandbox: z.looseObject({
    type: z.string(),
    writableRoots: z.array(Text).max(4096).optional(),
    networkAccess: z.boolean().optional(),
  }),
  cwd: Text,
})

/**
 * Whether the sandbox Codex reports for a thread is the kind the room
 * asked for (`type`) and no wider. The person's own `config.toml` widens a
 * kind without changing its name: `[sandbox_workspace_write]`
 * `writable_roots` adds folders to write in, `network_access` the network
 * (0.169 reports both back, as `writableRoots` and `networkAccess`). What
 * Codex runs without asking runs in this sandbox, so outside a full-access
 * room it must hold no network and no folder to write in but the
 * workspace. A field it stops reporting reads as wider, never as narrower.
 */
export function codexSandboxAsAsked(
  reported: z.infer<typeof CodexThreadStartResultSchema>['sandbox'],
  type: string,
  workspace: string,
): boolean {
  if (reported.type !== type) return false
  if (type === 'dangerFullAccess') return true
  if (reported.networkAccess !== false) return false
  if (type !== 'workspaceWrite') return true
  const roots = reported.writableRoots
  return roots !== undefined && roots.every((root) => resolve(root) === resolve(workspace))
}

/** An answer whose content the client does not use (`turn/interrupt`). */
export const CodexEmptyResultSchema = z.looseObject({})

export const CodexTurnStartResultSchema = z.looseObject({ turn: z.looseObject({ id: Id }) })

const PatchChangeKindSchema = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('add') }),
  z.looseObject({ type: z.literal('delete') }),
  z.looseObject({ type: z.literal('update'), move_path: Text.nullable().optional() }),
])

const ItemStatusSchema = z.enum(['inProgress', 'completed', 'failed', 'declined'])

export const CodexCommandItemSchema = z.looseObject({
  type: z.literal('commandExecution'),
  id: Id,
  command: Text,
  cwd: Text,
  status: ItemStatusSchema,
  aggregatedOutput: Text.nullable().optional(),
  exitCode: z.number().int().nullable().optional(),
})

export const CodexFileChangeItemSchema = z.looseObject({
  type: z.literal('fileChange'),
  id: Id,
  changes: z
    .array(z.looseObject({ path: Text, kind: PatchChangeKindSchema, diff: Text }))
    .max(4096),
  status: ItemStatusSchema,
})

export const CodexAgentMessageItemSchema = z.looseObject({
  type: z.literal('agentMessage'),
  id: Id,
  text: Text,
})

/** `item/started` and `item/completed`. The item stays unknown here: each
 *  kind the client uses is parsed on its own, the rest are ignored. */
export const CodexItemNotificationSchema = z.looseObject({
  threadId: Id,
  turnId: Id,
  item: z.looseObject({ type: z.string(), id: Id }),
})

export const CodexTurnCompletedSchema = z.looseObject({
  threadId: Id,
  turn: z.looseObject({
    id: Id,
    status: z.enum(['completed', 'interrupted', 'failed', 'inProgress']),
    error: z.looseObject({ message: Text }).nullable().optional(),
  }),
})

export const CodexServerRequestResolvedSchema = z.looseObject({
  threadId: Id,
  requestId: z.union([z.string(), z.number().int()]),
})

export const CodexWarningSchema = z.looseObject({ message: Text })
export const CodexErrorNotificationSchema = z.looseObject({
  error: z.looseObject({ message: Text }),
  willRetry: z.boolean().optional(),
})

/** `item/commandExecution/requestApproval`. `kind` defaults to `command` for
 *  older servers, as Codex documents. */
export const CodexCommandApprovalSchema = z.looseObject({
  threadId: Id,
  turnId: Id,
  itemId: Id,
  approvalId: Id.nullable().optional(),
  kind: z.string().optional(),
  command: Text.nullable().optional(),
  cwd: Text.nullable().optional(),
  reason: Text.nullable().optional(),
  networkApprovalContext: z.unknown().optional(),
  additionalPermissions: z.unknown().optional(),
})
export type CodexCommandApproval = z.infer<typeof CodexCommandApprovalSchema>

/** `item/fileChange/requestApproval`: no changes of its own; they arrive in
 *  the earlier `item/started` of the same item. */
export const CodexFileChangeApprovalSchema = z.looseObject({
  threadId: Id,
  turnId: Id,
  itemId: Id,
  reason: Text.nullable().optional(),
  grantRoot: Text.nullable().optional(),
})
export type CodexFileChangeApproval = z.infer<typeof CodexFileChangeApprovalSchema>

/**
 * The command Assent can show, or why it cannot. Only a plain command
 * request is shown: input for a running terminal (`writeStdin`), a managed
 * checkpoint (`humanCommand`), a network-access request and one that asks
 * for extra permissions each allow something the command line does not say,
 * so allowing one would allow more than the person saw.
 */
export function codexCommandAction(
  params: CodexCommandApproval,
): { action: ExternalAction } | { refused: ExternalRefusalCode; detail: string } {
  if (params.kind !== undefined && params.kind !== 'command') {
    return {
      refused: 'unsupported-command-kind',
      detail: `a command approval of kind ${params.kind}`,
    }
  }
  if (params.networkApprovalContext != null) {
    return { refused: 'network-access', detail: 'a network-access approval' }
  }
  if (params.additionalPermissions != null) {
    return { refused: 'extra-permissions', detail: 'a command that asks for extra permissions' }
  }
  if (params.command == null || params.cwd == null) {
    return {
      refused: 'no-command-line',
      detail: 'a command approval without its command line or directory',
    }
  }
  return { action: { kind: 'command', commandLine: params.command, argv: null, cwd: params.cwd } }
}

/** The file changes of a `fileChange` item, with paths made absolute against
 *  the thread's workspace (where Codex applies a relative path). */
export function codexFileChanges(
  item: z.infer<typeof CodexFileChangeItemSchema>,
  workspace: string,
): ExternalFileChange[] {
  const absolute = (path: string): string => (isAbsolute(path) ? path : resolve(workspace, path))
  return item.changes.map((change) => ({
    path: absolute(change.path),
    change: change.kind.type,
    movePath:
      change.kind.type === 'update' && change.kind.move_path != null
        ? absolute(change.kind.move_path)
        : null,
    diff: change.diff,
    oldText: null,
    newText: null,
  }))
}

/**
 * Assent's decision in Codex's terms. Allow-always is `accept`, not
 * `acceptForSession` or an exec-policy amendment: the grant is Assent's,
 * and Codex must keep asking so that revoking the grant takes effect.
 * Deny and expiry are `decline` (the turn goes on, and the model is told);
 * cancelled is `cancel`, which also ends the turn.
 */
export function codexAnswerFor(decision: ExternalDecision): 'accept' | 'decline' | 'cancel' {
  switch (decision) {
    case 'allow-once':
    case 'allow-always':
      return 'accept'
    case 'cancelled':
      return 'cancel'
    case 'deny':
    case 'expired':
      return 'decline'
  }
}

/** A Codex item status as a timeline tool-call status. */
export function codexItemStatus(
  status: z.infer<typeof ItemStatusSchema>,
  exitCode: number | null | undefined,
): ToolCallStatus {
  switch (status) {
    case 'inProgress':
      return 'running'
    case 'completed':
      return exitCode != null && exitCode !== 0 ? 'failed' : 'succeeded'
    case 'failed':
      return 'failed'
    case 'declined':
      return 'denied'
  }
}
