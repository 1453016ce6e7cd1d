import type { AgentIdentity } from '../../contracts/agent-request.ts'
import type { ExternalAgentConfig } from '../../contracts/agents-config.ts'
import type { PermissionMode } from '../../contracts/policy-axes.ts'
import type { Turn, TurnStatus } from '../../contracts/room.ts'
import {
  englishText,
  message,
  type RuntimeMessage,
  type RuntimeMessageCode,
} from '../../contracts/runtime-message.ts'
import { KeyedMutex } from '../concurrency/keyed-mutex.ts'
import type { EventBus } from '../events/event-bus.ts'
import type { ExternalAgentClientOptions } from '../external-agents/agent-connection.ts'
import type {
  ExternalAgentSession,
  ExternalDecision,
  ExternalTurnOutcome,
} from '../external-agents/external-agent-port.ts'
import { agentToldAlike } from '../external-agents/agent-mode-mapping.ts'
import { policyInForce } from '../policy/allower-stands.ts'
import { modeFromPolicy, reachesAsFar } from '../policy/permission-modes.ts'
import { checkWorkspaceIdentity } from '../policy/workspace-identity.ts'
import type { ConversationStore } from '../ports/conversation-store.ts'
import type { TurnRunner, TurnStop } from '../ports/turn-runner.ts'
import { carriedHistory, promptWithHistory, type HistoryConversations } from './carried-history.ts'
import { ExternalTurnAsker, type ExternalTurnAskerDeps } from './external-turn-asker.ts'
import { ExternalTurnTimeline } from './external-turn-timeline.ts'
import { sameFolder, whyStopped, type RoomSession, type TurnContext } from './room-session.ts'
import { madeDuringTurn, watchTurn } from './turn-made-watch.ts'

/** How long an agent process with no turn to run is kept for the room's
 *  next message before it is stopped. */
export const AGENT_IDLE_MS = 10 * 60_000

export interface ExternalAgentBackendOptions extends ExternalTurnAskerDeps {
  /** The agents.json entries in force. */
  agents: readonly ExternalAgentConfig[]
  /** Starts nothing yet: a session is started with the room's mode. */
  openSession: (
    options: Pick<ExternalAgentClientOptions, 'agent' | 'workspace' | 'asker' | 'onEvent'>,
  ) => ExternalAgentSession
  conversations: ExternalTurnAskerDeps['conversations'] &
    HistoryConversations &
    Pick<
      ConversationStore,
      'insertMessage' | 'insertToolCall' | 'updateToolCall' | 'getToolCall' | 'setTurnStatus'
    >
  events: EventBus
  newId: () => string
  idleMs?: number
}

/**
 * Runs the turns of rooms whose agent is an external one (agents.json):
 * one agent process per room, in the room's workspace with the minimal
 * environment, started under the mode frozen on the turn and started again
 * when a turn comes under another mode. Its turns run one at a time; each
 * request the agent makes during a turn is answered by that turn's asker
 * (the room's policy, grants, the approval requester), and what the agent
 * says and does goes to the room's timeline.
 *
 * `close` (the runtime is stopping) ends every agent: pending requests are
 * answered cancelled, the turns in progress end interrupted, and the
 * agents' process groups are stopped.
 */
export class ExternalAgentBackend implements TurnRunner {
  private readonly options: ExternalAgentBackendOptions
  private readonly rooms = new KeyedMutex()
  private readonly sessions = new Map<string, RoomSession>()
  private readonly active = new Set<Promise<void>>()
  /** Turns handed over and not yet begun (another turn of the room runs),
   *  and those of them the person stopped before they began. */
  private readonly queued = new Set<string>()
  private readonly stoppedQueued = new Set<string>()
  private closing = false
  private readonly unsubscribe: () => void

  constructor(options: ExternalAgentBackendOptions) {
    this.options = options
    this.unsubscribe = options.events.subscribe((event) => {
      if (event.type === 'room.updated' && typeof event.data.roomId === 'string') {
        this.roomChanged(event.data.roomId)
      }
    })
  }

  handles(agentId: string): boolean {
    return this.agentFor(agentId) !== undefined
  }

  start(turn: Turn, agentId: string): void {
    this.queued.add(turn.id)
    const work = this.rooms
      .run(turn.roomId, () => {
        this.queued.delete(turn.id)
        if (this.stoppedQueued.delete(turn.id)) {
          return this.finish(turn, 'interrupted', message('external.stoppedByPerson'))
        }
        return this.play(turn, agentId)
      })
      .catch((error: unknown) =>
        this.finish(turn, 'failed', message('turn.stopped', { detail: (error as Error).message })),
      )
      .finally(() => this.active.delete(work))
    this.active.add(work)
  }

