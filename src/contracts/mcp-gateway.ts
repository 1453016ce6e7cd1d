import { z } from 'zod'
import {
  argumentsText,
  DecidedBySchema,
  MAX_MCP_ARGUMENTS_CHARS,
  MAX_MCP_DESCRIPTION_CHARS,
  MAX_MCP_PREVIEW_CHARS,
  McpServerToolsSchema,
} from './approval.ts'
import { FormContentSchema, FormRequestSchema } from './input-request.ts'
import { McpServerIdSchema, McpToolNameSchema } from './mcp-config.ts'
import { RuntimeMessageSchema } from './runtime-message.ts'

/** The agent behind an MCP gateway room: another program, speaking MCP. It
 *  gets none of Assent's built-in tools; its calls arrive through the
 *  gateway, each gated on its own. */
export const GATEWAY_AGENT_ID = 'mcp-gateway'

const Sha256HexSchema = z.string().regex(/^[0-9a-f]{64}$/)

/** What the gateway asks the person about besides tool calls: a resource
 *  read, a prompt (which may embed a resource's content, and whose
 *  arguments may name any path) and a server's sampling request, named by
 *  their MCP method. A tool name cannot contain `/`, so no server's tool
 *  can pass for one of these (nor a grant for one answer for a tool). */
export const GOVERNED_MCP_METHODS = [
  'resources/read',
  'prompts/get',
  'sampling/createMessage',
] as const
export type GovernedMcpMethod = (typeof GOVERNED_MCP_METHODS)[number]

/** Whether "always allow" may remember an MCP action named `toolName`. A
 *  server's sampling request never: what the person judges is the request
 *  itself (its messages, its system prompt), and a grant would pass later
 *  requests, written by the server as it likes, to the model unseen. */
export function mcpActionRememberable(toolName: string): boolean {
  return toolName !== 'sampling/createMessage'
}

/** Whether an MCP action is one of the governed methods, which show no
 *  tool list: "every tool of this server" is never offered from one. */
export function isGovernedMcpMethod(toolName: string): toolName is GovernedMcpMethod {
  return (GOVERNED_MCP_METHODS as readonly string[]).includes(toolName)
}

/** A folder as the gateway pinned it (`WorkspaceIdentity`), bounded so the
 *  largest request fits the body the runtime reads: a path as long as
 *  Linux allows, and a device and inode of at most 64 bits. */
const GatewayWorkspaceSchema = z.strictObject({
  realPath: z.string().min(1).max(4096),
  dev: z.string().regex(/^\d{1,20}$/),
  ino: z.string().regex(/^\d{1,20}$/),
})

/** `POST /v1/gateway/calls`: the gateway asks for consent to one MCP call.
 *  Everything the person will be shown travels here, so it is what the
 *  approval's canonical action (and so its digest) is built from. */
export const GatewayCallRequestSchema = z.strictObject({
  /** The folder the gateway serves, as it pinned it when it started (its
   *  real path, device and inode); its calls land in that folder's gateway
   *  room, so the workbench shows them beside nothing else. The runtime
   *  finds the room by this real path, never by what the path resolves to
   *  now, and refuses the call once the folder there is not this one: a
   *  folder swapped for a link must not lead the gateway's calls to the
   *  room (and the grants) of the folder the link points to. */
  workspaceIdentity: GatewayWorkspaceSchema,
  serverId: McpServerIdSchema,
  serverName: z.string().min(1).max(80),
  toolName: z.union([McpToolNameSchema, z.enum(GOVERNED_MCP_METHODS)]),
  toolDescription: z.string().max(MAX_MCP_DESCRIPTION_CHARS),
  inputSchemaHash: Sha256HexSchema,
  definitionHash: Sha256HexSchema,
  arguments: z
    .record(z.string(), z.unknown())
    .refine(
      (args) => argumentsText(args).length <= MAX_MCP_ARGUMENTS_CHARS,
      `longer than the ${MAX_MCP_ARGUMENTS_CHARS} characters a person is shown`,
    ),
  preview: z.string().max(MAX_MCP_PREVIEW_CHARS).nullable(),
  /** Every tool the server offers now, for the offer to allow them all. */
  serverTools: McpServerToolsSchema,
  /** The folder the server works in, when the gateway started it: the
   *  runtime judges relative arguments from it as well as from the
   *  workspace. An absolute path: a relative one would be the runtime's. */
  serverFolder: z
    .string()
    .max(4096)
    .regex(/^(\/|[A-Za-z]:[\\/])/, 'must be an absolute path')
    .optional(),
})
export type GatewayCallRequest = z.infer<typeof GatewayCallRequestSchema>

/** `POST /v1/gateway/mode`: the gateway watches its room's mode, a long
 *  poll. `seen` is the `revision` of the last answer it holds (null: none,
 *  as at its start or after an error): the runtime answers at once when
 *  the room's state is another, and otherwise once it changes, or after a
 *  while with the same. */
export const GatewayModeRequestSchema = z.strictObject({
  workspaceIdentity: GatewayWorkspaceSchema,
  seen: z.string().min(1).max(200).nullable(),
})
export type GatewayModeRequest = z.infer<typeof GatewayModeRequestSchema>

/** What the gateway room's mode means for the calls the gateway would run
 *  without asking the runtime (a read-only manifest's, a preview, a read,
 *  a sampling request). `neverAsks`: the room's policy never asks anyone
 *  (plan mode), or its stored row cannot be trusted; the gateway then runs
 *  nothing unasked. `revision` names this state, for the next poll. */
export const GatewayModeSchema = z.strictObject({
  revision: z.string().min(1).max(200),
  neverAsks: z.boolean(),
})
export type GatewayMode = z.infer<typeof GatewayModeSchema>

