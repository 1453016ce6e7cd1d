import type { WorkbenchEvent } from '../../../common/assent-gui.ts'
import type { ApprovalKind, ApprovalStatus, ApprovalSummary } from '../../../contracts/approval.ts'
import type { Room } from '../../../contracts/room.ts'

/** The events the workbench acts on, read from what main forwards (runtime
 *  events as the runtime emits them, plus main's own runtime status). */
export type WorkbenchSignal =
  | { type: 'approval.requested' | 'approval.resolved'; approval: ApprovalSummary }
  | { type: 'room.created'; room: Room }
  | { type: 'room.updated' | 'timeline.updated' | 'grant.changed'; roomId: string }
  /** `keyFile`: main keeps the integrity key in a plain file in the data folder. */
  | { type: 'runtime.status'; state: 'up' | 'down'; keyFile?: true }
  | { type: 'runtime.reset' }
  /** A stored row failed its integrity check (edited outside Assent). */
  | { type: 'runtime.integrity'; report: IntegrityReport }
  /** Main's system notification was clicked: bring this card into view.
   *  `roomId` when main sends it; otherwise the page finds the room from the
   *  approval.requested event it saw. */
  | { type: 'approval.focus'; approvalId: string; roomId?: string }

export interface IntegrityReport {
  table: string
  rowId: string
  /** The room the row belongs to, when it belongs to one. */
  roomId: string | null
  problem: string
}

// Records rather than the zod enums, so the page does not bundle zod; the
// types make each list complete.
const APPROVAL_KINDS: Readonly<Record<ApprovalKind, true>> = {
  'run-command': true,
  'apply-changes': true,
  'mcp-tool-call': true,
  read: true,
  'permission-request': true,
}
const APPROVAL_STATUSES: Readonly<Record<ApprovalStatus, true>> = {
  pending: true,
  allowed: true,
  denied: true,
  expired: true,
}

/**
 * Reads one event at the page's edge. Anything malformed is dropped: the
 * next timeline refresh shows the runtime's truth anyway, so a dropped event
 * can delay the view but never make it wrong.
 */
export function readWorkbenchEvent(event: WorkbenchEvent): WorkbenchSignal | undefined {
  const data = isRecord(event.data) ? event.data : {}
  switch (event.type) {
    case 'approval.requested':
    case 'approval.resolved': {
      const approval = readApproval(data.approval)
      return approval ? { type: event.type, approval } : undefined
    }
    case 'room.created':
      return isRecord(data.room) && typeof data.room.id === 'string'
        ? { type: 'room.created', room: data.room as unknown as Room }
        : undefined
    case 'room.updated':
    case 'timeline.updated':
    case 'grant.changed':
      return typeof data.roomId === 'string' ? { type: event.type, roomId: data.roomId } : undefined
    case 'runtime.status':
      if (data.state !== 'up' && data.state !== 'down') return undefined
      return data.keyFile === true
        ? { type: 'runtime.status', state: data.state, keyFile: true }
        : { type: 'runtime.status', state: data.state }
    case 'runtime.reset':
      return { type: 'runtime.reset' }
    case 'runtime.integrity': {
      const { table, rowId, roomId, problem } = data
      if (typeof table !== 'string' || typeof rowId !== 'string' || typeof problem !== 'string')
        return undefined
      return {
        type: 'runtime.integrity',
        report: { table, rowId, roomId: typeof roomId === 'string' ? roomId : null, problem },
      }
    }
    case 'approval.focus':
      if (typeof data.approvalId !== 'string') return undefined
      return typeof data.roomId === 'string'
        ? { type: 'approval.focus', approvalId: data.approvalId, roomId: data.roomId }
        : { type: 'approval.focus', approvalId: data.approvalId }
    default:
      return undefined
  }
}

function readApproval(value: unknown): ApprovalSummary | undefined {
  if (!isRecord(value)) return undefined
  const strings = ['id', 'roomId', 'turnId', 'toolName', 'summary', 'workingDirectory'] as const
  if (!strings.every((key) => typeof value[key] === 'string')) return undefined
  if (typeof value.kind !== 'string' || !Object.hasOwn(APPROVAL_KINDS, value.kind)) return undefined
  if (typeof value.status !== 'string' || !Object.hasOwn(APPROVAL_STATUSES, value.status))
    return undefined
  if (typeof value.createdAt !== 'number') return undefined
  return value as unknown as ApprovalSummary
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
