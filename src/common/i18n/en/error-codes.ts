import type { WorkbenchErrorCode } from '../../workbench-error.ts'

/**
 * What a person reads when the runtime or main refuses or fails, one entry
 * per code (src/contracts/error-codes.ts and src/common/workbench-error.ts).
 * The English text a refusal carries beside its code is for logs and is
 * never shown: each entry says all the person needs. Typed over every code,
 * so a new code is a compile error here and, through `Catalog`, in every
 * other language until someone words it.
 */
export const enErrorCodes = {
  // The runtime's: the request itself.
  malformed_request: 'the runtime refused a request it could not read',
  headers_too_large: 'the runtime refused a request whose headers were too large',
  request_timeout: 'the request took too long to arrive, so the runtime dropped it',
  wrong_host: 'the runtime refused a request addressed to another host',
  browser_origin: 'the runtime refuses every request that comes from a web browser',
  unauthorized: 'the runtime refused a request that did not carry Assent’s credential',
  gateway_forbidden: 'the MCP gateway may not make this request',
  unexpected_query: 'the runtime refused a request with parameters it does not take',
  not_found: 'the runtime does not know this request',
  method_not_allowed: 'the runtime does not take this kind of request here',
  bad_content_type: 'the runtime refused a request whose body is not JSON',
  body_too_large: 'the request is too large for the runtime',
  invalid_json: 'the runtime refused a request whose body is not valid JSON',
  invalid_body: 'the runtime refused a request with values it does not accept',
  unexpected_body: 'the runtime refused a request that carried a body it does not take',
  incomplete_body: 'the request reached the runtime incomplete',
  invalid_last_event_id: 'the runtime could not resume its updates from where they stopped',
  consent_required: 'this needs your decision in the protected window',
  // Approvals.
  unknown_approval: 'the runtime no longer knows this approval',
  approval_decided: 'the agent is no longer waiting for this approval',
  approval_expired: 'the approval expired before it was decided',
  decision_in_progress: 'another review of this is already open',
  always_allow_unavailable: '“Always allow” is not offered for this action',
  // Rooms, their permissions and grants.
  unknown_room: 'the runtime does not know this room',
  unknown_agent: 'there is no such agent',
  invalid_workspace:
    'the workspace folder does not exist, or cannot be one (the file-system root, your home folder itself or a system folder)',
  private_conversation_required: 'this is only available in a private conversation with an agent',
  stale_revision: 'the room changed meanwhile; try again',
  client_request_conflict: 'this request was already sent with other content',
  read_only_agent: 'full access is not available for this agent: it is read-only',
  agent_directory_limits:
    'full access is not available for this agent: it may use only certain folders',
  room_tampered:
    'this room was changed outside Assent and cannot be confirmed: confirm the room’s mode again, or create a new room',
  approval_tampered:
    'this approval was changed outside Assent after the agent asked: it was withdrawn and nothing runs',
  unknown_grant: 'that grant was already revoked',
  rollback_anchor_unavailable:
    'Assent could not update the record it keeps in the keychain, so nothing is widened until it can; try again',
  // Turns and executions.
  unknown_turn: 'the runtime does not know this turn',
  turn_in_progress: 'the request is still running',
  turn_not_running: 'the request has already ended',
  turn_not_stoppable:
    'the built-in agent’s turn cannot be stopped: it ends when what it waits for is decided; deny its request to end it',
  execution_unknown:
    'a call of this turn ended with an unknown outcome: settle it before trying again',
  workspace_mismatch:
    'this turn’s record does not match its room: the database was changed outside Assent',
  workspace_moved:
    'the folder at this room’s workspace path is not the one the room was made for: confirm the room’s mode again to accept it, or create a new room',
  unknown_execution: 'the runtime does not know this call',
  not_unknown: 'only a call whose outcome is unknown can be settled',
  // Questions and forms.
  unknown_request: 'the agent is no longer waiting for this answer',
  not_pending: 'the agent is no longer waiting for this answer',
  blocking: 'this question waits for an answer and has no time limit to change',
  wrong_action: 'this answer does not fit this kind of request',
  protected_form: 'this form is answered only in the protected window',
  invalid_content: 'the values entered do not fit the form',
  invalid_answer: 'the answer does not fit the question: every question needs one of its options',
  // MCP gateway calls.
  unknown_call: 'the runtime does not know this MCP call',
  not_running: 'this MCP call is no longer running',
  too_many_waiting:
    'too many MCP calls already wait for your decision: this one was refused without asking; it did not run',
  // The runtime itself.
  not_durable: 'the runtime could not confirm that this was saved to disk',
  internal: 'the runtime failed unexpectedly',
  // Main's.
  invalid_arguments: 'Assent refused a request with values it does not take',
  unknown_channel: 'Assent does not know this request',
  sender_refused: 'Assent takes this request only from its own workbench page',
  relay_refused: 'Assent does not pass this request on to the runtime',
  runtime_down: 'the runtime is not running',
  runtime_restarted: 'the runtime restarted',
  app_closing: 'Assent is closing',
  rejected_by_message: 'a new message rejected it',
  full_access_unavailable: 'full access is not available for this agent',
  not_sensitive_form: 'this form is answered in the workbench, not in the protected window',
  form_invalid: 'the values entered do not fit the form',
  window_not_shown: 'the protected window could not be shown',
  window_left_page: 'the protected window left its page, so it closed: review it again',
  runtime_unreadable: 'the runtime answered in a way Assent cannot read, so nothing is assumed',
  main_failed: 'Assent failed unexpectedly',
} as const satisfies Readonly<Record<WorkbenchErrorCode, string>>
