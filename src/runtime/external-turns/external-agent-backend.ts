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
import {
  checkWorkspaceIdentity,
  sameWorkspace,
  type WorkspaceIdentity,
} from '../policy/workspace-identity.ts'
import type { ConversationStore } from '../ports/conversation-store.ts'
import type { TurnRunner } from '../ports/turn-runner.ts'
import { carriedHistory, promptWithHistory, type HistoryConversations } from './carried-history.ts'
import { ExternalTurnAsker, type ExternalTurnAskerDeps } from './external-turn-asker.ts'
import { ExternalTurnTimeline } from './external-turn-timeline.ts'

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

/** The turn an agent's session is serving, if any. */
interface TurnContext {
  asker: ExternalTurnAsker
  timeline: ExternalTurnTimeline
}

/** One room's agent process and its session. */
interface RoomSession {
  agentId: string
  mode: PermissionMode
  workspace: string
  /** The folder it was started in, as pinned then: a session is handed a
   *  turn only for that same folder (see `sessionFor`). */
  workspaceIdentity: WorkspaceIdentity | undefined
  session: ExternalAgentSession
  current: TurnContext | null
  idle: NodeJS.Timeout | null
  /** Stopped because the room was narrowed below `mode` (`roomChanged`). */
  narrowed: boolean
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
    const work = this.rooms
      .run(turn.roomId, () => this.play(turn, agentId))
      .catch((error: unknown) =>
        this.finish(turn, 'failed', message('turn.stopped', { detail: (error as Error).message })),
      )
      .finally(() => this.active.delete(work))
    this.active.add(work)
  }

  async settled(): Promise<void> {
    while (this.active.size > 0) await Promise.allSettled([...this.active])
  }

  /** Ends every agent: see the class comment. */
  async close(): Promise<void> {
    this.closing = true
    this.unsubscribe()
    await Promise.allSettled([...this.sessions.keys()].map((roomId) => this.stop(roomId)))
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
        await this.stop(turn.roomId)
        return this.finish(turn, 'failed', identity.message)
      }
    }
    const timeline = new ExternalTurnTimeline(turn, this.options)
    const identity: AgentIdentity = { id: agent.id, name: agent.name, protocol: agent.protocol }
    const context = {
      timeline,
      asker: new ExternalTurnAsker(turn, identity, timeline, this.options),
    }
    const started = await this.sessionFor(turn, agent, context)
    if (!started) return
    const { room, fresh } = started
    // Narrowed while it started: stopped, and handed nothing.
    if (room.narrowed) return this.finish(turn, 'interrupted', message('external.stoppedNarrowed'))
    // A new session knows nothing of the room: its first prompt carries
    // the room's recent conversation, marked as history.
    const prompt = fresh
      ? promptWithHistory(carriedHistory(this.options.conversations, turn), turn.text)
      : turn.text
    let outcome: ExternalTurnOutcome
    try {
      outcome = await room.session.runTurn(prompt)
    } catch (error) {
      outcome = { status: 'failed', detail: (error as Error).message }
    } finally {
      room.current = null
    }
    // A session whose turn failed may have lost its agent: the next turn
    // starts a fresh one rather than talk to a process in an unknown state.
    if (outcome.status === 'failed' || outcome.status === 'refused') await this.stop(turn.roomId)
    else if (!this.closing) this.idleLater(turn.roomId, room)
    if (room.narrowed) return this.finish(turn, 'interrupted', message('external.stoppedNarrowed'))
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
    this.stop(roomId).catch(() => undefined)
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
    if (existing) await this.stop(turn.roomId)
    const room: RoomSession = {
      agentId: agent.id,
      mode,
      workspace: turn.workspace,
      workspaceIdentity: turn.workspaceIdentity,
      current: context,
      idle: null,
      narrowed: false,
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
      } else if (room.narrowed) {
        this.finish(turn, 'interrupted', message('external.stoppedNarrowed'))
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
      if (this.sessions.get(roomId) === room && room.current === null) void this.stop(roomId)
    }, this.options.idleMs ?? AGENT_IDLE_MS)
    room.idle.unref()
  }

  private async stop(roomId: string): Promise<void> {
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
    if (note) {
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
    this.options.conversations.setTurnStatus(turn.id, status)
    this.options.events.emit('timeline.updated', { roomId: turn.roomId })
  }
}

/**
 * Whether a session started for the folder `started` may serve a turn
 * pinned to `now`. By identity, not by path: a folder replaced at the same
 * path and accepted by the person pins the room's turns to the new folder,
 * but the agent's process still works in the old one, renamed away (its
 * current folder, and every relative path it resolves). It is stopped and
 * a new one started where the turn is. A side without a pin (a turn from
 * before workspaces were pinned) matches only another without one.
 */
function sameFolder(
  started: WorkspaceIdentity | undefined,
  now: WorkspaceIdentity | undefined,
): boolean {
  if (started === undefined || now === undefined) return started === now
  return sameWorkspace(started, now)
}
