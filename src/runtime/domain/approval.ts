import { canonicalJson } from '../../contracts/canonical-json.ts'
import { sha256Hex } from './sha256.ts'
import type {
  ApprovalKind,
  ApprovalRecord,
  ApprovalSummary,
  CanonicalAction,
  McpAction,
  DecidedBy,
  PermissionRequest,
} from '../../contracts/approval.ts'
import type { CommandContainment } from '../../contracts/command-containment.ts'
import type { FileChange } from '../../contracts/file-change.ts'
import type { FileTarget } from '../../contracts/file-target.ts'
import type { ApprovalDecision } from '../../contracts/consent.ts'
import type { SandboxMode } from '../../contracts/policy-axes.ts'
import type { RuntimeMessage } from '../../contracts/runtime-message.ts'

export interface NewApproval {
  id: string
  roomId: string
  turnId: string
  toolCallId: string
  kind: ApprovalKind
  toolName: string
  arguments: Record<string, unknown>
  workingDirectory: string
  sandboxMode: SandboxMode
  summary: string
  summaryMessage?: RuntimeMessage
  mcp?: McpAction
  target?: FileTarget
  fileChange?: FileChange
  permission?: PermissionRequest
  containment?: CommandContainment
  now: number
  ttlMs: number
}

export function createApproval(input: NewApproval): ApprovalRecord {
  const { now, ttlMs, ...fields } = input
  if (!(ttlMs > 0)) throw new RangeError('approval TTL must be positive')
  return { ...fields, status: 'pending', createdAt: now, expiresAt: now + ttlMs }
}

export function isExpired(approval: ApprovalRecord, now: number): boolean {
  return (
    approval.status === 'expired' || (approval.status === 'pending' && now >= approval.expiresAt)
  )
}

export type Transition =
  { ok: true; approval: ApprovalRecord } | { ok: false; error: 'not_pending' | 'expired' }

/** A decision applies only to a pending, unexpired approval: expiry wins over
 *  a late decision so an action nobody confirmed in time never runs. */
export function resolveApproval(
  approval: ApprovalRecord,
  input: {
    decision: ApprovalDecision
    decidedBy: DecidedBy
    reason?: string
    reasonMessage?: RuntimeMessage
    now: number
  },
): Transition {
  if (isExpired(approval, input.now)) return { ok: false, error: 'expired' }
  if (approval.status !== 'pending') return { ok: false, error: 'not_pending' }
  return {
    ok: true,
    approval: {
      ...approval,
      status: input.decision === 'deny' ? 'denied' : 'allowed',
      decision: input.decision,
      decidedBy: input.decidedBy,
      ...(input.reason === undefined ? {} : { reason: input.reason }),
      ...(input.reasonMessage === undefined ? {} : { reasonMessage: input.reasonMessage }),
      decidedAt: input.now,
    },
  }
}

export function expireApproval(approval: ApprovalRecord, now: number): Transition {
  if (approval.status !== 'pending') return { ok: false, error: 'not_pending' }
  if (now < approval.expiresAt) return { ok: false, error: 'not_pending' }
  return {
    ok: true,
    approval: { ...approval, status: 'expired', decidedBy: 'timeout', decidedAt: now },
  }
}

export function canonicalAction(approval: ApprovalRecord): CanonicalAction {
  return {
    kind: approval.kind,
    roomId: approval.roomId,
    toolName: approval.toolName,
    arguments: approval.arguments,
    workingDirectory: approval.workingDirectory,
    sandboxMode: approval.sandboxMode,
    summary: approval.summary,
    // Each absent where it does not apply, so the digests of other actions
    // are what they always were.
    ...(approval.mcp === undefined ? {} : { mcp: approval.mcp }),
    ...(approval.target === undefined ? {} : { target: approval.target }),
    ...(approval.fileChange === undefined ? {} : { fileChange: approval.fileChange }),
    ...(approval.permission === undefined ? {} : { permission: approval.permission }),
    ...(approval.containment === undefined ? {} : { containment: approval.containment }),
  }
}

/** SHA-256 over RFC 8785 canonical JSON of the canonical action. */
export function actionDigest(action: CanonicalAction): string {
  return sha256Hex(canonicalJson(action))
}

export function summarizeApproval(approval: ApprovalRecord): ApprovalSummary {
  const {
    arguments: _arguments,
    toolCallId: _toolCallId,
    sandboxMode: _sandbox,
    target: _target,
    fileChange: _fileChange,
    ...rest
  } = approval
  return rest
}
