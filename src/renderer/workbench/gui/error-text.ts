import type { TFunction } from 'i18next'
import {
  WorkbenchErrorSchema,
  parseWorkbenchError,
  type WorkbenchErrorCode,
} from '../../../common/workbench-error.ts'
import { WorkbenchCallError } from './workbench-api.ts'

/**
 * What went wrong, in the page's terms. Main and the runtime name every
 * failure with a code (common/workbench-error.ts), and the person reads that
 * code's words in their language (the `errorCode` catalogs in common/i18n).
 * The English text that travels beside a code is for logs: it is never
 * shown beside the code's words, in any language, and nothing here reads it
 * to decide anything. Only a failure that arrived without a code (a host
 * refused the call before main saw it, or the page itself threw) is shown
 * by its text, for want of anything better.
 */
export interface ErrorDescription {
  code: WorkbenchErrorCode | undefined
  status: number | undefined
  /** Main's or the runtime's English text. */
  detail: string
}

/** The codes that mean the runtime no longer waits on an approval: its card
 *  must be reconciled rather than left open. */
const APPROVAL_GONE: ReadonlySet<WorkbenchErrorCode> = new Set([
  'approval_decided',
  'approval_expired',
  'unknown_approval',
])

/** The codes that mean a question or form is no longer waited for
 *  (answered, closed, stale) or unknown: its card is stale. */
const INPUT_GONE: ReadonlySet<WorkbenchErrorCode> = new Set(['not_pending', 'unknown_request'])

/** A failure's code, status and detail, wherever it came from: a relay
 *  answer or a bridge call (`WorkbenchCallError`), an error a review ended
 *  with (a `WorkbenchError`), or a rejected call nothing parsed yet. */
function partsOf(failure: unknown): ErrorDescription {
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
  const parts = partsOf(failure)
  // The relay answers 503 without a body when the runtime is not there.
  if (parts.code === undefined && parts.status === 503) return { ...parts, code: 'runtime_down' }
  return parts
}

/** True when the runtime said the approval is decided, expired or unknown. */
export function approvalGone(failure: unknown): boolean {
  const { code } = describeError(failure)
  return code !== undefined && APPROVAL_GONE.has(code)
}

/** True when the runtime said the question or form is no longer waiting
 *  or unknown: its card is stale. */
export function inputGone(failure: unknown): boolean {
  const { code } = describeError(failure)
  return code !== undefined && INPUT_GONE.has(code)
}

/** The reason a person reads, in the page's language. */
export function errorText(t: TFunction, failure: unknown): string {
  if (failure instanceof Error && failure.name === 'SecretNotSentError') {
    return t('workbench.error.secretNotSent')
  }
  const { code, status, detail } = describeError(failure)
  if (code !== undefined) return t(`errorCode.${code}`)
  if (detail !== '') return t('workbench.error.unknownWithDetail', { detail })
  if (status !== undefined) return t('workbench.error.httpStatus', { status: String(status) })
  return t('workbench.error.unknown')
}