  /**
   * The person stopped the turn. An agent that never answers would
   * otherwise hold the room's turn for ever, and one that is acting goes
   * on acting: its process group is stopped, as a narrowing stops it
   * (`roomChanged`), which withdraws every approval it waits for, so a
   * token minted for one decides nothing; the turn ends interrupted, and
   * the room's next message starts the agent afresh. A turn not begun yet
   * ends as it begins.
   */
  stop(turn: Turn): TurnStop {
    if (this.queued.has(turn.id)) {
      this.stoppedQueued.add(turn.id)
      return 'stopping'
    }
    const room = this.sessions.get(turn.roomId)
    if (room?.current?.turnId !== turn.id) return 'not-running'
    room.stoppedByPerson = true
    // Nobody waits here: the turn ends (play notes why) once the agent's
    // process has.
    this.stopAgent(turn.roomId).catch(() => undefined)
    return 'stopping'
  }

  async settled(): Promise<void> {
    while (this.active.size > 0) await Promise.allSettled([...this.active])
  }

  /** Ends every agent: see the class comment. */
  async close(): Promise<void> {
    this.closing = true
    this.unsubscribe()
    await Promise.allSettled([...this.sessions.keys()].map((roomId) => this.stopAgent(roomId)))
    await this.settled()
  }

  private agentFor(agentId: string): ExternalAgentConfig | undefined {
    return this.options.agents.find((agent) => agent.id === agentId)
  }

  private async play(turn: Turn, agentId: string): Promise<void> {
    const agent = this.agentFor(agentId)
    if (!agent) {
      return this.finish(turn, 'failed', message('turn.agentNotConfigured', { agent: agentId }))
    }
    if (this.closing) {
      return this.finish(turn, 'interrupted', message('external.runtimeStoppedBefore'))
    }
    // The agent's process is started in the workspace and keeps running
    // between turns: in a folder that is no longer the room's, none is
    // started or handed another turn, and the one there is stopped.
    if (turn.workspaceIdentity !== undefined) {
      const identity = checkWorkspaceIdentity(turn.workspaceIdentity)
      if (!identity.ok) {
        await this.stopAgent(turn.roomId)
        return this.finish(turn, 'failed', identity.message)
      }
    }
    const timeline = new ExternalTurnTimeline(turn, this.options)
    const identity: AgentIdentity = { id: agent.id, name: agent.name, protocol: agent.protocol }
    const context = {
      turnId: turn.id,
      timeline,
      asker: new ExternalTurnAsker(turn, identity, timeline, this.options),
    }
    const started = await this.sessionFor(turn, agent, context)
    if (!started) return
    const { room, fresh } = started
    // Narrowed or stopped while it started: stopped, and handed nothing.
    if (room.stoppedByPerson || room.narrowed)
      return this.finish(turn, 'interrupted', whyStopped(room))
    // A new session knows nothing of the room: its first prompt carries
    // the room's recent conversation, marked as history.
    const prompt = fresh
      ? promptWithHistory(carriedHistory(this.options.conversations, turn), turn.text)
      : turn.text
    const watch = watchTurn(room.mode, turn.workspace, timeline.writesAllowed)
    let outcome: ExternalTurnOutcome
    try {
      outcome = await room.session.runTurn(prompt)
    } catch (error) {
      outcome = { status: 'failed', detail: (error as Error).message }
    } finally {
      room.current = null
    }
    try {
      // A session whose turn failed may have lost its agent: the next turn
      // starts a fresh one rather than talk to a process in an unknown state.
      if (outcome.status === 'failed' || outcome.status === 'refused')
        await this.stopAgent(turn.roomId)
      else if (!this.closing) this.idleLater(turn.roomId, room)
    } finally {
      // Last, once a stopped agent's process has ended: what it made is
      // moved aside before the turn is said to have ended.
      const made = madeDuringTurn(watch)
      if (made !== null) this.note(turn, made)
    }
    if (room.stoppedByPerson || room.narrowed)
      return this.finish(turn, 'interrupted', whyStopped(room))
    this.ended(turn, outcome)
  }

  /**
   * An agent runs what its session's settings let it run without asking
   * Assent at all (Codex under full access asks nothing), so a narrowing
   * that only reached its requests would leave it acting with the reach
   * the person just took back. A session started under a mode whose
   * settings let the agent do more unasked than the room's mode now is
   * stopped at once, its process group and its turn with it; the room's
   * next message starts one under the mode then. A change that widens,
   * or that the agent is told alike (approve-for-me to ask-for-approval),
   * leaves it running: its requests are judged under the narrower mode.
   */
  private roomChanged(roomId: string): void {
    const room = this.sessions.get(roomId)
    if (!room) return
    const now = this.modeNow(roomId)
    const agent = this.agentFor(room.agentId)
    if (now !== undefined) {
      if (reachesAsFar(room.mode, now)) return
      if (agent !== undefined && agentToldAlike(agent, room.mode, now)) return
    }
    room.narrowed = true
    // Nobody waits here: the stop signals the agent's process group at
    // once, and its turn ends (play notes why) when the process has.
    this.stopAgent(roomId).catch(() => undefined)
  }