/** `refused`: allowed, then refused by Assent before it ran (`code` says
 *  why); the gateway must not run it. */
export const GatewayCallStatusSchema = z.enum([
  'pending',
  'allowed',
  'denied',
  'expired',
  'refused',
])
export type GatewayCallStatus = z.infer<typeof GatewayCallStatusSchema>

export const GatewayCallStateSchema = z.strictObject({
  callId: z.string(),
  roomId: z.string(),
  approvalId: z.string().nullable(),
  status: GatewayCallStatusSchema,
  /** Set when a grant answered instead of the person. */
  grantId: z.string().nullable(),
  reason: z.string().nullable(),
  /** Who decided the call's approval, once someone did (the person, the
   *  approver webhook, the room's policy): the gateway's client is told
   *  who denied it, never that the person did when they did not. */
  decidedBy: DecidedBySchema.optional(),
  /** Why an approval ended without a decision, in the person's words, when
   *  it was withdrawn for a reason (its stored action changed outside
   *  Assent) rather than left to run out of time; null otherwise. The
   *  gateway's client hears that reason, as a call in a room does. */
  reasonMessage: RuntimeMessageSchema.nullable(),
  /** Why Assent refused the call, with `refused` (`workspace_moved`); null
   *  otherwise. */
  code: z.string().max(64).nullable(),
})
export type GatewayCallState = z.infer<typeof GatewayCallStateSchema>

/** What `POST /v1/gateway/calls` answers: the call's state, and a key that
 *  withdraws it. Every gateway shares one credential, so the key is what
 *  makes a call the opener's own: it travels only in this answer, and the
 *  runtime keeps only its digest. */
export const GatewayOpenedCallSchema = GatewayCallStateSchema.extend({
  cancelKey: z.string().min(32).max(128),
})
export type GatewayOpenedCall = z.infer<typeof GatewayOpenedCallSchema>

/** `POST /v1/gateway/calls/:callId/cancel`: the gateway's client cancelled
 *  the call (or went away) while the person was being asked. */
export const GatewayCallCancelSchema = z.strictObject({
  cancelKey: z.string().min(32).max(128),
})
export type GatewayCallCancel = z.infer<typeof GatewayCallCancelSchema>

/** The most of an allowed call's output the timeline keeps. */
export const MAX_GATEWAY_RESULT_CHARS = 65_536

/** `POST /v1/gateway/calls/:callId/result`: what the allowed call returned,
 *  for the timeline. It can only settle a call that was allowed. */
export const GatewayCallResultSchema = z.strictObject({
  ok: z.boolean(),
  output: z.string().max(MAX_GATEWAY_RESULT_CHARS),
})
export type GatewayCallResult = z.infer<typeof GatewayCallResultSchema>

/** The longest a form a server asks for may be, as JSON (UTF-16 units):
 *  the person reads it whole in the room, and the gateway sends it whole
 *  to the runtime (`elicitationForm` refuses a longer one, at both doors). */
export const MAX_FORM_JSON_CHARS = 65_536

/** Why a form is too long to be shown whole, or null when it is not. Each
 *  field has its limits, but fifty fields at their limits are megabytes:
 *  more than anyone reads whole. */
export function formLengthProblem(form: {
  message: string
  requestedSchema?: unknown
}): string | null {
  const length = JSON.stringify(form).length
  return length > MAX_FORM_JSON_CHARS
    ? `the form is ${length} characters, more than the ${MAX_FORM_JSON_CHARS} a person is shown`
    : null
}

/** `POST /v1/gateway/calls/:callId/elicitations`: a server's form. */
export const GatewayFormRequestSchema = FormRequestSchema.superRefine((form, context) => {
  const problem = formLengthProblem(form)
  if (problem !== null) context.addIssue({ code: 'custom', message: problem })
})

/** What a form asked through the gateway came back as, in MCP's terms
 *  (`ElicitResult`): content only with `accept`. */
export const GatewayFormOutcomeSchema = z.discriminatedUnion('action', [
  z.strictObject({ action: z.literal('accept'), content: FormContentSchema }),
  z.strictObject({ action: z.literal('decline') }),
  z.strictObject({ action: z.literal('cancel') }),
])

/** `POST /v1/gateway/calls/:callId/elicitations` (the body is a
 *  `FormRequestSchema`) and `GET /v1/gateway/elicitations/:requestId`: a
 *  server behind the gateway asking the person for input during an allowed
 *  call, shown as a form in the gateway room; long-polled like a call. */
export const GatewayElicitationStateSchema = z.discriminatedUnion('status', [
  z.strictObject({ requestId: z.string(), status: z.literal('pending') }),
  z.strictObject({
    requestId: z.string(),
    status: z.literal('answered'),
    outcome: GatewayFormOutcomeSchema,
  }),
])
export type GatewayElicitationState = z.infer<typeof GatewayElicitationStateSchema>

/** The file the runtime writes (mode 0600) in its data folder so a gateway on
 *  the same machine and account can find it. */
export const GatewayConnectionFileSchema = z.strictObject({
  version: z.literal(1),
  port: z.number().int().min(1).max(65_535),
  instanceId: z.string().min(1),
  /** Can open gateway calls and read their outcome; never decide them.
   *  Never sent as it is: the gateway and the runtime derive from it the
   *  key the gateway sends and the key that proves the runtime's answers
   *  (src/runtime/mcp/gateway-answer-proof.ts). */
  gatewayCredential: z.string().min(32).max(256),
  pid: z.number().int(),
})
export type GatewayConnectionFile = z.infer<typeof GatewayConnectionFileSchema>

export const GATEWAY_CONNECTION_FILE_NAME = 'gateway-connection.json'
