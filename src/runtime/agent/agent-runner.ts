import { randomUUID } from 'node:crypto'
import type { ApprovalRecord } from '../../contracts/approval.ts'
import type { Message, Turn } from '../../contracts/room.ts'
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
import type { ConversationStore, MessagesMark } from '../ports/conversation-store.ts'
import type { WhenDurable } from '../ports/durability.ts'
import type { GrantStore } from '../ports/grant-store.ts'
import type { CommandLauncher } from '../tools/command-launcher.ts'
import type { McpToolCalls } from '../ports/mcp-tool-calls.ts'
import type { TurnRunner, TurnStop } from '../ports/turn-runner.ts'
import { isPlanPolicy } from '../policy/permission-modes.ts'
import { checkWorkspaceIdentity } from '../policy/workspace-identity.ts'
import { askInTurn } from './input-steps.ts'
import { PermissionRequestRunner, type TurnWidenings } from './permission-request-runner.ts'
import type { AskingForDecision, WaitingCall } from './approval-wait.ts'
import { ToolCallRunner } from './tool-call-runner.ts'
import { offeredTo } from './offered-tools.ts'
import { turnInForce, type RoomNow } from '../policy/allower-stands.ts'

/** Where a turn's history ends: the turns whose messages it leaves out and
 *  the store's mark when it started. */
interface TurnHistory {
  excluded: string[]
  upTo: MessagesMark
}

/** How far a turn has got: all it needs to go on, kept as data while one of
 *  its calls waits for a decision. */
interface TurnProgress {
  turn: Turn
  agent: AgentPreset
  history: TurnHistory
  /** What each action taken so far came to, for the model's next step. */
  outcomes: ActionOutcome[]
  widenings: TurnWidenings
  /** The next call's sequence number in the turn. */
  seq: number
  /** Steps the model has taken. */
  steps: number
  /** The current step's actions not yet taken. */
  actions: AgentAction[]
}

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
  /** What every command the agent runs is started through. */
  commands: CommandLauncher
  /** The room now: a running turn is offered and judged under the
   *  narrower of its frozen policy and this (policy/allower-stands.ts). */
  room: RoomNow
  newId?: () => string
}

/**
 * Runs turns of the agent: asks the model for its next step, takes the
 * actions it proposes (each tool call through `ToolCallRunner`, each
 * question or form through the input service, each permission request
 * through `PermissionRequestRunner`), hands it their outcomes, and repeats
 * until it replies or `MAX_AGENT_STEPS` is reached. A tool call that waits
 * for a decision leaves the turn as data (`TurnProgress`) with the gate's
 * listener; a question or a permission request waits in its own frame.
 */
export class AgentRunner implements TurnRunner {
  private readonly options: AgentRunnerOptions
  private readonly newId: () => string
  private readonly tools: ToolCallRunner
  private readonly permissions: PermissionRequestRunner
  private readonly active = new Set<Promise<void>>()

  constructor(options: AgentRunnerOptions) {
    this.options = options
    this.newId = options.newId ?? randomUUID
    this.tools = new ToolCallRunner({ ...options, newId: this.newId })
    this.permissions = new PermissionRequestRunner({ ...options, newId: this.newId })
  }

  /** Starts the turn in the background; `settled()` waits for every turn
   *  that is running (not one waiting for a decision). */
  start(turn: Turn, agentId: string): void {
    this.track(this.runTurn(turn, agentId))
  }

  /** The built-in agent's turn runs a few steps of the offline model and
   *  then waits as data for what it asked (an approval, a question): the
   *  person ends it by deciding that, so there is nothing here to stop. */
  stop(): TurnStop {
    return 'not-stoppable'
  }

  async settled(): Promise<void> {
    while (this.active.size > 0) await Promise.allSettled([...this.active])
  }

