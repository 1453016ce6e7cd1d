import { quotedCommandLine } from '../../contracts/shell-quoting.ts'
import type { AcpActionReading } from './acp-tool-call-reading.ts'
import type { ExternalRefusalCode } from './external-agent-port.ts'

// What an ACP tool call's raw input asks for beside the call
// (acp-tool-call-reading.ts): the fields that widen what it may do, which
// are refused, and the command an execute call runs, with the fields that
// may sit beside it and say nothing of what runs or where.

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === 'string')
}

/** A value that says nothing: no flag set (`null`, `false`, left out). */
export function isAbsent(value: unknown): value is null | undefined | false {
  return value === null || value === undefined || value === false
}

/**
 * Fields of a raw input that ask for more than the call: Codex's exec
 * approval (`ExecApprovalRequestEvent`, which codex-acp forwards whole)
 * for network access to a host (`network_approval_context`) or rules for
 * hosts (`proposed_network_policy_amendments`), for folders to write and
 * other permissions beside the command (`additional_permissions`,
 * `sandbox_permissions`), and Codex's own permission request
 * (`request_permissions`: a `permissions` profile whose allow widens the
 * sandbox of every later command of the turn). The agent's allow-once
 * option runs the call with them and the window would show none, so a call
 * that carries one, of any kind, is refused without asking anyone, as the
 * Codex app-server door refuses the same requests.
 */
const WIDENING_FIELDS: ReadonlyArray<readonly [string, ExternalRefusalCode, string]> = [
  ['network_approval_context', 'network-access', 'a command that asks for network access'],
  ['proposed_network_policy_amendments', 'network-access', 'a command that proposes network rules'],
  ['additional_permissions', 'extra-permissions', 'a command that asks for extra permissions'],
  ['sandbox_permissions', 'extra-permissions', 'a command that asks for other sandbox permissions'],
  ['permissions', 'unsupported-request', 'a request that widens the sandbox for the turn'],
]

/** The refusal of a raw input that carries a widening field, set to
 *  anything but null; null when it carries none. */
export function wideningOf(rawInput: unknown): AcpActionReading | null {
  if (typeof rawInput !== 'object' || rawInput === null) return null
  const fields = rawInput as Record<string, unknown>
  for (const [field, refused, detail] of WIDENING_FIELDS) {
    if (Object.hasOwn(fields, field) && fields[field] !== null) {
      return { refused, detail: `${detail} (${field})` }
    }
  }
  return null
}

/**
 * Fields that may sit beside a command's `command`, `args` and `cwd`, each
 * saying nothing of what runs or where, as the pinned agents send them:
 * codex-acp's exec approval (its ids `call_id`, `approval_id`, `turn_id`,
 * `started_at_ms`, the model's `reason`, Codex's own reading of the line
 * `parsed_cmd`, the answers it takes `available_decisions`, and
 * `proposed_execpolicy_amendment`, the rule only its allow-always answer
 * adds, which Assent never gives), what its report of a command it
 * started says besides (`source`, who started it, and `process_id`), and
 * claude-agent-acp's Bash (`description`, and `timeout`, a bound on how
 * long it runs). Any other
 * field that is not absent (`run_in_background: true`, a folder as
 * `workdir` or `directory`) may change what runs, or where, or for how
 * long: the call is then shown whole.
 */
export const COMMAND_TEXT_FIELDS: ReadonlySet<string> = new Set([
  'call_id',
  'approval_id',
  'turn_id',
  'started_at_ms',
  'reason',
  'parsed_cmd',
  'available_decisions',
  'proposed_execpolicy_amendment',
  'source',
  'process_id',
  'description',
  'timeout',
])

/**
 * The command a raw input runs: its `command` as a line, or as an argument
 * vector with the `args` beside it (`{ command: "cp", args: ["x", "y"] }`,
 * as an ACP client's terminal takes it), quoted as no shell reads it
 * (`args` are the command's words, never left out of what is shown and
 * judged). Null for anything else, `args` that are not all strings
 * included: the call is then read as the agent's own tool, whole.
 */
export function commandOf(
  command: unknown,
  args: unknown,
): { commandLine: string; argv: string[] | null } | null {
  const noArgs = args === undefined || args === null || (Array.isArray(args) && args.length === 0)
  if (!noArgs && !isStringArray(args)) return null
  const rest = isStringArray(args) ? args : []
  const argv = isStringArray(command)
    ? [...command, ...rest]
    : typeof command === 'string' && command !== '' && rest.length > 0
      ? [command, ...rest]
      : null
  if (argv !== null) return { commandLine: quotedCommandLine(argv), argv }
  return typeof command === 'string' && command !== '' ? { commandLine: command, argv: null } : null
}
