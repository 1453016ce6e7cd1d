import { z } from 'zod'
import { FormRequestSchema, QuestionSchema } from '../../contracts/input-request.ts'
import type { ToolEffect } from '../../contracts/policy-axes.ts'
import type { Message, ToolCallRecord, ToolCallStatus } from '../../contracts/room.ts'
import { RuntimeMessageSchema, type RuntimeMessage } from '../../contracts/runtime-message.ts'

/** Bounds on one step, so a runaway model cannot flood the room: far more
 *  than a turn needs, small enough to read. */
export const MAX_ACTIONS_PER_STEP = 50
export const MAX_AGENT_TEXT_CHARS = 64 * 1024

export const AgentToolCallSchema = z.strictObject({
  tool: z.string().min(1).max(256),
  arguments: z.record(z.string(), z.unknown()),
})
export type AgentToolCall = z.infer<typeof AgentToolCallSchema>

/** A permission the room does not give, as the agent asks for it, for
 *  this turn only: write access to one more directory (absolute, or
 *  relative to the workspace), or network access for one command line. */
export const AgentPermissionRequestSchema = z.strictObject({
  widen: z.discriminatedUnion('type', [
    z.strictObject({ type: z.literal('write-directory'), path: z.string().min(1).max(4_096) }),
    z.strictObject({
      type: z.literal('network'),
      argv: z.array(z.string().max(131_072)).min(1).max(1_024),
    }),
  ]),
  reason: z.string().max(2_000),
})
export type AgentPermissionRequest = z.infer<typeof AgentPermissionRequestSchema>

/** One thing the agent asks to do: a tool call, a request with one or more
 *  questions for the person, a form, or a permission for this turn. */
export const AgentActionSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('tool'), call: AgentToolCallSchema }),
  z.strictObject({
    type: z.literal('questions'),
    questions: z.array(QuestionSchema).min(1).max(20),
    blocking: z.boolean(),
  }),
  z.strictObject({ type: z.literal('form'), form: FormRequestSchema }),
  z.strictObject({ type: z.literal('permissions'), request: AgentPermissionRequestSchema }),
])
export type AgentAction = z.infer<typeof AgentActionSchema>

/** What the model answers at each step: actions to take (with what it says
 *  while taking them), or its final reply, which ends the turn. The runner
 *  parses every answer with this schema: a model is outside the runtime's
 *  trust, and an answer that does not fit fails the turn. */
export const AgentStepSchema = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('act'),
    say: z.string().max(MAX_AGENT_TEXT_CHARS),
    /** `say` as a code, for the person's language (the offline model). */
    sayMessage: RuntimeMessageSchema.optional(),
    actions: z.array(AgentActionSchema).min(1).max(MAX_ACTIONS_PER_STEP),
  }),
  z.strictObject({
    type: z.literal('reply'),
    text: z.string().max(MAX_AGENT_TEXT_CHARS),
    /** `text` as a code, for the person's language (the offline model). */
    message: RuntimeMessageSchema.optional(),
  }),
])
export type AgentStep = z.infer<typeof AgentStepSchema>

/** How one action of this turn ended, as the model sees it. A tool call that
 *  was refused, denied or expired never ran; its `result` says why. */
export type ActionOutcome =
  | {
      type: 'tool'
      call: AgentToolCall
      status: ToolCallStatus
      result: NonNullable<ToolCallRecord['result']>
    }
  | { type: 'questions' | 'form'; reply: string; replyMessage?: RuntimeMessage }
  /** A permission request: granted (`succeeded`: it holds for the rest of
   *  the turn), refused without asking, denied, or left to expire. */
  | {
      type: 'permissions'
      request: AgentPermissionRequest
      status: ToolCallStatus
      result: NonNullable<ToolCallRecord['result']>
    }

/** A built-in tool the agent may call in this room, and what it does. */
export interface AgentToolInfo {
  name: string
  effect: ToolEffect
}

export interface AgentContext {
  /** The room's recent messages besides this request's own (of any of its
   *  attempts), oldest first, at most `AGENT_HISTORY_MESSAGES` of them. */
  history: Pick<Message, 'role' | 'text'>[]
  /** The person's message this turn answers: here once, also on a retry. */
  userText: string
  /** The built-in tools this agent may call: in plan mode only those that
   *  run with nobody asked. MCP tools are named `server__tool` and are
   *  checked when called (in plan mode, none is offered). */
  tools: AgentToolInfo[]
  /** Every action taken so far in this turn, in order, with its outcome. */
  outcomes: ActionOutcome[]
}

export const AGENT_HISTORY_MESSAGES = 20

/**
 * Port for whatever decides what the agent does next: the offline model, or
 * a real model client. It is called once per step, with everything that
 * happened in the turn so far, until it replies.
 *
 * Invariant: a model only proposes. Every tool call it returns still goes
 * through the turn's frozen policy, the sandbox, the agent's ceilings and
 * the approval gate, so an adapter needs no trust and must not act on its
 * own. It may be slow or throw (the turn then fails with the error shown);
 * the runner bounds the number of steps (`MAX_AGENT_STEPS`), so a model that
 * never replies cannot hold a turn open forever.
 */
export interface AgentModel {
  next(context: AgentContext): Promise<AgentStep>
}
