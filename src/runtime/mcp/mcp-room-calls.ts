import type { ToolCallRecord, Turn } from '../../contracts/room.ts'
import { message, type RuntimeMessage } from '../../contracts/runtime-message.ts'
import type { AgentPreset } from '../domain/agent-preset.ts'
import type { ConversationStore } from '../ports/conversation-store.ts'
import type { WhenDurable } from '../ports/durability.ts'
import type { GrantStore } from '../ports/grant-store.ts'
import type { McpToolCalls, ToolCallOutcome } from '../ports/mcp-tool-calls.ts'
import type { EventBus } from '../events/event-bus.ts'
import type { ApprovalRequester } from '../gate/approval-requester.ts'
import { capOutput } from '../tools/tool-types.ts'
import { mcpTouch } from '../policy/person-only.ts'
import { grantForAction } from '../policy/private-read-approval.ts'
import { workspaceMovedSince } from '../policy/workspace-identity.ts'
import {
  allowerOfApproval,
  allowerStands,
  policyInForce,
  turnInForce,
  type Allower,
  type RoomNow,
} from '../policy/allower-stands.ts'
import {
  mcpApprovalFields,
  runGatedMcpCall,
  type McpConsentPort,
  type McpConsentRequest,
  type McpConsentTicket,
} from './gated-mcp-call.ts'
import { resultText, type McpConnection } from './mcp-connection.ts'
import { McpRefusal, notOfferedInPlan } from './mcp-refusal.ts'
import { refuseIfWorkspaceMoved } from './mcp-workspace.ts'
import type { McpElicitationRouter } from './mcp-elicitation.ts'
import type { McpServerRegistry } from './mcp-server-registry.ts'
import { splitNamespacedToolName } from './mcp-tool-definition.ts'

export interface McpRoomCallsOptions {
  conversations: ConversationStore
  grants: GrantStore
  /** Where a gated call asks the person. */
  requester: ApprovalRequester
  events: EventBus
  servers: McpServerRegistry
  /** Where a server's request for input during a call is routed. */
  elicitation: McpElicitationRouter
  now: () => number
  /** Resolves once every write committed so far is on disk (the store's
   *  group commit, store/durability.ts). */
  durable: WhenDurable
  /** The room now: a call is judged, and run, under the narrower of the
   *  turn's frozen policy and the room's (policy/allower-stands.ts). */
  room: RoomNow
}

export type McpCallOutcome = ToolCallOutcome

/**
 * An agent's MCP tool call inside a room (`server__tool`). The runtime is
 * the MCP client: it asks the person through the approval gate, exactly as
 * for a built-in tool, with an `mcp-tool-call` approval whose canonical
 * action names the server, the tool's definition and the full arguments.
 * The room's mode never lets a gated MCP server skip consent: only a server
 * with a read-only manifest (or a read of Assent's built-in filesystem
 * server) runs unasked, and only a grant for the exact tool definition can
 * answer in the person's place.
 */
export class McpRoomCalls implements McpToolCalls {
  private readonly options: McpRoomCallsOptions

  constructor(options: McpRoomCallsOptions) {
    this.options = options
  }

  handles(toolName: string): boolean {
    return splitNamespacedToolName(toolName) !== undefined
  }

  async run(turn: Turn, agent: AgentPreset, call: ToolCallRecord): Promise<McpCallOutcome> {
    // A server is started in, and leased by, the turn's workspace: in a
    // folder that is no longer the room's, nothing is started or asked.
    // (runGatedMcpCall checks again after the answer and before the call.)
    const moved = workspaceMovedSince(turn)
    if (moved) return refused(moved.reason, moved.code, moved.message)
    const parts = splitNamespacedToolName(call.toolName)
    // Held to the end of the call: a new mcp.json applies to calls that
    // start after it, never to one the person is deciding on.
    const lease = parts ? this.options.servers.lease(parts.serverId, turn.workspace) : undefined
    if (!parts || !lease) {
      return refused(
        `No MCP server is configured for ${call.toolName}.`,
        'unknown_mcp_server',
        message('mcp.unknownServer', { tool: call.toolName }),
      )
    }
    try {
      return await this.runLeased(turn, agent, call, parts.toolName, lease.connection)
    } finally {
      lease.release()
    }
  }

  private async runLeased(
    turn: Turn,
    agent: AgentPreset,
    call: ToolCallRecord,
    toolName: string,
    connection: McpConnection,
  ): Promise<McpCallOutcome> {
    const serverId = connection.server.id
    // A read-only agent may use only what runs without consent: anything
    // gated would be a change it is not allowed to ask for.
    const ungated =
      !connection.server.requires_approval ||
      connection.server.approvalFreeTools?.includes(toolName) === true
    if (agent.toolPolicy.readOnly && !ungated) {
      return refused(
        `${agent.name} is read-only and may not call ${call.toolName}.`,
        'read_only_agent',
        message('mcp.readOnlyAgent', { agent: agent.name, tool: call.toolName }),
      )
    }
    try {
      const result = await this.options.elicitation.during(
        serverId,
        { roomId: turn.roomId, turnId: turn.id },
        (running) =>
          runGatedMcpCall(
            connection,
            toolName,
            call.arguments,
            this.consentFor(turn, call, running),
            turn.workspace,
          ),
      )
      const ok = result.isError !== true
      return {
        status: ok ? 'succeeded' : 'failed',
        result: {
          ok,
          output: capOutput(resultText(result)),
          ...(ok ? {} : { code: 'mcp_tool_error' }),
        },
      }
    } catch (error) {
      if (error instanceof McpRefusal) return outcomeOfRefusal(error, call.toolName)
      const detail = (error as Error).message
      return {
        status: 'failed',
        result: {
          ok: false,
          output: `The MCP call failed: ${detail}`,
          code: 'mcp_error',
          message: message('mcp.failed', { detail }),
        },
      }
    }
  }

