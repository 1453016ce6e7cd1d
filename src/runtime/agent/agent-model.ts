import type { FormRequest, Question } from '../contracts/input-request.ts'
import type { ToolEffect } from '../contracts/policy.ts'
import type { Message, ToolCallRecord, ToolCallStatus } from '../contracts/room.ts'

export type AgentToolCall = { tool: string; arguments: Record<string, unknown> }

/** One thing the agent asks to do: a tool call, a request with one or more
 *  questions for the person, or a form. */
export type AgentAction =
  | { type: 'tool'; call: AgentToolCall }
  | { type: 'questions'; questions: Question[]; blocking: boolean }
  | { type: 'form'; form: FormRequest }

/** What the model answers at each step: actions to take (with what it says
 *  while taking them), or its final reply, which ends the turn. */
export type AgentStep =
  { type: 'act'; say: string; actions: AgentAction[] } | { type: 'reply'; text: string }

/** How one action of this turn ended, as the model sees it. A tool call that
 *  was refused, denied or expired never ran; its `result` says why. */
export type ActionOutcome =
  | {
      type: 'tool'
      call: AgentToolCall
      status: ToolCallStatus
      result: NonNullable<ToolCallRecord['result']>
    }
  | { type: 'questions' | 'form'; reply: string }

/** A built-in tool the agent may call in this room, and what it does. */
export interface AgentToolInfo {
  name: string
  effect: ToolEffect
}

export interface AgentContext {
  /** The room's messages before this turn, oldest first, at most
   *  `AGENT_HISTORY_MESSAGES` of them. */
  history: Pick<Message, 'role' | 'text'>[]
  /** The person's message this turn answers. */
  userText: string
  /** The built-in tools this agent may call. MCP tools are named
   *  `server__tool` and are checked when called. */
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
