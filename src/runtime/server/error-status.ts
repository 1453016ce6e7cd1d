import type { RuntimeErrorCode } from '../../contracts/error-codes.ts'

/**
 * The HTTP status of every error code, in one place: the rest of the
 * runtime names what went wrong, and only the server turns that into a
 * status. Typed over the whole code list, so a new code without a status
 * does not compile.
 */
export const HTTP_STATUS_OF: Readonly<Record<RuntimeErrorCode, number>> = Object.freeze({
  malformed_request: 400,
  headers_too_large: 431,
  request_timeout: 408,
  wrong_host: 421,
  browser_origin: 403,
  unauthorized: 401,
  gateway_forbidden: 403,
  unexpected_query: 400,
  not_found: 404,
  method_not_allowed: 405,
  bad_content_type: 400,
  body_too_large: 400,
  invalid_json: 400,
  invalid_body: 400,
  unexpected_body: 400,
  incomplete_body: 400,
  invalid_last_event_id: 400,
  consent_required: 403,

  unknown_approval: 404,
  approval_decided: 409,
  approval_expired: 410,
  decision_in_progress: 409,
  always_allow_unavailable: 409,

  unknown_room: 404,
  unknown_agent: 400,
  invalid_workspace: 400,
  private_conversation_required: 409,
  stale_revision: 409,
  client_request_conflict: 409,
  read_only_agent: 409,
  agent_directory_limits: 409,
  room_tampered: 409,
  approval_tampered: 409,
  unknown_grant: 404,
  rollback_anchor_unavailable: 503,

  unknown_turn: 404,
  turn_in_progress: 409,
  turn_not_running: 409,
  turn_not_stoppable: 409,
  execution_unknown: 409,
  workspace_mismatch: 409,
  workspace_moved: 409,
  unknown_execution: 404,
  not_unknown: 409,

  unknown_request: 404,
  not_pending: 409,
  blocking: 409,
  wrong_action: 400,
  protected_form: 403,
  invalid_content: 400,
  invalid_answer: 400,

  unknown_call: 404,
  not_running: 409,
  too_many_waiting: 429,

  not_durable: 503,
  internal: 500,
})

export function httpStatusOf(code: RuntimeErrorCode): number {
  return HTTP_STATUS_OF[code]
}
