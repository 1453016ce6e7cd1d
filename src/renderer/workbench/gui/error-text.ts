import type { TFunction } from 'i18next'
import { WorkbenchCallError } from './workbench-api.ts'

/**
 * What went wrong, in the page's terms. Main and the runtime answer in
 * English for logs and for each other; the person reads one of these,
 * translated, and the raw text only where nothing here recognises it.
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
  | 'window-closed'
  | 'window-left-page'
  | 'workspace-not-absolute'
  | 'workspace-missing'
  | 'agent-unknown'
  | 'room-unknown'
  | 'grant-unknown'
  | 'room-changed'
  | 'turn-in-progress'
  | 'refused'
  | 'http-status'
  | 'unknown'

export interface ErrorDescription {
  kind: ErrorKind
  /** The raw text, cleaned of the IPC wrapper: shown only as a detail. */
  detail: string
  status: number | undefined
}

/** The kinds that mean the runtime no longer waits on an approval: its card
 *  must be reconciled rather than left open. */
const APPROVAL_GONE: ReadonlySet<ErrorKind> = new Set([
  'approval-not-pending',
  'approval-expired',
  'approval-unknown',
])

// Codes first (the runtime's `{ code }`), then the texts main and the
// runtime are known to send (src/main/core/consent-*.ts, the approval gate,
// the renderer relay). Order matters: the first match wins.
const BY_CODE: Readonly<Record<string, ErrorKind>> = {
  unknown_approval: 'approval-unknown',
  approval_expired: 'approval-expired',
  not_pending: 'input-not-waiting',
  unknown_request: 'input-not-waiting',
  unknown_agent: 'agent-unknown',
  unknown_room: 'room-unknown',
  unknown_grant: 'grant-unknown',
  stale_revision: 'room-changed',
  turn_in_progress: 'turn-in-progress',
}
const BY_TEXT: ReadonlyArray<readonly [RegExp, ErrorKind]> = [
  [/workspace: must be an absolute path/i, 'workspace-not-absolute'],
  [/workspace: must be an existing directory/i, 'workspace-missing'],
  [/unknown approval/i, 'approval-unknown'],
  [/no longer pending|already decided|not_pending/i, 'approval-not-pending'],
  [/approval expired|approval \S+ has expired/i, 'approval-expired'],
  [/runtime restarted/i, 'runtime-restarted'],
  [/runtime is not running/i, 'runtime-down'],
  [/app is closing/i, 'app-closing'],
  [/rejected by a new message/i, 'rejected-by-message'],
  [/no longer waiting/i, 'input-not-waiting'],
  [/different decision is in progress|already has a prompt/i, 'review-busy'],
  [/closed before it was shown/i, 'window-closed'],
  [/review window left its page/i, 'window-left-page'],
  [/^refused:|not allowed from the workbench|malformed workbench call/i, 'refused'],
]

// Electron wraps a rejected `ipcRenderer.invoke` as
// "Error invoking remote method 'channel': Error: <message>".
const IPC_WRAPPER = /^Error invoking remote method '[^']*':\s*(?:\w*Error:\s*)?/

export function describeError(failure: unknown): ErrorDescription {
  const raw =
    failure instanceof Error ? failure.message : typeof failure === 'string' ? failure : ''
  const detail = raw.replace(IPC_WRAPPER, '').trim()
  const status = failure instanceof WorkbenchCallError ? failure.status : undefined
  const code = failure instanceof WorkbenchCallError ? failure.code : undefined
  if (failure instanceof Error && failure.name === 'SecretNotSentError') {
    return { kind: 'secret-not-sent', detail, status }
  }
  const byCode = code === undefined ? undefined : BY_CODE[code]
  if (byCode) return { kind: byCode, detail, status }
  for (const [pattern, kind] of BY_TEXT) {
    if (pattern.test(detail)) return { kind, detail, status }
  }
  if (status === 503) return { kind: 'runtime-down', detail, status }
  if (detail === '' && status !== undefined) return { kind: 'http-status', detail, status }
  return { kind: 'unknown', detail, status }
}

/** True when the runtime said the approval is decided, expired or unknown. */
export function approvalGone(failure: unknown): boolean {
  return APPROVAL_GONE.has(describeError(failure).kind)
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
  'window-closed': 'workbench.error.windowClosed',
  'window-left-page': 'workbench.error.windowLeftPage',
  'workspace-not-absolute': 'workbench.error.workspaceNotAbsolute',
  'workspace-missing': 'workbench.error.workspaceMissing',
  'agent-unknown': 'workbench.error.agentUnknown',
  'room-unknown': 'workbench.error.roomUnknown',
  'grant-unknown': 'workbench.error.grantUnknown',
  'room-changed': 'workbench.error.roomChanged',
  'turn-in-progress': 'workbench.error.turnInProgress',
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
