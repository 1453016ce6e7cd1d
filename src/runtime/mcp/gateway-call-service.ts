import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto'
import type { ApprovalRecord } from '../../contracts/approval.ts'
import type {
  GatewayCallRequest,
  GatewayCallResult,
  GatewayCallState,
  GatewayOpenedCall,
} from '../../contracts/mcp-gateway.ts'
import type { Room, ToolCallRecord, Turn } from '../../contracts/room.ts'
import { englishText, message } from '../../contracts/runtime-message.ts'
import { proposedCall } from '../domain/proposed-call.ts'
import { Refusal } from '../domain/refusal.ts'
import { secretDigest } from '../domain/sha256.ts'
import type { EventBus } from '../events/event-bus.ts'
import type { ApprovalGate } from '../gate/approval-gate.ts'
import type { ApprovalRequester, PendingApproval } from '../gate/approval-requester.ts'
import { KeyedMutex } from '../concurrency/keyed-mutex.ts'
import { capOutput } from '../tools/tool-types.ts'
import { GATEWAY_AGENT_ID } from '../domain/agent-preset.ts'
import {
  allowerOfApproval,
  allowerStands,
  type Allower,
  type RoomNow,
} from '../policy/allower-stands.ts'
import type { ApprovalStore } from '../ports/approval-store.ts'
import type { ConversationStore } from '../ports/conversation-store.ts'
import type { GrantStore } from '../ports/grant-store.ts'
import type { RoomDirectory } from '../ports/room-directory.ts'
import { deniedCallText, deniedCallWords } from '../policy/denial-words.ts'
import { mcpTouch } from '../policy/person-only.ts'
import { grantForAction } from '../policy/private-read-approval.ts'
import {
  checkWorkspaceIdentity,
  sameWorkspace,
  workspaceMovedSince,
} from '../policy/workspace-identity.ts'
import { mcpApprovalFields } from './gated-mcp-call.ts'
import { namespacedToolName } from './mcp-tool-definition.ts'
import { refuseAboveWaitingGatewayCalls } from './waiting-asks.ts'

export interface GatewayCallServiceOptions {
  rooms: RoomDirectory
  conversations: ConversationStore
  approvals: ApprovalStore
  grants: GrantStore
  /** Where a call no grant answers for asks the person. */
  requester: ApprovalRequester
  /** Read only: the gateway waits on outcomes, it never decides. */
  gate: Pick<ApprovalGate, 'waitForOutcome'>
  events: EventBus
  /** The room now: an allow the gateway has not read yet must still stand
   *  when it reads it (policy/allower-stands.ts). */
  room: RoomNow
  now: () => number
  newId?: () => string
  /** The key that withdraws one call; 32 random bytes unless a test
   *  fixes it. */
  newCancelKey?: () => string
}

/** Why a gateway call's approval closed without a decision: the agent's
 *  client cancelled the call, or went away, while the person was asked. */
export const CLIENT_CANCELLED = message('mcp.cancelledByClient')

/** A call that waits for the person, and the digest of the key its opener
 *  holds to withdraw it. Kept in memory only: a runtime that restarts
 *  expires every pending approval anyway. */
interface WaitingCall {
  pending: PendingApproval
  cancelKeyDigest: Buffer
}

/**
 * The runtime's side of the MCP gateway. A gateway call becomes a turn and a
 * tool call in the gateway room of the gateway's folder, and (unless a grant
 * for exactly this tool definition answers) a pending `mcp-tool-call`
 * approval that only the person can decide, in the protected window. The
 * gateway can open calls and read their outcome here; nothing here decides.
 */
export class GatewayCallService {
  private readonly options: GatewayCallServiceOptions
  private readonly newId: () => string
  /** Two first calls at once must find one room, not make two. */
  private readonly roomCreation = new KeyedMutex()
  private readonly newCancelKey: () => string
  private readonly waiting = new Map<string, WaitingCall>()

  constructor(options: GatewayCallServiceOptions) {
    this.options = options
    this.newId = options.newId ?? randomUUID
    this.newCancelKey = options.newCancelKey ?? (() => randomBytes(32).toString('base64url'))
  }

