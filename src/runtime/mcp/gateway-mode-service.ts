import type { GatewayMode, GatewayModeRequest } from '../../contracts/mcp-gateway.ts'
import { GATEWAY_AGENT_ID } from '../domain/agent-preset.ts'
import { Refusal } from '../domain/refusal.ts'
import type { EventBus, RuntimeEvent } from '../events/event-bus.ts'
import type { RoomDirectory } from '../ports/room-directory.ts'
import { narrowestRoomPolicy } from '../policy/room-policy.ts'
import { checkWorkspaceIdentity } from '../policy/workspace-identity.ts'

export interface GatewayModeServiceOptions {
  rooms: Pick<RoomDirectory, 'findRoom' | 'permissions'>
  events: EventBus
}

/** The revision of a folder whose gateway room does not exist yet: it
 *  starts at the mode a new room starts at. */
export const NO_GATEWAY_ROOM_REVISION = 'no-room'

/**
 * What the MCP gateway needs to know of its room's mode to run anything
 * without asking the runtime: whether the room's policy never asks
 * (plan mode), in which case the gateway runs nothing unasked, since plan
 * mode refuses every MCP call before anyone or anything is consulted.
 * Gated calls come here anyway (`GatewayCallService`); a read-only
 * manifest's call, a preview, a read or a sampling request would not, so
 * the gateway watches this instead of asking per call: a long poll that
 * answers within milliseconds of the room's change.
 *
 * Nothing here creates the room (the gateway's first gated call does):
 * a folder with no gateway room is in the mode a new room starts in.
 */
export class GatewayModeService {
  private readonly options: GatewayModeServiceOptions

  constructor(options: GatewayModeServiceOptions) {
    this.options = options
  }

  /**
   * The mode of the gateway room of the folder the gateway pinned, at once
   * when its revision is not `seen`; otherwise once the room changes (or
   * is created), or after `waitMs` with the same, or when `signal` aborts
   * (the gateway went away). A folder that is no longer the one the
   * gateway pinned is refused (`workspace_moved`), as its calls are.
   */
  async watch(
    request: GatewayModeRequest,
    waitMs: number,
    signal?: AbortSignal,
  ): Promise<GatewayMode> {
    const started = checkWorkspaceIdentity(request.workspaceIdentity)
    if (!started.ok) throw new Refusal('workspace_moved', started.reason)
    const realPath = request.workspaceIdentity.realPath
    // Read and subscribed to in one synchronous stretch: no change can
    // fall between the two.
    const now = this.modeOf(realPath)
    if (now.mode.revision !== request.seen || signal?.aborted === true) return now.mode
    return new Promise<GatewayMode>((resolve, reject) => {
      let done = false
      const finish = () => {
        if (done) return
        done = true
        clearTimeout(timer)
        unsubscribe()
        signal?.removeEventListener('abort', finish)
        try {
          resolve(this.modeOf(realPath).mode)
        } catch (error) {
          reject(error as Error)
        }
      }
      const timer = setTimeout(finish, waitMs)
      const unsubscribe = this.options.events.subscribe((event) => {
        if (concerns(event, realPath, now.roomId)) finish()
      })
      signal?.addEventListener('abort', finish, { once: true })
    })
  }

  /** The room's state now, and its id (undefined: no room yet). A row
   *  whose integrity check failed, or that was rolled back, is read as
   *  never asking: its stored mode cannot be told, so the gateway runs
   *  nothing unasked until the person confirms a mode again. */
  private modeOf(realPath: string): { mode: GatewayMode; roomId: string | undefined } {
    const room = this.options.rooms.findRoom(GATEWAY_AGENT_ID, realPath)
    if (room === undefined) {
      const neverAsks = narrowestRoomPolicy('direct').approvalPolicy === 'never'
      return { mode: { revision: NO_GATEWAY_ROOM_REVISION, neverAsks }, roomId: undefined }
    }
    const { revision, policy, integrity } = this.options.rooms.permissions(room.id)
    return {
      mode: {
        revision: `${room.id}@${revision}:${integrity}`,
        neverAsks: policy.approvalPolicy === 'never' || integrity !== 'ok',
      },
      roomId: room.id,
    }
  }
}

/** Whether `event` may change the mode of the gateway room of `realPath`
 *  (`roomId`, once it exists): its mode changed, or it was created. */
function concerns(event: RuntimeEvent, realPath: string, roomId: string | undefined): boolean {
  if (event.type === 'room.updated') return roomId !== undefined && event.data.roomId === roomId
  if (event.type !== 'room.created') return false
  const room = event.data.room as { agentId?: unknown; workspace?: unknown } | undefined
  return room?.agentId === GATEWAY_AGENT_ID && room.workspace === realPath
}
