import { z } from 'zod'
import { RUNTIME_ERROR_CODES } from '../contracts/error-codes.ts'

/**
 * What main refuses or fails with when the workbench calls it, besides the
 * runtime's own codes (which main passes on as they are).
 */
export const MAIN_ERROR_CODES = [
  /** A bridge call with arguments other than its own (a forged decision). */
  'invalid_arguments',
  'unknown_channel',
  /** A call from anything but the workbench page's own main frame. */
  'sender_refused',
  /** A relay call that is malformed or not on the renderer allowlist. */
  'relay_refused',
  'runtime_down',
  /** The review closed because the runtime restarted under it. */
  'runtime_restarted',
  'app_closing',
  /** The review closed because the person sent a message instead. */
  'rejected_by_message',
  'full_access_unavailable',
  'not_sensitive_form',
  /** The protected window's values do not fit the form's schema. */
  'form_invalid',
  'window_not_shown',
  /** The protected window left the consent page (a navigation), so it closed. */
  'window_left_page',
  /** The runtime answered in a shape main cannot read: nothing is assumed. */
  'runtime_unreadable',
  /** Anything else; the detail says what. */
  'main_failed',
] as const

export const WORKBENCH_ERROR_CODES = [...RUNTIME_ERROR_CODES, ...MAIN_ERROR_CODES] as const
export const WorkbenchErrorCodeSchema = z.enum(WORKBENCH_ERROR_CODES)
export type WorkbenchErrorCode = z.infer<typeof WorkbenchErrorCodeSchema>

/** Long enough for any message main or the runtime writes. */
export const MAX_ERROR_DETAIL_CHARS = 2_000

/**
 * A failure as it crosses from main to the workbench: what went wrong, as a
 * code the page words in the person's language, and main's English detail,
 * shown only as a detail and never matched.
 */
export const WorkbenchErrorSchema = z.strictObject({
  code: WorkbenchErrorCodeSchema,
  detail: z.string().max(MAX_ERROR_DETAIL_CHARS),
})
export type WorkbenchError = z.infer<typeof WorkbenchErrorSchema>

export function workbenchError(code: WorkbenchErrorCode, detail: string): WorkbenchError {
  return { code, detail: detail.slice(0, MAX_ERROR_DETAIL_CHARS) }
}

/** Marks a rejected call's message as carrying a `WorkbenchError`. Both hosts
 *  carry only the message of an error main throws (Electron prefixes it with
 *  its own "Error invoking remote method …"), so the error travels inside it. */
const WIRE_PREFIX = 'assent-error:'

/** The message of the error main rejects a workbench call with. */
export function encodeWorkbenchError(error: WorkbenchError): string {
  return `${WIRE_PREFIX}${JSON.stringify(error)}`
}

/** The `WorkbenchError` inside a rejected call's message, or undefined when
 *  there is none (a host refused the call before main saw it). */
export function parseWorkbenchError(message: string): WorkbenchError | undefined {
  const at = message.indexOf(WIRE_PREFIX)
  if (at === -1) return undefined
  let value: unknown
  try {
    value = JSON.parse(message.slice(at + WIRE_PREFIX.length))
  } catch {
    return undefined
  }
  const parsed = WorkbenchErrorSchema.safeParse(value)
  return parsed.success ? parsed.data : undefined
}