  async open(request: GatewayCallRequest): Promise<GatewayOpenedCall> {
    const { conversations, events, now } = this.options
    // The folder the gateway was started for, as it pinned it: swapped for
    // a link, replaced or removed since, it is refused here, before any
    // room is looked up by its name.
    const started = checkWorkspaceIdentity(request.workspaceIdentity)
    if (!started.ok) throw new Refusal('workspace_moved', started.reason)
    const room = await this.gatewayRoom(request.workspaceIdentity.realPath)
    // The gateway's folder replaced since its room was made: the call is
    // refused rather than opened in a room that trusts another folder.
    const { workspaceIdentity, policy } = this.options.rooms.admitRoom(room.id)
    // Both were checked against the folder there now, so they differ only
    // if it changed between the two checks; the room's grants answer for
    // its own folder, never for the gateway's.
    if (!sameWorkspace(workspaceIdentity, request.workspaceIdentity)) {
      throw new Refusal(
        'workspace_moved',
        englishText(message('workspace.replaced', { path: request.workspaceIdentity.realPath })),
      )
    }
    const at = now()
    const fullName = namespacedToolName(request.serverId, request.toolName)
    const turn: Turn = {
      id: this.newId(),
      roomId: room.id,
      clientRequestId: this.newId(),
      text: `MCP gateway: ${fullName}`,
      attempt: 1,
      retryOf: null,
      workspace: room.workspace,
      workspaceIdentity,
      policy: { ...policy },
      status: 'waiting',
      createdAt: at,
    }
    const call = proposedCall({
      id: this.newId(),
      turn,
      seq: 0,
      toolName: fullName,
      args: request.arguments,
      at,
    })
    const cancelKey = this.newCancelKey()

    // In plan mode (`never`) no grant answers: the call is refused in the
    // policy's name below, whatever was allowed always before.
    const action = { ...mcpApprovalFields(request), workingDirectory: room.workspace }
    const grant = grantForAction(
      mcpTouch(request, room.workspace),
      action,
      policy.approvalPolicy,
      () => this.options.grants.findMcpGrant(room.id, request),
    )
    if (grant) {
      conversations.openCallAllowedByGrant(turn, call, grant.id, at)
      events.emit('timeline.updated', { roomId: room.id })
      // What was just written, not read back: no approval, allowed.
      return {
        callId: call.id,
        roomId: room.id,
        approvalId: null,
        status: 'allowed',
        grantId: grant.id,
        reason: null,
        reasonMessage: null,
        code: null,
        cancelKey,
      }
    }

    refuseAboveWaitingGatewayCalls(this.waiting.size)
    conversations.openCall(turn, call)
    // Only the person decides a gateway call: no review description.
    const pending = this.options.requester.open({
      turn,
      call,
      action,
    })
    this.waiting.set(call.id, { pending, cancelKeyDigest: secretDigest(cancelKey) })
    void pending.outcome.then((outcome) => {
      this.waiting.delete(call.id)
      this.settleDecision(call.id, outcome)
    })
    return { ...this.state(call.id, null), cancelKey }
  }

  /**
   * The agent's client cancelled the call, or went away, while the person
   * was asked: its approval is withdrawn (it expires now, so a decision or
   * a token minted for it decides nothing, and the protected window
   * closes), only with the key the call was opened with (every gateway
   * holds the same credential); a call no longer waiting is left as is.
   */
  cancel(callId: string, cancelKey: string): GatewayCallState {
    const call = this.requireCall(callId)
    const waiting = this.waiting.get(call.id)
    if (waiting === undefined) return this.state(call.id, null)
    // A wrong key reads as an unknown call, so it tells a guesser nothing.
    if (!timingSafeEqual(secretDigest(cancelKey), waiting.cancelKeyDigest)) {
      throw new Refusal('unknown_call', 'unknown gateway call')
    }
    waiting.pending.withdraw(englishText(CLIENT_CANCELLED), CLIENT_CANCELLED)
    return this.state(call.id, null)
  }