  /** The room's mode as its row says now; undefined when it cannot be
   *  read, which stops the agent (the change was applied: its answer must
   *  not fail for this). */
  private modeNow(roomId: string): PermissionMode | undefined {
    try {
      return modeFromPolicy(this.options.room.policyOf(roomId))
    } catch {
      return undefined
    }
  }

  /** The room's session, ready for `turn` and serving it: kept when it runs
   *  under the turn's mode in the turn's workspace, started otherwise
   *  (`fresh`). A retry always starts a new one: the live session holds
   *  the attempt that was denied, expired or failed, and an agent that
   *  still saw it could try the same thing again. */
  private async sessionFor(
    turn: Turn,
    agent: ExternalAgentConfig,
    context: TurnContext,
  ): Promise<{ room: RoomSession; fresh: boolean } | undefined> {
    // The room narrowed after the turn was accepted (while an earlier turn
    // ran): its agent is started under the narrower mode, as its requests
    // are judged (allower-stands.ts), never the wider one it was sent under.
    const mode = modeFromPolicy(policyInForce(turn, this.options.room))
    const existing = this.sessions.get(turn.roomId)
    if (
      existing &&
      turn.retryOf === null &&
      existing.agentId === agent.id &&
      existing.mode === mode &&
      existing.workspace === turn.workspace &&
      sameFolder(existing.workspaceIdentity, turn.workspaceIdentity)
    ) {
      if (existing.idle) clearTimeout(existing.idle)
      existing.idle = null
      existing.current = context
      return { room: existing, fresh: false }
    }
    if (existing) await this.stopAgent(turn.roomId)
    const room: RoomSession = {
      agentId: agent.id,
      mode,
      workspace: turn.workspace,
      workspaceIdentity: turn.workspaceIdentity,
      current: context,
      idle: null,
      narrowed: false,
      stoppedByPerson: false,
      session: this.options.openSession({
        agent,
        workspace: turn.workspace,
        asker: {
          // A request outside a turn has nobody to answer for it: no.
          ask: (request, signal) =>
            room.current?.asker.ask(request, signal) ?? Promise.resolve<ExternalDecision>('deny'),
        },
        onEvent: (event) => room.current?.timeline.record(event),
      }),
    }
    this.sessions.set(turn.roomId, room)
    try {
      await room.session.start(mode)
    } catch (error) {
      if (this.sessions.get(turn.roomId) === room) this.sessions.delete(turn.roomId)
      if (this.closing) {
        this.finish(turn, 'interrupted', message('external.runtimeStoppedStarting'))
      } else if (room.stoppedByPerson || room.narrowed) {
        this.finish(turn, 'interrupted', whyStopped(room))
      } else {
        this.finish(
          turn,
          'failed',
          message('external.couldNotStart', {
            agent: agent.name,
            detail: (error as Error).message,
          }),
        )
      }
      return undefined
    }
    return { room, fresh: true }
  }

  private idleLater(roomId: string, room: RoomSession): void {
    room.idle = setTimeout(() => {
      if (this.sessions.get(roomId) === room && room.current === null) void this.stopAgent(roomId)
    }, this.options.idleMs ?? AGENT_IDLE_MS)
    room.idle.unref()
  }

  private async stopAgent(roomId: string): Promise<void> {
    const room = this.sessions.get(roomId)
    if (!room) return
    this.sessions.delete(roomId)
    if (room.idle) clearTimeout(room.idle)
    await room.session.close()
  }

  private ended(turn: Turn, outcome: ExternalTurnOutcome): void {
    // The detail is the agent's own text, shown as it is.
    const said = (bare: RuntimeMessageCode, withDetail: RuntimeMessageCode): RuntimeMessage =>
      outcome.detail ? message(withDetail, { detail: outcome.detail }) : message(bare)
    switch (outcome.status) {
      case 'completed':
        return this.finish(turn, 'done')
      case 'interrupted':
        return this.finish(
          turn,
          'interrupted',
          said('external.interrupted', 'external.interruptedWith'),
        )
      case 'refused':
        return this.finish(turn, 'failed', said('external.refusedTurn', 'external.refusedTurnWith'))
      case 'failed':
        return this.finish(turn, 'failed', said('external.failed', 'external.failedWith'))
    }
  }

  private finish(turn: Turn, status: TurnStatus, note?: RuntimeMessage): void {
    if (note) this.note(turn, note)
    this.options.conversations.setTurnStatus(turn.id, status)
    this.options.events.emit('timeline.updated', { roomId: turn.roomId })
  }

  private note(turn: Turn, note: RuntimeMessage): void {
    this.options.conversations.insertMessage({
      id: this.options.newId(),
      roomId: turn.roomId,
      turnId: turn.id,
      role: 'system',
      text: englishText(note),
      message: note,
      createdAt: this.options.now(),
    })
  }
}
