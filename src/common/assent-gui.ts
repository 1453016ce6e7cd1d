import type { PermissionMode } from '../contracts/policy-axes.ts'
import type { TimelinePageRequest } from '../contracts/room.ts'
import type { Language, Theme } from './consent-view.ts'

/** A call through main's renderer relay: main forwards it to the runtime
 *  only if (method, path) is on the allowlist. */
export interface RelayRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE'
  path: string
  body?: unknown
}

export interface RelayResponse {
  status: number
  body: unknown
}

export interface WorkbenchEvent {
  type: string
  data: unknown
}

/**
 * `window.assentGui`: the workbench's only way out. Untrusted code may call
 * any of it with any arguments; main validates every call and can never be
 * asked to decide anything: reviews and mode changes only open the protected
 * window.
 */
export interface AssentGui {
  /** The agents a room can be created with (`GET /v1/agents`). */
  listAgents(): Promise<RelayResponse>
  listRooms(): Promise<RelayResponse>
  createRoom(input: unknown): Promise<RelayResponse>
  getRoom(roomId: string): Promise<RelayResponse>
  sendMessage(roomId: string, input: unknown): Promise<RelayResponse>
  /** A page of the room's timeline (`TimelinePageRequest`): its newest
   *  turns, every turn from one on, or the turns before one. */
  timelinePage(roomId: string, page: TimelinePageRequest): Promise<RelayResponse>
  approvals(roomId: string): Promise<RelayResponse>
  permissions(roomId: string): Promise<RelayResponse>
  grants(roomId: string): Promise<RelayResponse>
  /** The room's approver webhook: its URL, never its secret. */
  approverWebhook(roomId: string): Promise<RelayResponse>
  revokeGrant(roomId: string, grantId: string): Promise<RelayResponse>
  revokeServerGrants(roomId: string, serverId: string): Promise<RelayResponse>
  retryTurn(turnId: string): Promise<RelayResponse>
  /** Stops a running or waiting turn of an external agent. */
  stopTurn(turnId: string): Promise<RelayResponse>
  globalSettings(): Promise<RelayResponse>
  inputRequests(roomId: string): Promise<RelayResponse>
  respondToInput(requestId: string, response: unknown): Promise<RelayResponse>
  /** Starts an ordinary question's wait again; the runtime keeps its timer. */
  keepWaiting(requestId: string): Promise<RelayResponse>
  reviewApproval(approvalId: string, ...forbidden: unknown[]): Promise<unknown>
  /** Closes an open approval as rejected because the person sent a message
   *  instead. Main mints a deny and nothing else for it. */
  rejectApprovalForMessage(approvalId: string, ...forbidden: unknown[]): Promise<unknown>
  /** Opens a sensitive form in the protected window; its values never
   *  pass through the workbench. */
  openSensitiveForm(requestId: string, ...forbidden: unknown[]): Promise<unknown>
  requestModeChange(roomId: string, mode: PermissionMode, ...forbidden: unknown[]): Promise<unknown>
  /** Sets (`url`) or removes (`null`) a room's approver webhook, confirmed
   *  in the protected window; the answer never carries its secret. */
  requestApproverWebhook(
    roomId: string,
    url: string | null,
    ...forbidden: unknown[]
  ): Promise<unknown>
  /** The page's effective language and theme, so the protected window opens
   *  in the same ones. Display only: it widens nothing. */
  setPreferences(preferences: WorkbenchPreferences, ...forbidden: unknown[]): Promise<unknown>
  onEvent(listener: (event: WorkbenchEvent) => void): () => void
}

export interface WorkbenchPreferences {
  lang: Language
  theme: Theme
}

export type WorkbenchChannel =
  'relay' | 'review' | 'reject' | 'form' | 'mode' | 'webhook' | 'preferences'