  /** The call's state now, or once it leaves `pending`, whichever comes
   *  first within `waitMs` (a long poll, so the gateway never spins). */
  async outcome(callId: string, waitMs: number): Promise<GatewayCallState> {
    const current = this.handedOut(callId)
    if (current.status !== 'pending' || current.approvalId === null) return current
    let timer: NodeJS.Timeout | undefined
    await Promise.race([
      this.options.gate.waitForOutcome(current.approvalId),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, waitMs)
      }),
    ])
    clearTimeout(timer)
    return this.handedOut(callId)
  }

  /** Records what an allowed call returned. Refused for any call that was
   *  not allowed and running: the gateway cannot rewrite a denial. */
  report(callId: string, result: GatewayCallResult): void {
    const call = this.requireCall(callId)
    if (call.status !== 'running') {
      throw new Refusal('not_running', 'only an allowed, running call can report a result')
    }
    this.options.conversations.settleCall(
      call,
      {
        status: result.ok ? 'succeeded' : 'failed',
        result: {
          ok: result.ok,
          output: capOutput(result.output),
          ...(result.ok ? {} : { code: 'mcp_tool_error' }),
        },
      },
      'done',
      this.options.now(),
    )
    this.options.events.emit('timeline.updated', { roomId: call.roomId })
  }

  private settleDecision(callId: string, approval: ApprovalRecord): void {
    const { conversations, now, events } = this.options
    const at = now()
    if (approval.status === 'allowed') {
      // The gateway may have read the allow first, and been refused.
      if (conversations.getToolCall(callId)?.status !== 'awaiting-approval') return
      if (!this.refusedIfMoved(callId, approval.turnId)) {
        conversations.updateToolCall(callId, { status: 'running', at })
        conversations.setTurnStatus(approval.turnId, 'running')
      }
    } else {
      const expired = approval.status === 'expired'
      // Withdrawn here (its client cancelled), expired or denied: it says so.
      const withdrawn =
        expired && approval.reasonMessage?.code === CLIENT_CANCELLED.code
          ? approval.reasonMessage
          : undefined
      conversations.updateToolCall(callId, {
        status: expired ? 'expired' : 'denied',
        result: withdrawn
          ? {
              ok: false,
              output: englishText(withdrawn),
              code: 'approval_withdrawn',
              message: withdrawn,
            }
          : expired
            ? {
                ok: false,
                output: 'Nobody confirmed this MCP call in time; it did not run.',
                code: 'approval_expired',
              }
            : {
                ok: false,
                output: deniedCallText(approval),
                code: 'approval_denied',
                message: deniedCallWords(approval),
              },
        at,
      })
      conversations.setTurnStatus(approval.turnId, 'done')
    }
    events.emit('timeline.updated', { roomId: approval.roomId })
  }

  /**
   * The call's state as the gateway's long poll hands it out. The gateway
   * runs an allowed call as soon as it reads "allowed" (and reads no more),
   * so that is when the workspace is checked again, whoever allowed: an
   * allow given while the folder was swapped, replaced or removed is read
   * as `refused` (`workspace_moved`), recorded so in the room, and never
   * runs. Only here: a cancellation's read of a call already running
   * changes nothing.
   */
  private handedOut(callId: string): GatewayCallState {
    const call = this.requireCall(callId)
    const approval = call.approvalId ? this.options.approvals.get(call.approvalId) : undefined
    const notYetRun = call.status === 'awaiting-approval' || call.status === 'running'
    if (approval?.status === 'allowed' && notYetRun) {
      this.refusedIfMoved(callId, call.turnId, allowerOfApproval(approval))
    }
    return this.state(callId, null)
  }

  private state(callId: string, grantId: string | null): GatewayCallState {
    const call = this.requireCall(callId)
    const approval = call.approvalId ? this.options.approvals.get(call.approvalId) : undefined
    if (call.status === 'refused') {
      return {
        callId,
        roomId: call.roomId,
        approvalId: call.approvalId,
        status: 'refused',
        grantId,
        reason: call.result?.output ?? null,
        reasonMessage: null,
        code: call.result?.code ?? null,
      }
    }
    const ran = call.status === 'running' || call.status === 'succeeded' || call.status === 'failed'
    const status = approval
      ? approval.status === 'allowed'
        ? 'allowed'
        : approval.status
      : ran
        ? 'allowed'
        : 'pending'
    return {
      callId,
      roomId: call.roomId,
      approvalId: call.approvalId,
      status,
      grantId,
      reason: approval?.reason ?? null,
      ...(approval?.decidedBy === undefined ? {} : { decidedBy: approval.decidedBy }),
      reasonMessage: approval?.reasonMessage ?? null,
      code: null,
    }
  }

  /** Refuses the allowed call `callId`, and ends its turn, if its turn's
   *  workspace is no longer the folder it was admitted for; true if so. */
  private refusedIfMoved(callId: string, turnId: string, allower?: Allower): boolean {
    const { conversations, now, events } = this.options
    const turn = conversations.getTurn(turnId)
    // Opened with the call, so always there; if it cannot be read back,
    // the gateway hears an error and runs nothing rather than run unchecked.
    if (turn === undefined) throw new Refusal('unknown_call', 'unknown gateway call')
    // What allowed it must still stand where the gateway reads it (the room
    // put in plan, its webhook removed while it waited: refused).
    const moved =
      workspaceMovedSince(turn) ??
      (allower === undefined ? null : allowerStands(allower, turn, this.options.room))
    if (moved === null) return false
    conversations.updateToolCall(callId, {
      status: 'refused',
      result: { ok: false, output: moved.reason, code: moved.code, message: moved.message },
      at: now(),
    })
    conversations.setTurnStatus(turnId, 'done')
    events.emit('timeline.updated', { roomId: turn.roomId })
    return true
  }

  /** The gateway call `callId` if it was allowed and is running; refused
   *  otherwise. */
  runningCall(callId: string): ToolCallRecord {
    const call = this.requireCall(callId)
    if (call.status !== 'running') {
      throw new Refusal('not_running', 'only an allowed, running call can ask for input')
    }
    return call
  }

  private requireCall(callId: string): ToolCallRecord {
    const call = this.options.conversations.getToolCall(callId)
    const room = call ? this.options.rooms.getRoom(call.roomId) : undefined
    // Only calls in a gateway room are the gateway's to read or settle.
    if (!call || room?.agentId !== GATEWAY_AGENT_ID) {
      throw new Refusal('unknown_call', 'unknown gateway call')
    }
    return call
  }

  /** The gateway room of the folder whose real path the gateway pinned,
   *  created on its first call. Found by that path as pinned, never by
   *  what it resolves to now: resolving it again would follow a link put
   *  in its place to the other folder's room. */
  private gatewayRoom(realPath: string): Promise<Room> {
    return this.roomCreation.run(realPath, async () => {
      const existing = this.options.rooms.findRoom(GATEWAY_AGENT_ID, realPath)
      if (existing) return existing
      return this.options.rooms.createRoom({
        kind: 'direct',
        agentId: GATEWAY_AGENT_ID,
        workspace: realPath,
        title: 'MCP gateway',
      })
    })
  }
}
