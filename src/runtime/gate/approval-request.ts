import type { ApprovalKind, McpAction, PermissionRequest } from '../../contracts/approval.ts'
import type { CommandContainment } from '../../contracts/command-containment.ts'
import type { FileChange } from '../../contracts/file-change.ts'
import type { FileTarget } from '../../contracts/file-target.ts'
import type { SandboxMode } from '../../contracts/policy-axes.ts'
import type { ToolCallRecord, Turn } from '../../contracts/room.ts'
import type { RuntimeMessage } from '../../contracts/runtime-message.ts'
import type { ReviewInput } from '../policy/reviewer.ts'

// What a door hands the approval requester (approval-requester.ts) when it
// asks for a decision.

/** The action as the person will be shown it, besides its room and the
 *  turn's sandbox, which the requester takes from the turn. */
export interface RequestedAction {
  kind: ApprovalKind
  toolName: string
  arguments: Record<string, unknown>
  workingDirectory: string
  summary: string
  /** The summary as a code, for the person's language. */
  summaryMessage?: RuntimeMessage
  mcp?: McpAction
  /** Where the action runs once allowed, when that is not the turn's
   *  sandbox: an external agent may run an allowed action outside its own,
   *  and the person is shown the worst case. */
  sandboxMode?: SandboxMode
  /** The file a write or delete acts on, as observed before asking. */
  target?: FileTarget
  /** A write's change against that file's current content. */
  fileChange?: FileChange
  /** For a permission request: what widens and for how long. */
  permission?: PermissionRequest
  /** For a command the runtime runs: what the OS lets it do. */
  containment?: CommandContainment
}

export interface ApprovalRequest {
  /** The turn the action belongs to: its room, and the policy frozen on it. */
  turn: Turn
  /** The tool call that waits for the decision. */
  call: ToolCallRecord
  action: RequestedAction
  /**
   * What the approve-for-me reviewer judges, read only once the approval is
   * open and only where the turn's policy lets the reviewer decide. Without
   * it the person decides whatever the policy says: an MCP call, whose
   * server the reviewer cannot judge, never skips the person.
   */
  review?: () => Promise<ReviewInput>
  /**
   * Only the person decides it: neither the reviewer nor the room's
   * approver webhook is asked, whatever the room says. A permission
   * request is such: it widens what the turn may do, which only the person
   * may give. A private read is too, whichever door asks, but no door
   * says so: the requester judges every approval it opens for that itself
   * (private-read-approval.ts).
   */
  personDecides?: true
  /** The real paths the door's sandbox check resolved the action's paths
   *  to, judged by the private-read rule besides what the action names. */
  resolvedPaths?: readonly string[]
}
