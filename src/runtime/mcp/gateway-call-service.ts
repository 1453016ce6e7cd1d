import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto'
import { realpathSync } from 'node:fs'
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
import type { ApprovalStore } from '../ports/approval-store.ts'
import type { ConversationStore } from '../ports/conversation-store.ts'
import type { GrantStore } from '../ports/grant-store.ts'
import type { RoomDirectory } from '../ports/room-directory.ts'
import { grantThatMayAnswer, mcpTouch } from '../policy/person-only.ts'
import { mcpApprovalFields } from './gated-mcp-call.ts'
import { namespacedToolName } from './mcp-tool-definition.ts'

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
    const room = await this.gatewayRoom(request.workspace)
    // The gateway's folder replaced since its room was made: the call is
    // refused rather than opened in a room that trusts another folder.
    const { workspaceIdentity, policy } = this.options.rooms.admitRoom(room.id)
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

    const grant = grantThatMayAnswer(mcpTouch(request, room.workspace), () =>
      this.options.grants.findMcpGrant(room.id, request),
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
        cancelKey,
      }
    }

    conversations.openCall(turn, call)
    // Only the person decides a gateway call: no review description.
    const pending = this.options.requester.open({
      turn,
      call,
      action: { ...mcpApprovalFields(request), workingDirectory: room.workspace },
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
   * closes). Only with the key the call was opened with: every gateway
   * holds the same credential, and none may withdraw another's call. A
   * call no longer waiting is left as it is.
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
    const current = this.state(callId, null)
    if (current.status !== 'pending' || current.approvalId === null) return current
    let timer: NodeJS.Timeout | undefined
    await Promise.race([
      this.options.gate.waitForOutcome(current.approvalId),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, waitMs)
      }),
    ])
    clearTimeout(timer)
    return this.state(callId, null)
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
      conversations.updateToolCall(callId, { status: 'running', at })
      conversations.setTurnStatus(approval.turnId, 'running')
    } else {
      const expired = approval.status === 'expired'
      // An approval this service withdrew (its client cancelled) says so;
      // one that ran out of time or was denied says that.
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
          : {
              ok: false,
              output: expired
                ? 'Nobody confirmed this MCP call in time; it did not run.'
                : 'Denied; the MCP call did not run.',
              code: expired ? 'approval_expired' : 'approval_denied',
            },
        at,
      })
      conversations.setTurnStatus(approval.turnId, 'done')
    }
    events.emit('timeline.updated', { roomId: approval.roomId })
  }

  private state(callId: string, grantId: string | null): GatewayCallState {
    const call = this.requireCall(callId)
    const approval = call.approvalId ? this.options.approvals.get(call.approvalId) : undefined
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
    }
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

  /** The folder's gateway room, created on its first call. */
  private gatewayRoom(workspace: string): Promise<Room> {
    return this.roomCreation.run(workspace, async () => {
      const real = realGatewayFolder(workspace)
      const existing = this.options.rooms.findRoom(GATEWAY_AGENT_ID, real)
      if (existing) return existing
      return this.options.rooms.createRoom({
        kind: 'direct',
        agentId: GATEWAY_AGENT_ID,
        workspace: real,
        title: 'MCP gateway',
      })
    })
  }
}

/** The real path of the gateway's folder: one system call, not a trip
 *  through the thread pool on every call. */
function realGatewayFolder(workspace: string): string {
  try {
    return realpathSync.native(workspace)
  } catch {
    throw new Refusal('invalid_workspace', 'workspace: must be an existing directory')
  }
}
