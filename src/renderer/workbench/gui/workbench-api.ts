import type { AssentGui, RelayResponse } from '../../../common/assent-gui.ts'
import type { ApproverWebhook } from '../../../contracts/approver-webhook.ts'
import {
  WorkbenchErrorCodeSchema,
  WorkbenchErrorSchema,
  parseWorkbenchError,
  workbenchError,
  type WorkbenchError,
  type WorkbenchErrorCode,
} from '../../../common/workbench-error.ts'
import type { AgentSummary } from '../../../contracts/agents-config.ts'
import type { ApprovalRecord, ApprovalSummary } from '../../../contracts/approval.ts'
import type { InputRequestRecord, InputResponse } from '../../../contracts/input-request.ts'
import type { PermissionMode } from '../../../contracts/policy-axes.ts'
import type {
  CreateRoomRequest,
  Grant,
  Room,
  RoomPermissions,
  TimelinePage,
  TimelinePageRequest,
  Turn,
} from '../../../contracts/room.ts'

/** A relay call the runtime answered with an error (`{ error, code }`), or
 *  a bridge call main refused (its typed error). The message is the raw
 *  English detail; the person reads the code through `errorText`
 *  (error-text.ts). */
export class WorkbenchCallError extends Error {
  readonly status: number | undefined
  readonly code: WorkbenchErrorCode | undefined

  constructor(message: string, status?: number, code?: WorkbenchErrorCode) {
    super(message)
    this.name = 'WorkbenchCallError'
    this.status = status
    this.code = code
  }
}

/** What `reviewApproval` and `requestModeChange` resolve with once the
 *  protected window has closed (main's ConsentOutcome, as the page sees it). */
export type ReviewOutcome =
  | { status: 'decided'; decision: string; approval: ApprovalRecord }
  | { status: 'changed' | 'unchanged'; permissions: RoomPermissions }
  | { status: 'submitted'; request: InputRequestRecord }
  | { status: 'webhook-changed'; webhook: ApproverWebhook | null }
  | { status: 'cancelled' | 'expired' }
  | { status: 'closed'; reason: WorkbenchError }
  | { status: 'failed'; error: WorkbenchError }

/** A form's answer in MCP's terms. */
export type FormOutcomeAction = 'accept' | 'decline' | 'cancel'

/** What `rejectApprovalForMessage` resolves with (main's outcome). */
export type RejectionOutcome =
  | { status: 'rejected'; approval: ApprovalRecord }
  | { status: 'not-pending' }
  | { status: 'failed'; error: WorkbenchError }

/**
 * The workbench's typed view of `window.assentGui`. The page trusts main to
 * pass the runtime's answers on as they are: this only turns a non-2xx answer
 * into an error and names the body's shape. It decides nothing.
 */
export interface WorkbenchApi {
  listAgents(): Promise<AgentSummary[]>
  listRooms(): Promise<Room[]>
  createRoom(input: CreateRoomRequest): Promise<Room>
  timelinePage(roomId: string, page: TimelinePageRequest): Promise<TimelinePage>
  permissions(roomId: string): Promise<RoomPermissions>
  grants(roomId: string): Promise<Grant[]>
  revokeGrant(roomId: string, grantId: string): Promise<void>
  revokeServerGrants(roomId: string, serverId: string): Promise<void>
  sendMessage(roomId: string, input: { clientRequestId: string; text: string }): Promise<Turn>
  retryTurn(turnId: string): Promise<Turn>
  stopTurn(turnId: string): Promise<Turn>
  reviewApproval(approvalId: string): Promise<ReviewOutcome>
  inputRequests(roomId: string): Promise<InputRequestRecord[]>
  respondToInput(requestId: string, response: InputResponse): Promise<InputRequestRecord>
  keepWaiting(requestId: string): Promise<InputRequestRecord>
  rejectApprovalForMessage(approvalId: string): Promise<RejectionOutcome>
  openSensitiveForm(requestId: string): Promise<ReviewOutcome>
  requestModeChange(roomId: string, mode: PermissionMode): Promise<ReviewOutcome>
  approverWebhook(roomId: string): Promise<ApproverWebhook | null>
  /** Sets (`url`) or removes (`null`) the room's approver webhook: main
   *  opens the protected window; the page only hears how it closed. */
  requestApproverWebhook(roomId: string, url: string | null): Promise<ReviewOutcome>
}

