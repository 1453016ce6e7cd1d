import { randomUUID } from 'node:crypto'
import type { Turn } from '../../contracts/room.ts'
import { englishText, message, type RuntimeMessage } from '../../contracts/runtime-message.ts'
import type { EventBus } from '../events/event-bus.ts'
import type { ApprovalRequester } from '../gate/approval-requester.ts'
import type { InputRequestService } from '../input/input-request-service.ts'
import { TOOLS } from '../tools/registry.ts'
import {
  AGENT_HISTORY_MESSAGES,
  AgentStepSchema,
  type ActionOutcome,
  type AgentAction,
  type AgentContext,
  type AgentModel,
} from './agent-model.ts'
import { fullAccessBlocker, type AgentPreset } from '../domain/agent-preset.ts'
import type { ConversationStore } from '../ports/conversation-store.ts'
import type { WhenDurable } from '../ports/durability.ts'
import type { GrantStore } from '../ports/grant-store.ts'
import type { McpToolCalls } from '../ports/mcp-tool-calls.ts'
import type { TurnRunner } from '../ports/turn-runner.ts'
import { askInTurn } from './input-steps.ts'
import { ToolCallRunner } from './tool-call-runner.ts'

export { DEFAULT_TOOL_TIMEOUT_MS } from './tool-call-runner.ts'
export { REVIEWER_TIMEOUT_MS } from '../gate/approval-requester.ts'

/** Steps the model may take in one turn before the turn is stopped. The
 *  offline model needs two (act, then report); a real model that keeps
 *  calling tools without replying is stopped here rather than looping. */
export const MAX_AGENT_STEPS = 8

export interface AgentRunnerOptions {
  conversations: ConversationStore
  grants: GrantStore
  /** Where a tool call that needs a decision asks for one. */
  requester: ApprovalRequester
  inputs: InputRequestService
  events: EventBus
  model: AgentModel
  agentFor: (agentId: string) => AgentPreset | undefined
  now: () => number
  /** Resolves once every write committed so far is on disk (the store's
   *  group commit, store/durability.ts). */
  durable: WhenDurable
  /** MCP tool calls (`server__tool`); without it, such a name is unknown. */
  mcp?: McpToolCalls
  newId?: () => string
}

/**
 * Runs turns of the agent: asks the model for its next step, takes the
 * actions it proposes (each tool call through `ToolCallRunner`, each
 * question or form through the input service), hands it their outcomes, and
 * repeats until it replies or `MAX_AGENT_STEPS` is reached.
 */
export class AgentRunner implements TurnRunner {
  private readonly options: AgentRunnerOptions
  private readonly newId: () => string
  private readonly tools: ToolCallRunner
  private readonly active = new Set<Promise<void>>()

  constructor(options: AgentRunnerOptions) {
    this.options = options
    this.newId = options.newId ?? randomUUID
    this.tools = new ToolCallRunner({ ...options, newId: this.newId })
  }

  /** Starts the turn in the background; `settled()` waits for all of them. */
  start(turn: Turn, agentId: string): void {
    const work = this.runTurn(turn, agentId).finally(() => this.active.delete(work))
    this.active.add(work)
  }

  async settled(): Promise<void> {
    while (this.active.size > 0) await Promise.allSettled([...this.active])
  }

  private async runTurn(turn: Turn, agentId: string): Promise<void> {
    const agent = this.options.agentFor(agentId)
    if (!agent) {
      return this.finishTurn(turn, 'failed', message('turn.agentNotConfigured', { agent: agentId }))
    }
    // Ceilings are checked again at admission: a full-access policy stored
    // for an agent that may not have it never reaches a tool.
    const blocker = fullAccessBlocker(agent)
    if (turn.policy.sandboxMode === 'danger-full-access' && blocker) {
      return this.finishTurn(
        turn,
        'failed',
        message(blocker === 'read_only_agent' ? 'turn.readOnlyAgent' : 'turn.agentDirectoryLimits'),
      )
    }
    try {
      const context = this.contextFor(turn, agent)
      let seq = 0
      for (let step = 0; step < MAX_AGENT_STEPS; step += 1) {
        const answer = await this.options.model.next({
          ...context,
          outcomes: [...context.outcomes],
        })
        const parsed = AgentStepSchema.safeParse(answer)
        if (!parsed.success) {
          const issue = parsed.error.issues[0]
          const where = issue ? `${issue.path.join('.')}: ${issue.message}` : 'invalid'
          return this.finishTurn(turn, 'failed', message('turn.invalidStep', { detail: where }))
        }
        const next = parsed.data
        if (next.type === 'reply') {
          if (next.text !== '') this.message(turn, 'agent', next.text, next.message)
          return this.finishTurn(turn, 'done')
        }
        if (next.say !== '') this.message(turn, 'agent', next.say, next.sayMessage)
        for (const action of next.actions) {
          context.outcomes.push(await this.take(turn, agent, seq, action))
          if (action.type === 'tool') seq += 1
        }
      }
      // Fails closed: whatever the model meant to do next, nothing more runs.
      this.finishTurn(turn, 'failed', message('turn.tooManySteps', { steps: MAX_AGENT_STEPS }))
    } catch (error) {
      this.finishTurn(turn, 'failed', message('turn.stopped', { detail: (error as Error).message }))
    }
  }

  private async take(
    turn: Turn,
    agent: AgentPreset,
    seq: number,
    action: AgentAction,
  ): Promise<ActionOutcome> {
    if (action.type === 'tool') return this.tools.run(turn, agent, seq, action.call)
    const reply = await askInTurn(this.options.inputs, turn, action, (waiting) =>
      this.options.conversations.setTurnStatus(turn.id, waiting ? 'waiting' : 'running'),
    )
    this.message(turn, reply.role, reply.text, reply.message)
    return { type: action.type, reply: reply.text, replyMessage: reply.message }
  }

  private contextFor(turn: Turn, agent: AgentPreset): AgentContext {
    const history = this.options.conversations
      .listRecentMessages(turn.roomId, AGENT_HISTORY_MESSAGES + 1)
      .filter((message) => message.turnId !== turn.id)
      .slice(-AGENT_HISTORY_MESSAGES)
      .map(({ role, text }) => ({ role, text }))
    const tools = Object.values(TOOLS)
      .filter((tool) => !agent.allowedTools || agent.allowedTools.includes(tool.name))
      .map((tool) => ({ name: tool.name, effect: tool.effect }))
    return { history, userText: turn.text, tools, outcomes: [] }
  }

  private message(
    turn: Turn,
    role: 'agent' | 'system',
    text: string,
    words?: RuntimeMessage,
  ): void {
    this.options.conversations.insertMessage({
      id: this.newId(),
      roomId: turn.roomId,
      turnId: turn.id,
      role,
      text,
      ...(words === undefined ? {} : { message: words }),
      createdAt: this.options.now(),
    })
    this.options.events.emit('timeline.updated', { roomId: turn.roomId })
  }

  private finishTurn(turn: Turn, status: 'done' | 'failed', note?: RuntimeMessage): void {
    if (note) this.message(turn, 'system', englishText(note), note)
    this.options.conversations.setTurnStatus(turn.id, status)
    this.options.events.emit('timeline.updated', { roomId: turn.roomId })
  }
}