  private track(work: Promise<void>): void {
    const tracked = work.finally(() => this.active.delete(tracked))
    this.active.add(tracked)
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
    // Checked again when the turn starts (it was at admission too): every
    // tool call checks it as well, but a turn in a folder that is not the
    // room's has nothing to do at all.
    if (turn.workspaceIdentity !== undefined) {
      const identity = checkWorkspaceIdentity(turn.workspaceIdentity)
      if (!identity.ok) return this.finishTurn(turn, 'failed', identity.message)
    }
    let progress: TurnProgress
    try {
      progress = {
        turn,
        agent,
        history: this.historyOf(turn),
        outcomes: [],
        // What the person granted this turn beyond its frozen policy; it
        // ends with the turn.
        widenings: { writableRoots: [] },
        seq: 0,
        steps: 0,
        actions: [],
      }
    } catch (error) {
      return this.stopped(turn, error)
    }
    return this.advance(progress)
  }

  /**
   * Takes the turn's next actions and steps until it replies, fails, or a
   * tool call waits for a decision. Such a call waits as data: the turn's
   * progress and the call are handed to the requester's listener and this
   * function returns, so a turn waiting for a person holds no suspended
   * functions or promises; the decision resumes it (`resume`).
   */
  private async advance(progress: TurnProgress): Promise<void> {
    const { turn, agent, widenings } = progress
    try {
      for (;;) {
        for (let action = progress.actions.shift(); action; action = progress.actions.shift()) {
          if (action.type === 'tool') {
            const taken = await this.tools.run(turn, agent, progress.seq, action.call, widenings)
            if (taken.type === 'asking') return this.waitFor(progress, taken)
            progress.outcomes.push(taken)
            progress.seq += 1
            continue
          }
          progress.outcomes.push(await this.take(turn, agent, progress.seq, action, widenings))
          if (action.type === 'permissions') progress.seq += 1
        }
        if (progress.steps === MAX_AGENT_STEPS) {
          // Fails closed: whatever the model meant to do next, nothing more runs.
          return this.finishTurn(
            turn,
            'failed',
            message('turn.tooManySteps', { steps: MAX_AGENT_STEPS }),
          )
        }
        progress.steps += 1
        // Built afresh at each step and dropped once the model answered: a
        // turn waiting for a person holds its outcomes and where its history
        // ends, not the history itself.
        const answer = await this.options.model.next({
          ...this.contextAt(turn, agent, progress.history),
          outcomes: [...progress.outcomes],
        })
        const parsed = AgentStepSchema.safeParse(answer)
        if (!parsed.success) {
          const issue = parsed.error.issues[0]
          const where = issue ? `${issue.path.join('.')}: ${issue.message}` : 'invalid'
          return this.finishTurn(turn, 'failed', message('turn.invalidStep', { detail: where }))
        }
        const next = parsed.data
        if (next.type === 'reply') {
          const reply = next.text === '' ? [] : [this.said(turn, 'agent', next.text, next.message)]
          return this.finishTurn(turn, 'done', undefined, reply)
        }
        if (next.say !== '') this.message(turn, 'agent', next.say, next.sayMessage)
        progress.actions = [...next.actions]
      }
    } catch (error) {
      this.stopped(turn, error)
    }
  }

  /** Leaves the turn waiting for the call's decision, keeping only its
   *  progress and the call as data until the decision comes. */
  private waitFor(progress: TurnProgress, { request, waiting }: AskingForDecision): void {
    this.options.requester.whenDecided(request, (outcome) => {
      this.track(this.resume(progress, waiting, outcome))
    })
  }

  /** Goes on with a turn whose call was decided (or whose asking failed). */
  private async resume(
    progress: TurnProgress,
    waiting: WaitingCall,
    outcome: { approval: ApprovalRecord } | { error: Error },
  ): Promise<void> {
    try {
      if ('error' in outcome) throw outcome.error
      progress.outcomes.push(await this.tools.afterDecision(waiting, outcome.approval))
      progress.seq += 1
    } catch (error) {
      return this.stopped(progress.turn, error)
    }
    return this.advance(progress)
  }

