import type { TFunction } from 'i18next'
import {
  WorkbenchErrorSchema,
  parseWorkbenchError,
  type WorkbenchErrorCode,
} from '../../../common/workbench-error.ts'
import { WorkbenchCallError } from './workbench-api.ts'

/**
 * What went wrong, in the page's terms. Main and the runtime name every
 * failure with a code (common/workbench-error.ts); the person reads one of
 * these, translated, and main's English text only as a detail where the code
 * is a generic one. Nothing here reads that text to decide anything.
 */
export type ErrorKind =
  | 'secret-not-sent'
  | 'approval-not-pending'
  | 'approval-expired'
  | 'approval-unknown'
  | 'runtime-restarted'
  | 'runtime-down'
  | 'app-closing'
  | 'rejected-by-message'
  | 'input-not-waiting'
  | 'review-busy'
  | 'window-not-shown'
  | 'window-left-page'
  | 'workspace-missing'
  | 'workspace-moved'
  | 'agent-unknown'
  | 'room-unknown'
  | 'grant-unknown'
  | 'room-changed'
  | 'turn-in-progress'
  | 'full-access-unavailable'
  | 'rollback-anchor-unavailable'
  | 'refused'
  | 'http-status'
  | 'unknown'

export interface ErrorDescription {
  kind: ErrorKind
  /** Main's or the runtime's English text: shown only as a detail. */
  detail: string
  code: WorkbenchErrorCode | undefined
  status: number | undefined
}

/** The kinds that mean the runtime no longer waits on an approval: its card
 *  must be reconciled rather than left open. */
const APPROVAL_GONE: ReadonlySet<ErrorKind> = new Set([
  'approval-not-pending',
  'approval-expired',
  'approval-unknown',
])

/** How the page words each code. Complete over every code, so a new one
 *  cannot reach the person without someone choosing its words. */
const KIND_OF_CODE: Readonly<Record<WorkbenchErrorCode, ErrorKind>> = {
  // The runtime's.
  malformed_request: 'refused',
  headers_too_large: 'refused',
  request_timeout: 'refused',
  wrong_host: 'refused',
  browser_origin: 'refused',
  unauthorized: 'refused',
  gateway_forbidden: 'refused',
  unexpected_query: 'refused',
  not_found: 'refused',
  method_not_allowed: 'refused',
  bad_content_type: 'refused',
  body_too_large: 'refused',
  invalid_json: 'refused',
  invalid_body: 'refused',
  unexpected_body: 'refused',
  incomplete_body: 'refused',
  invalid_last_event_id: 'refused',
  consent_required: 'refused',
  unknown_approval: 'approval-unknown',
  approval_decided: 'approval-not-pending',
  approval_expired: 'approval-expired',
  decision_in_progress: 'review-busy',
  always_allow_unavailable: 'refused',
  unknown_room: 'room-unknown',
  unknown_agent: 'agent-unknown',
  invalid_workspace: 'workspace-missing',
  private_conversation_required: 'refused',
  stale_revision: 'room-changed',
  client_request_conflict: 'refused',
  read_only_agent: 'full-access-unavailable',
  agent_directory_limits: 'full-access-unavailable',
  room_tampered: 'refused',
  unknown_grant: 'grant-unknown',
  rollback_anchor_unavailable: 'rollback-anchor-unavailable',
  unknown_turn: 'refused',
  turn_in_progress: 'turn-in-progress',
  execution_unknown: 'refused',
  workspace_mismatch: 'refused',
  workspace_moved: 'workspace-moved',
  unknown_execution: 'refused',
  not_unknown: 'refused',
  unknown_request: 'input-not-waiting',
  not_pending: 'input-not-waiting',
  blocking: 'refused',
  wrong_action: 'refused',
  protected_form: 'refused',
  invalid_content: 'refused',
  invalid_answer: 'refused',
  unknown_call: 'refused',
  not_running: 'refused',
  not_durable: 'runtime-down',
  internal: 'unknown',
  // Main's.
  invalid_arguments: 'refused',
  unknown_channel: 'refused',
  sender_refused: 'refused',
  relay_refused: 'refused',
  runtime_down: 'runtime-down',
  runtime_restarted: 'runtime-restarted',
  app_closing: 'app-closing',
  rejected_by_message: 'rejected-by-message',
  full_access_unavailable: 'full-access-unavailable',
  not_sensitive_form: 'refused',
  form_invalid: 'refused',
  window_not_shown: 'window-not-shown',
  window_left_page: 'window-left-page',
  runtime_unreadable: 'unknown',
  main_failed: 'unknown',
}

