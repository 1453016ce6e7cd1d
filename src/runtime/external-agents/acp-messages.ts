import type {
  AGENT_METHODS,
  CLIENT_METHODS,
  PermissionOptionKind,
  ProtocolVersion,
  RequestPermissionOutcome,
  StopReason,
  ToolCallStatus as AcpToolCallStatus,
} from '@agentclientprotocol/sdk'
import { z } from 'zod'
import type { ToolCallStatus } from '../../contracts/room.ts'
import type { ExternalDecision } from './external-agent-port.ts'

/**
 * The parts of the Agent Client Protocol (ACP, protocol version 1) that the
 * client reads. Agents add fields, so objects are loose: unknown keys are
 * tolerated and never read. A message without a field the client uses does
 * not parse and is never acted on.
 *
 * The protocol's names and shapes come from the official SDK
 * (`@agentclientprotocol/sdk`, as types only): what the client sends is
 * checked against the SDK's request types, and what it parses must fit the
 * SDK's types. The parsing itself stays Assent's own zod schemas
 * (docs/agents-external.md says why): they bound every string and list, and
 * read only what the client uses.
 */

export const ACP_PROTOCOL_VERSION = 1 satisfies ProtocolVersion

/** The methods the client calls, and those it answers, by the SDK's names
 *  (acp-messages.test.ts checks them against the SDK's own tables). */
export const ACP_METHODS = Object.freeze({
  initialize: 'initialize',
  newSession: 'session/new',
  setMode: 'session/set_mode',
  prompt: 'session/prompt',
  cancel: 'session/cancel',
  requestPermission: 'session/request_permission',
  sessionUpdate: 'session/update',
} as const satisfies Record<
  string,
  | (typeof AGENT_METHODS)[keyof typeof AGENT_METHODS]
  | (typeof CLIENT_METHODS)[keyof typeof CLIENT_METHODS]
>)

/** Any text an agent sends: bounded, so no message holds more than this. */
export const AcpText = z.string().max(16 * 1024 * 1024)
const Id = z.string().min(1).max(512)

export const AcpInitializeResultSchema = z.looseObject({
  protocolVersion: z.number().int(),
  /** Who the agent says it is; read only to tell one built on Codex. */
  agentInfo: z.looseObject({ name: z.string().max(256) }).optional(),
})

export const AcpNewSessionResultSchema = z.looseObject({
  sessionId: Id,
  modes: z
    .looseObject({
      currentModeId: z.string(),
      availableModes: z.array(z.looseObject({ id: z.string() })).max(256),
    })
    .nullable()
    .optional(),
})

/** Answers whose content the client does not use (`session/set_mode`). */
export const AcpEmptyResultSchema = z.looseObject({}).nullable()

const STOP_REASONS = [
  'end_turn',
  'max_tokens',
  'max_turn_requests',
  'refusal',
  'cancelled',
] as const satisfies readonly StopReason[]
export const AcpPromptResultSchema = z.looseObject({ stopReason: z.enum(STOP_REASONS) })
export type AcpStopReason = StopReason

/** One item of a tool call's content. Only text and diffs are read. */
const ContentItemSchema = z.looseObject({ type: z.string() })
const TextContentSchema = z.looseObject({
  type: z.literal('content'),
  content: z.looseObject({ type: z.literal('text'), text: AcpText }),
})

/** A tool call, or an update to one: only `toolCallId` is always there. */
export const AcpToolCallSchema = z.looseObject({
  toolCallId: Id,
  title: AcpText.optional(),
  kind: z.string().max(64).optional(),
  status: z.string().max(64).optional(),
  content: z.array(ContentItemSchema).max(4096).nullable().optional(),
  rawInput: z.unknown().optional(),
  rawOutput: z.unknown().optional(),
  /** The files the call touches, as the agent names them. */
  locations: z
    .array(z.looseObject({ path: AcpText }))
    .max(4096)
    .nullable()
    .optional(),
})
export type AcpToolCall = z.infer<typeof AcpToolCallSchema>

export const AcpSessionUpdateSchema = z.looseObject({
  sessionId: Id,
  update: z.looseObject({ sessionUpdate: z.string() }),
})
export const AcpMessageChunkSchema = z.looseObject({
  content: z.looseObject({ type: z.literal('text'), text: AcpText }),
})
export const AcpModeUpdateSchema = z.looseObject({ currentModeId: z.string() })

const PermissionOptionSchema = z.looseObject({
  optionId: Id,
  name: AcpText.optional(),
  /** `allow_once`, `allow_always`, `reject_once`, `reject_always`
   *  (`PermissionOptionKind`); any other kind is never chosen. */
  kind: z.string().max(64),
})
export type AcpPermissionOption = z.infer<typeof PermissionOptionSchema>

export const AcpPermissionRequestSchema = z.looseObject({
  sessionId: Id,
  toolCall: AcpToolCallSchema,
  options: z.array(PermissionOptionSchema).min(1).max(64),
})

/** The answer to a permission request: exactly the SDK's outcome type. */
export type AcpPermissionOutcome = RequestPermissionOutcome

const ALLOW_ONCE: PermissionOptionKind = 'allow_once'
const REJECT_ONCE: PermissionOptionKind = 'reject_once'

/**
 * Assent's decision as an ACP permission outcome. An allow, allow-always
 * included, is the agent's `allow_once` option and never `allow_always`:
 * "always" is Assent's own grant, and the agent must keep asking so that
 * revoking the grant takes effect. A denial or expiry is the `reject_once`
 * option (never `reject_always`, which would make the agent refuse later
 * requests without anyone asked), or `cancelled` when there is none.
 * An option id shared with an option of another kind is never chosen.
 */
export function acpOutcomeFor(
  decision: ExternalDecision,
  options: readonly AcpPermissionOption[],
): AcpPermissionOutcome {
  const wanted =
    decision === 'allow-once' || decision === 'allow-always'
      ? ALLOW_ONCE
      : decision === 'cancelled'
        ? null
        : REJECT_ONCE
  // Cancelled wants none: no option's kind is null.
  const option = options.find((o) => o.kind === wanted)
  // Checked here too, not only when the request is parsed: an id that also
  // names an option of another kind is never sent.
  const ambiguous = options.some((o) => o.optionId === option?.optionId && o.kind !== wanted)
  return option && !ambiguous
    ? { outcome: 'selected', optionId: option.optionId }
    : { outcome: 'cancelled' }
}

/** The answer as the timeline shows it: the option id, or `cancelled`. */
export function acpAnswerText(outcome: AcpPermissionOutcome): string {
  return outcome.outcome === 'selected' ? outcome.optionId : 'cancelled'
}

/** The text a tool call reported: its text content, or its raw output. */
export function acpToolOutput(toolCall: AcpToolCall): string | null {
  const texts = (toolCall.content ?? []).flatMap((item) => {
    const text = TextContentSchema.safeParse(item)
    return text.success ? [text.data.content.text] : []
  })
  if (texts.length > 0) return texts.join('\n')
  if (toolCall.rawOutput === undefined || toolCall.rawOutput === null) return null
  return typeof toolCall.rawOutput === 'string'
    ? toolCall.rawOutput
    : JSON.stringify(toolCall.rawOutput)
}

/** An ACP tool-call status as a timeline tool-call status. */
export function acpToolStatus(status: AcpToolCallStatus | string | undefined): ToolCallStatus {
  switch (status) {
    case 'completed':
      return 'succeeded'
    case 'failed':
      return 'failed'
    case 'pending':
    case 'in_progress':
      return 'running'
    default:
      return 'unknown'
  }
}