  private stopped(turn: Turn, error: unknown): void {
    this.finishTurn(turn, 'failed', message('turn.stopped', { detail: (error as Error).message }))
  }

  private async take(
    turn: Turn,
    agent: AgentPreset,
    seq: number,
    action: Exclude<AgentAction, { type: 'tool' }>,
    widenings: TurnWidenings,
  ): Promise<ActionOutcome> {
    if (action.type === 'permissions') {
      return this.permissions.run(turn, agent, seq, action.request, widenings)
    }
    // In plan mode the person is never hurried: every question waits for
    // them, however the agent asked it.
    const step =
      action.type === 'questions' && isPlanPolicy(turn.policy)
        ? { ...action, blocking: true }
        : action
    const reply = await askInTurn(this.options.inputs, turn, step, (waiting) =>
      this.options.conversations.setTurnStatus(turn.id, waiting ? 'waiting' : 'running'),
    )
    this.message(turn, reply.role, reply.text, reply.message)
    return { type: action.type, reply: reply.text, replyMessage: reply.message }
  }

  /**
   * Which messages the model reads as history, fixed when the turn starts.
   * A retry starts clean: the person's request is `userText`, once, and
   * history leaves out every attempt of it (its message, and what the agent
   * said and Assent noted in an attempt that was denied, failed or cut off
   * by a crash), so the model neither reads the request twice nor sees
   * replies to actions that never ran.
   */
  private historyOf(turn: Turn): TurnHistory {
    const { conversations } = this.options
    const attempts = conversations
      .listAttempts(turn.roomId, turn.clientRequestId)
      .map((attempt) => attempt.id)
    return { excluded: [turn.id, ...attempts], upTo: conversations.messagesMark(turn.roomId) }
  }

  /** What the model reads at a step, besides the turn's outcomes: the same
   *  history at every step (messages stored after the turn started are not
   *  in it), the request, and the tools it may call. */
  private contextAt(
    turn: Turn,
    agent: AgentPreset,
    { excluded, upTo }: TurnHistory,
  ): Omit<AgentContext, 'outcomes'> {
    const history = this.options.conversations
      .listRecentMessages(turn.roomId, AGENT_HISTORY_MESSAGES, excluded, upTo)
      .map(({ role, text }) => ({ role, text }))
    // A room narrowed since the turn began (plan entered) offers what its
    // mode now offers; a widened one offers nothing more.
    const inForce = turnInForce(turn, this.options.room)
    const tools = Object.values(TOOLS)
      .filter((tool) => offeredTo(agent, inForce, tool))
      .map((tool) => ({ name: tool.name, effect: tool.effect }))
    return { history, userText: turn.text, tools }
  }

  private message(
    turn: Turn,
    role: 'agent' | 'system',
    text: string,
    words?: RuntimeMessage,
  ): void {
    this.options.conversations.insertMessage(this.said(turn, role, text, words))
    this.options.events.emit('timeline.updated', { roomId: turn.roomId })
  }

  private said(
    turn: Turn,
    role: 'agent' | 'system',
    text: string,
    words?: RuntimeMessage,
  ): Message {
    return {
      id: this.newId(),
      roomId: turn.roomId,
      turnId: turn.id,
      role,
      text,
      ...(words === undefined ? {} : { message: words }),
      createdAt: this.options.now(),
    }
  }

  /** Ends the turn: its reply, if any, then Assent's note, if any, and its
   *  status, written in one commit. */
  private finishTurn(
    turn: Turn,
    status: 'done' | 'failed',
    note?: RuntimeMessage,
    reply: readonly Message[] = [],
  ): void {
    const messages = note ? [...reply, this.said(turn, 'system', englishText(note), note)] : reply
    this.options.conversations.finishTurn(turn.id, status, messages)
    this.options.events.emit('timeline.updated', { roomId: turn.roomId })
  }
}