/** A failure's code, status and detail, wherever it came from: a relay
 *  answer or a bridge call (`WorkbenchCallError`), an error a review ended
 *  with (a `WorkbenchError`), or a rejected call nothing parsed yet. */
function partsOf(failure: unknown): Omit<ErrorDescription, 'kind'> {
  if (failure instanceof WorkbenchCallError) {
    return { code: failure.code, status: failure.status, detail: failure.message }
  }
  const typed = WorkbenchErrorSchema.safeParse(failure)
  if (typed.success) return { code: typed.data.code, status: undefined, detail: typed.data.detail }
  const raw =
    failure instanceof Error ? failure.message : typeof failure === 'string' ? failure : ''
  const wired = parseWorkbenchError(raw)
  if (wired) return { code: wired.code, status: undefined, detail: wired.detail }
  return { code: undefined, status: undefined, detail: raw.trim() }
}

export function describeError(failure: unknown): ErrorDescription {
  if (failure instanceof Error && failure.name === 'SecretNotSentError') {
    return { kind: 'secret-not-sent', detail: failure.message, code: undefined, status: undefined }
  }
  const parts = partsOf(failure)
  if (parts.code !== undefined) return { kind: KIND_OF_CODE[parts.code], ...parts }
  if (parts.status === 503) return { kind: 'runtime-down', ...parts }
  if (parts.detail === '' && parts.status !== undefined) return { kind: 'http-status', ...parts }
  return { kind: 'unknown', ...parts }
}

/** True when the runtime said the approval is decided, expired or unknown. */
export function approvalGone(failure: unknown): boolean {
  return APPROVAL_GONE.has(describeError(failure).kind)
}

/** True when the runtime said the question or form is no longer waiting
 *  (answered, closed, stale) or unknown: its card is stale. */
export function inputGone(failure: unknown): boolean {
  return describeError(failure).kind === 'input-not-waiting'
}

const KEY = {
  'secret-not-sent': 'workbench.error.secretNotSent',
  'approval-not-pending': 'workbench.error.approvalNotPending',
  'approval-expired': 'workbench.error.approvalExpired',
  'approval-unknown': 'workbench.error.approvalUnknown',
  'runtime-restarted': 'workbench.error.runtimeRestarted',
  'runtime-down': 'workbench.error.runtimeDown',
  'app-closing': 'workbench.error.appClosing',
  'rejected-by-message': 'workbench.error.rejectedByMessage',
  'input-not-waiting': 'workbench.error.inputNotWaiting',
  'review-busy': 'workbench.error.reviewBusy',
  'window-not-shown': 'workbench.error.windowNotShown',
  'window-left-page': 'workbench.error.windowLeftPage',
  'workspace-missing': 'workbench.error.workspaceMissing',
  'workspace-moved': 'workbench.error.workspaceMoved',
  'agent-unknown': 'workbench.error.agentUnknown',
  'room-unknown': 'workbench.error.roomUnknown',
  'grant-unknown': 'workbench.error.grantUnknown',
  'room-changed': 'workbench.error.roomChanged',
  'turn-in-progress': 'workbench.error.turnInProgress',
  'full-access-unavailable': 'workbench.error.fullAccessUnavailable',
  'rollback-anchor-unavailable': 'workbench.error.rollbackAnchorUnavailable',
} as const satisfies Partial<Record<ErrorKind, string>>

/** The reason a person reads, in the page's language. */
export function errorText(t: TFunction, failure: unknown): string {
  const { kind, detail, status } = describeError(failure)
  switch (kind) {
    case 'refused':
      return t('workbench.error.refused', { detail })
    case 'http-status':
      return t('workbench.error.httpStatus', { status: String(status) })
    case 'unknown':
      return detail === ''
        ? t('workbench.error.unknown')
        : t('workbench.error.unknownWithDetail', { detail })
    default:
      return t(KEY[kind])
  }
}