export function workbenchApi(gui: AssentGui): WorkbenchApi {
  return {
    listAgents: async () => (await body<{ agents: AgentSummary[] }>(gui.listAgents())).agents,
    listRooms: async () => (await body<{ rooms: Room[] }>(gui.listRooms())).rooms,
    createRoom: async (input) => (await body<{ room: Room }>(gui.createRoom(input))).room,
    timelinePage: (roomId, page) => body<TimelinePage>(gui.timelinePage(roomId, page)),
    permissions: (roomId) => body<RoomPermissions>(gui.permissions(roomId)),
    grants: async (roomId) => (await body<{ grants: Grant[] }>(gui.grants(roomId))).grants,
    revokeGrant: async (roomId, grantId) => {
      await body(gui.revokeGrant(roomId, grantId))
    },
    revokeServerGrants: async (roomId, serverId) => {
      await body(gui.revokeServerGrants(roomId, serverId))
    },
    sendMessage: async (roomId, input) =>
      (await body<{ turn: Turn }>(gui.sendMessage(roomId, input))).turn,
    retryTurn: async (turnId) => (await body<{ turn: Turn }>(gui.retryTurn(turnId))).turn,
    stopTurn: async (turnId) => (await body<{ turn: Turn }>(gui.stopTurn(turnId))).turn,
    reviewApproval: (approvalId) => bridge(gui.reviewApproval(approvalId)),
    inputRequests: async (roomId) =>
      (await body<{ requests: InputRequestRecord[] }>(gui.inputRequests(roomId))).requests,
    respondToInput: async (requestId, response) =>
      (await body<{ request: InputRequestRecord }>(gui.respondToInput(requestId, response)))
        .request,
    keepWaiting: async (requestId) =>
      (await body<{ request: InputRequestRecord }>(gui.keepWaiting(requestId))).request,
    openSensitiveForm: (requestId) => bridge(gui.openSensitiveForm(requestId)),
    rejectApprovalForMessage: async (approvalId) =>
      withTypedError(
        (await bridgeCall(gui.rejectApprovalForMessage(approvalId))) as RejectionOutcome,
      ),
    requestModeChange: (roomId, mode) => bridge(gui.requestModeChange(roomId, mode)),
    approverWebhook: async (roomId) =>
      (await body<{ webhook: ApproverWebhook | null }>(gui.approverWebhook(roomId))).webhook,
    requestApproverWebhook: (roomId, url) => bridge(gui.requestApproverWebhook(roomId, url)),
  }
}

async function body<T>(call: Promise<RelayResponse>): Promise<T> {
  const response = (await bridgeCall(call)) as RelayResponse
  if (response.status >= 200 && response.status < 300) return response.body as T
  const answer = (response.body ?? {}) as { error?: unknown; code?: unknown }
  const code = WorkbenchErrorCodeSchema.safeParse(answer.code)
  // No text of its own: the page words it from the code or the status
  // (error-text.ts).
  throw new WorkbenchCallError(
    typeof answer.error === 'string' ? answer.error : '',
    response.status,
    code.success ? code.data : undefined,
  )
}

async function bridge(call: Promise<unknown>): Promise<ReviewOutcome> {
  return withTypedError((await bridgeCall(call)) as ReviewOutcome)
}

// Electron wraps a rejected `ipcRenderer.invoke` as
// "Error invoking remote method 'channel': Error: <message>"; the wrapper
// is dropped from a detail shown to the person.
const IPC_WRAPPER = /^Error invoking remote method '[^']*':\s*(?:\w*Error:\s*)?/

/** Awaits a call to main, turning its rejection into a `WorkbenchCallError`
 *  with main's typed error when it carries one (common/workbench-error.ts). */
async function bridgeCall(call: Promise<unknown>): Promise<unknown> {
  try {
    return await call
  } catch (error) {
    const message = messageOf(error)
    const typed = parseWorkbenchError(message)
    if (typed) throw new WorkbenchCallError(typed.detail, undefined, typed.code)
    throw new WorkbenchCallError(message.replace(IPC_WRAPPER, '').trim())
  }
}

/** A review's or rejection's outcome with its error or reason parsed: main
 *  sends a `WorkbenchError`, and anything else reads as `main_failed`. */
function withTypedError<T extends { status: string }>(outcome: T): T {
  const record = outcome as T & { error?: unknown; reason?: unknown }
  if (outcome.status === 'failed') return { ...outcome, error: typedOrFailed(record.error) }
  if (outcome.status === 'closed') return { ...outcome, reason: typedOrFailed(record.reason) }
  return outcome
}

function typedOrFailed(value: unknown): WorkbenchError {
  const parsed = WorkbenchErrorSchema.safeParse(value)
  return parsed.success
    ? parsed.data
    : workbenchError('main_failed', typeof value === 'string' ? value : '')
}

export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message
  return typeof error === 'string' ? error : ''
}

/** The card's view of a decided approval main returned in full: the same
 *  fields the runtime's events carry, without the raw arguments. */
export function summaryOf(approval: ApprovalRecord): ApprovalSummary {
  const {
    arguments: _arguments,
    toolCallId: _toolCallId,
    sandboxMode: _sandboxMode,
    ...summary
  } = approval
  return summary
}