  /** `running` lets the server's forms reach the person: called last
   *  before the call runs, never for its preview or while it is asked,
   *  and to no effect for a call that runs unasked. */
  private consentFor(
    turn: Turn,
    call: ToolCallRecord,
    running: (asked: boolean) => void,
  ): McpConsentPort {
    const { conversations, events, now, durable, room } = this.options
    // What allowed the call, once it is asked: until then it runs unasked
    // (a read-only manifest), which stands only outside plan mode.
    let allower: Allower = { by: 'manifest' }
    return {
      ask: async (request) => {
        const answered = await this.ask(turn, call, request)
        allower = answered.allower
        return answered.ticket
      },
      // After the person, a grant or nobody answered, and right before the
      // call: an allow answers for the folder the turn was admitted for,
      // not for what is at its path now.
      checkWorkspace: () => refuseIfWorkspaceMoved(turn),
      // The policy in force: plan is refused before any MCP call in a room
      // (tool-call-runner.ts), so this only keeps the one rule shared.
      mayRun: (name) => {
        if (policyInForce(turn, room).approvalPolicy === 'never') throw notOfferedInPlan(name)
      },
      beforeRun: async (asked) => {
        conversations.updateToolCall(call.id, { status: 'running', at: now() })
        events.emit('timeline.updated', { roomId: turn.roomId })
        // The decision and "running" are on disk before the server acts; if
        // they cannot be made durable this throws and the call never runs.
        await durable()
        // Last before the server acts: what allowed the call must still
        // stand under the room's mode now (a grant revoked, plan entered
        // while the person or the disk was waited for). Refused, it never
        // runs; runGatedMcpCall records the refusal.
        const fallen = allowerStands(allower, turn, room)
        if (fallen) throw new McpRefusal('not_allowed', fallen.reason, fallen.code, fallen.message)
        running(asked)
      },
    }
  }

  private async ask(
    turn: Turn,
    call: ToolCallRecord,
    request: McpConsentRequest,
  ): Promise<{ ticket: McpConsentTicket; allower: Allower }> {
    const { conversations, requester, now, room } = this.options
    const report = async () => undefined
    const action = { ...mcpApprovalFields(request), workingDirectory: turn.workspace }
    const inForce = turnInForce(turn, room)
    const grant = grantForAction(
      mcpTouch(request, turn.workspace),
      action,
      inForce.policy.approvalPolicy,
      () => this.options.grants.findMcpGrant(turn.roomId, request),
    )
    if (grant) {
      conversations.recordAllowedByGrant(call, grant.id, now())
      // Answered at once, against the definition and preview this call
      // just fetched (the grant binds the definition): as at the
      // gateway's door, nobody read anything a change could hide behind,
      // so they are not fetched again before it runs.
      const ticket = { status: 'allowed' as const, reason: null, byGrant: true as const, report }
      return { ticket, allower: { by: 'grant', grantId: grant.id } }
    }
    // No review description: the automatic reviewer cannot judge what an
    // MCP server will do, so the person decides whatever the room's mode.
    const outcome = await requester.ask({ turn: inForce, call, action })
    // The outcome resolves only once the approval left pending.
    const status = outcome.status === 'pending' ? 'expired' : outcome.status
    const ticket = {
      status,
      reason: outcome.reason ?? null,
      ...(outcome.decidedBy === undefined ? {} : { decidedBy: outcome.decidedBy }),
      ...(outcome.reasonMessage === undefined ? {} : { reasonMessage: outcome.reasonMessage }),
      report,
    }
    return { ticket, allower: allowerOfApproval(outcome) }
  }
}

function refused(output: string, code: string, words: RuntimeMessage): McpCallOutcome {
  return { status: 'refused', result: { ok: false, output, code, message: words } }
}

/** The refusal's English for the model, and the same in words, as the
 *  room records an MCP call that did not run. */
export function outcomeOfRefusal(refusal: McpRefusal, tool: string): McpCallOutcome {
  if (refusal.reason === 'denied') {
    return {
      status: 'denied',
      result: {
        ok: false,
        output: refusal.message,
        code: 'approval_denied',
        // Who denied it, said where the refusal was made (`deniedRefusal`).
        message: refusal.words ?? message('call.denied'),
      },
    }
  }
  if (refusal.reason === 'expired') {
    return {
      status: 'expired',
      result: {
        ok: false,
        output: refusal.message,
        code: 'approval_expired',
        message: refusal.words ?? message('call.expired'),
      },
    }
  }
  if (refusal.words !== undefined) {
    return refused(refusal.message, refusal.detail ?? 'mcp_not_allowed', refusal.words)
  }
  const words =
    refusal.detail === 'definition_changed'
      ? message('mcp.definitionChanged', { tool })
      : refusal.detail === 'preview_changed'
        ? message('mcp.previewChanged', { tool })
        : refusal.detail === 'too_long_to_show'
          ? message('mcp.tooLongToShow', { tool })
          : message('mcp.notAllowed', { tool })
  return refused(refusal.message, refusal.detail ?? 'mcp_not_allowed', words)
}
