import { z } from 'zod'

/**
 * Every `code` the runtime's HTTP API answers with in its error body
 * `{ error, code }`: `error` is English for logs and people reading them,
 * `code` is what callers act on. The runtime maps each code to its HTTP
 * status in one table (src/runtime/server/error-status.ts); main and the
 * workbench act on the code and show it in the person's language, never by
 * matching the English text.
 */
export const RUNTIME_ERROR_CODES = [
  // The request itself: framing, body, credentials, routing.
  'malformed_request',
  'headers_too_large',
  'request_timeout',
  'wrong_host',
  'browser_origin',
  'unauthorized',
  'gateway_forbidden',
  'unexpected_query',
  'not_found',
  'method_not_allowed',
  'bad_content_type',
  'body_too_large',
  'invalid_json',
  'invalid_body',
  'unexpected_body',
  'incomplete_body',
  'invalid_last_event_id',
  'consent_required',
  // Approvals.
  'unknown_approval',
  'approval_decided',
  'approval_expired',
  'decision_in_progress',
  'always_allow_unavailable',
  // Rooms, their permissions and grants.
  'unknown_room',
  'unknown_agent',
  'invalid_workspace',
  'private_conversation_required',
  'stale_revision',
  'client_request_conflict',
  'read_only_agent',
  'agent_directory_limits',
  'room_tampered',
  'approval_tampered',
  'unknown_grant',
  // A widening while the rollback anchor could not be advanced.
  'rollback_anchor_unavailable',
  // Turns and executions.
  'unknown_turn',
  'turn_in_progress',
  'turn_not_running',
  'turn_not_stoppable',
  'execution_unknown',
  'workspace_mismatch',
  // The folder at the room's workspace path is not the one the room was
  // made for (runtime/policy/workspace-identity.ts).
  'workspace_moved',
  'unknown_execution',
  'not_unknown',
  // Questions and forms.
  'unknown_request',
  'not_pending',
  'blocking',
  'wrong_action',
  'protected_form',
  'invalid_content',
  'invalid_answer',
  // MCP gateway calls.
  'unknown_call',
  'not_running',
  'too_many_waiting',
  // The runtime itself.
  'not_durable',
  'internal',
] as const

export const RuntimeErrorCodeSchema = z.enum(RUNTIME_ERROR_CODES)
export type RuntimeErrorCode = z.infer<typeof RuntimeErrorCodeSchema>
