import { randomUUID } from 'node:crypto'
import type { ReconcileRequest, SendMessageRequest, Turn } from '../../contracts/room.ts'
import { Refusal } from '../domain/refusal.ts'
import { policyForMode } from '../policy/permission-modes.ts'
import type { EventBus } from '../events/event-bus.ts'
import type { TurnRunner } from '../ports/turn-runner.ts'
import type { ConversationStore } from '../ports/conversation-store.ts'
import type { StoredRoom } from '../ports/room-store.ts'
import type { RoomService } from './room-service.ts'

export interface TurnServiceOptions {
  /** Where turns find their room's verified row (404 for an unknown room)
   *  and its workspace's identity, checked at admission. */
  rooms: Pick<RoomService, 'storedRoom' | 'admitWorkspace'>
  conversations: ConversationStore
  events: EventBus
  runner: TurnRunner
  now: () => number
  newId?: () => string
}

/**
 * A room's turns: the person's messages, each run by the agent under the
 * policy the room had when it was admitted, and what happens after a crash
 * (reconciling an execution with an unknown outcome, then retrying).
 */
export class TurnService {
  private readonly options: TurnServiceOptions
  private readonly newId: () => string

  constructor(options: TurnServiceOptions) {
    this.options = options
    this.newId = options.newId ?? randomUUID
  }

  /** Idempotent on `clientRequestId`: a resend returns the first turn. */
  sendMessage(roomId: string, request: SendMessageRequest): { turn: Turn; created: boolean } {
    const room = this.options.rooms.storedRoom(roomId)
    const existing = this.options.conversations.findTurnByClientRequest(
      roomId,
      request.clientRequestId,
    )
    const plan = request.plan === true
    if (existing) {
      if (existing.text !== request.text || existing.plan !== plan) {
        throw new Refusal('client_request_conflict', 'clientRequestId was used for another message')
      }
      return { turn: existing, created: false }
    }
    const turn = this.newTurn(room, {
      clientRequestId: request.clientRequestId,
      text: request.text,
      attempt: 1,
      retryOf: null,
      workspace: room.workspace,
      plan,
    })
    return { turn, created: true }
  }

  /**
   * A retry is a new attempt under the current policy and ceilings, in the
   * original workspace. An execution whose outcome is unknown must be
   * reconciled first: retrying blindly could run a command twice. The
   * attempt stores no message of its own: the person asked once, and the
   * agent reads the request once (see `AgentRunner`). A message sent in
   * plan mode is retried in plan mode: the person asked for a plan.
   */
  retryTurn(turnId: string): Turn {
    const original = this.options.conversations.getTurn(turnId)
    if (!original) throw new Refusal('unknown_turn', 'unknown turn')
    const unknown = this.options.conversations
      .listToolCallsOfTurn(turnId)
      .filter((call) => call.status === 'unknown')
    if (unknown.length > 0) {
      throw new Refusal(
        'execution_unknown',
        `reconcile execution ${unknown[0]?.id} before retrying: its outcome is unknown`,
      )
    }
    if (original.status === 'running' || original.status === 'waiting') {
      throw new Refusal('turn_in_progress', 'the turn is still in progress')
    }
    const room = this.options.rooms.storedRoom(original.roomId)
    // A room's workspace never changes, and the room row is sealed while the
    // turn row is not: a stored workspace that differs was edited on disk,
    // and a retry there would let the agent treat another folder as its own.
    if (original.workspace !== room.workspace) {
      throw new Refusal(
        'workspace_mismatch',
        "the turn's stored workspace is not its room's: the database was edited outside Assent",
      )
    }
    const attempt = this.options.conversations.latestAttempt(room.id, original.clientRequestId) + 1
    return this.newTurn(room, {
      clientRequestId: original.clientRequestId,
      text: original.text,
      attempt,
      retryOf: original.id,
      workspace: original.workspace,
      plan: original.plan === true,
    })
  }

  /**
   * The person stops a running or waiting turn (an external agent that
   * never answers would hold its room's turn for ever). The runner ends it
   * interrupted and says why in the room; the turn as it stands now is
   * returned. Refused for a turn that has ended, and for one whose agent
   * cannot be stopped (`TurnRunner.stop`).
   */
  stopTurn(turnId: string): Turn {
    const turn = this.options.conversations.getTurn(turnId)
    if (!turn) throw new Refusal('unknown_turn', 'unknown turn')
    if (turn.status !== 'running' && turn.status !== 'waiting') {
      throw new Refusal('turn_not_running', 'the turn has already ended')
    }
    const room = this.options.rooms.storedRoom(turn.roomId)
    const stop = this.options.runner.stop(turn, room.agentId)
    if (stop === 'not-stoppable') {
      throw new Refusal(
        'turn_not_stoppable',
        "the built-in agent's turn ends when what it waits for is decided",
      )
    }
    if (stop === 'not-running') {
      throw new Refusal('turn_not_running', 'nothing of the turn is running')
    }
    return turn
  }

  reconcileExecution(toolCallId: string, request: ReconcileRequest): void {
    const call = this.options.conversations.getToolCall(toolCallId)
    if (!call) throw new Refusal('unknown_execution', 'unknown execution')
    if (call.status !== 'unknown') {
      throw new Refusal(
        'not_unknown',
        'only an execution whose outcome is unknown can be reconciled',
      )
    }
    const at = this.options.now()
    const status = request.outcome === 'succeeded' ? 'succeeded' : 'failed'
    this.options.conversations.reconcile(
      call,
      {
        status,
        result: {
          ok: status === 'succeeded',
          output: `Reconciled: ${request.outcome}. ${request.note ?? ''}`.trim(),
          code: 'reconciled',
        },
      },
      request,
      at,
    )
    this.options.events.emit('timeline.updated', { roomId: call.roomId })
  }

  private newTurn(
    room: StoredRoom,
    request: {
      clientRequestId: string
      text: string
      attempt: number
      retryOf: string | null
      workspace: string
      plan: boolean
    },
  ): Turn {
    const { clientRequestId, text, attempt, retryOf, workspace, plan } = request
    // Refused before anything is stored when the folder at the workspace's
    // path is not the room's: a turn there would act on a folder the person
    // never chose. The identity is frozen with the turn, and each door the
    // turn acts through checks it again.
    const workspaceIdentity = this.options.rooms.admitWorkspace(room)
    const at = this.options.now()
    // Frozen policy: the turn snapshots the room's policy now; a later mode
    // change affects the next turn, never this one. The snapshot is taken
    // from a verified read: a row whose MAC failed has already been narrowed
    // to its kind's narrowest policy, so a tampered row never admits a turn
    // with more than ask-for-approval (and its grants are suspended). A
    // message sent in plan mode takes the plan preset instead: narrower than
    // any room policy, so it needs no consent.
    const turn: Turn = {
      id: this.newId(),
      roomId: room.id,
      clientRequestId,
      text,
      attempt,
      retryOf,
      workspace,
      workspaceIdentity,
      policy: plan ? policyForMode('plan') : { ...room.policy },
      plan,
      status: 'running',
      createdAt: at,
    }
    this.options.conversations.startTurn(
      turn,
      retryOf === null
        ? { id: this.newId(), roomId: room.id, turnId: turn.id, role: 'user', text, createdAt: at }
        : null,
    )
    this.options.events.emit('timeline.updated', { roomId: room.id })
    this.options.runner.start(turn, room.agentId)
    return turn
  }
}
