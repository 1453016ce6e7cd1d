import { randomUUID } from 'node:crypto'
import { canonicalJson } from '../../contracts/canonical-json.ts'
import { sha256Hex } from '../domain/sha256.ts'
import { modeFromPolicy, policyForMode, reachesAsFar } from '../policy/permission-modes.ts'
import { narrowestRoomPolicy } from '../policy/room-policy.ts'
import { checkWorkspaceIdentity, workspaceIdentityNow } from '../policy/workspace-identity.ts'
import type {
  CreateRoomRequest,
  Grant,
  PermissionChangeRequest,
  Room,
  RoomPermissions,
  Timeline,
  TimelinePage,
  WorkspaceIdentity,
} from '../../contracts/room.ts'
import type { RoomPolicy } from '../../contracts/policy-axes.ts'
import type { EventBus } from '../events/event-bus.ts'
import { fullAccessBlocker, type AgentPreset } from '../domain/agent-preset.ts'
import type { ApprovalStore } from '../ports/approval-store.ts'
import type { ConversationStore, TimelinePageRequest } from '../ports/conversation-store.ts'
import type { GrantStore } from '../ports/grant-store.ts'
import type { RollbackAnchorSync } from '../ports/rollback-anchor.ts'
import type { RoomDirectory } from '../ports/room-directory.ts'
import type { RoomRow, RoomStore, StoredRoom } from '../ports/room-store.ts'
import { Refusal } from '../domain/refusal.ts'
import { KeyedMutex } from '../concurrency/keyed-mutex.ts'
import { movedReason, realWorkspace, trustedIdentity } from './room-workspace.ts'
import { readTimeline, readTimelinePage } from './room-timeline.ts'
import { roomView } from './room-view.ts'

export interface RoomServiceOptions {
  rooms: RoomStore
  conversations: ConversationStore
  approvals: ApprovalStore
  grants: GrantStore
  events: EventBus
  agents: readonly AgentPreset[]
  /** Keeps the rollback anchor in step with mode changes. */
  rollback: RollbackAnchorSync
  now: () => number
  newId?: () => string
}

export class RoomService implements RoomDirectory {
  private readonly options: RoomServiceOptions
  private readonly newId: () => string
  private readonly roomLocks = new KeyedMutex()

  constructor(options: RoomServiceOptions) {
    this.options = options
    this.newId = options.newId ?? randomUUID
  }

  agentFor(agentId: string): AgentPreset | undefined {
    return this.options.agents.find((agent) => agent.id === agentId)
  }

  /** A new room starts at ask-for-approval, whatever the global settings say. */
  async createRoom(request: CreateRoomRequest): Promise<Room> {
    if (!this.agentFor(request.agentId)) {
      throw new Refusal('unknown_agent', `agentId: no agent named ${request.agentId}`)
    }
    const workspaceIdentity = await realWorkspace(request.workspace)
    const row: RoomRow = {
      id: this.newId(),
      kind: request.kind,
      agentId: request.agentId,
      workspace: workspaceIdentity.realPath,
      workspaceIdentity,
      title: request.title,
      policy: narrowestRoomPolicy(request.kind),
      revision: 0,
      createdAt: this.options.now(),
    }
    this.options.rooms.create(row)
    const room = roomView(row)
    this.options.events.emit('room.created', { room })
    return room
  }

  getRoom(roomId: string): Room {
    return roomView(this.requireRoom(roomId))
  }

  listRooms(): Room[] {
    return this.options.rooms.list().map(roomView)
  }

  findRoom(agentId: string, workspace: string): Room | undefined {
    const row = this.options.rooms.findByAgentWorkspace(agentId, workspace)
    return row ? roomView(row) : undefined
  }

  timeline(roomId: string): Timeline {
    this.requireRoom(roomId)
    return readTimeline(this.options, roomId)
  }

  /** A page of the room's timeline (room-timeline.ts). A turn that is not
   *  this room's is refused, never read as an empty page. */
  timelinePage(roomId: string, request: TimelinePageRequest): TimelinePage {
    this.requireRoom(roomId)
    const page = readTimelinePage(this.options, roomId, request)
    if (!page) throw new Refusal('not_found', `turnId: no turn of this room`)
    return page
  }

  /** Reading settings never calls a model. A room whose row was edited on
   *  disk, or read from a database older than its rollback anchor, reads as
   *  its narrowest policy with `integrity: 'tampered'` or `'rolled-back'`
   *  until the person confirms a mode again. */
  permissions(roomId: string): RoomPermissions {
    const room = this.requireDirectRoom(roomId)
    const agent = this.agentFor(room.agentId)
    return {
      roomId,
      revision: room.revision,
      policy: room.policy,
      mode: modeFromPolicy(room.policy),
      // An unknown agent gets no full access: fail closed.
      fullAccessUnavailable: agent ? fullAccessBlocker(agent) : 'read_only_agent',
      integrity: room.integrity,
      ...(this.workspaceMoved(room) ? { workspaceMoved: true } : {}),
    }
  }

  /** Whether the room's pinned workspace is no longer the folder at its
   *  path. A room not pinned yet is judged at its next turn, which pins it
   *  or refuses. */
  private workspaceMoved(room: StoredRoom): boolean {
    const pinned = trustedIdentity(this.options.rooms, room)
    return pinned !== undefined && !checkWorkspaceIdentity(pinned).ok
  }

  /**
   * Applies a mode change. `consented`: the caller verified a consent token
   * bound to this request. Without one only entering plan mode is applied:
   * plan is narrower than every mode on every axis, so it is like revoking
   * a grant and the bearer token is enough; it is still revision-checked,
   * idempotent and audited like any change. A room whose stored row was
   * edited outside Assent is the exception: sealing it again is how the
   * person vouches for it, which only the protected window may do.
   * `clientRequestId` is an idempotency key: the same id with the same body
   * returns the first result; with a different body it is a conflict.
   *
   * A change that reaches as far or further than the room does now is
   * refused while the rollback anchor is behind and cannot be brought up
   * to date: a narrowing whose anchor write failed could otherwise be
   * undone by putting an older copy of the database back, so nothing is
   * widened on top of it. A narrowing is never refused. Either way the
   * answer waits until the anchor has been tried for the change.
   */
  changeMode(
    roomId: string,
    request: PermissionChangeRequest,
    options: { consented: boolean },
  ): Promise<RoomPermissions> {
    return this.roomLocks.run(roomId, async () => {
      const bodyDigest = sha256Hex(canonicalJson(request))
      const previous = this.options.rooms.getPermissionRequest(roomId, request.clientRequestId)
      if (previous) {
        if (previous.bodyDigest !== bodyDigest) {
          throw new Refusal('client_request_conflict', 'clientRequestId was used with another body')
        }
        return JSON.parse(previous.resultJson) as RoomPermissions
      }
      const room = this.requireDirectRoom(roomId)
      if (!options.consented && (request.mode !== 'plan' || room.integrity !== 'ok')) {
        throw new Refusal('consent_required', 'protected permission consent required')
      }
      if (room.integrity === 'tampered') this.assertSealedOrigin(room)
      if (options.consented) this.assertRoomAsShown(room, request)
      const widens = reachesAsFar(modeFromPolicy(room.policy), request.mode)
      const repinWorkspace = options.consented ? this.confirmedWorkspace(room, widens) : undefined
      if (room.revision !== request.expectedRevision) {
        throw new Refusal(
          'stale_revision',
          `expectedRevision ${request.expectedRevision} is stale: the room is at revision ${room.revision}`,
        )
      }
      const agent = this.agentFor(room.agentId)
      const blocker = agent ? fullAccessBlocker(agent) : 'read_only_agent'
      if (request.mode === 'full-access' && blocker) {
        throw new Refusal(blocker, `full access is unavailable for this agent: ${blocker}`)
      }
      if (widens) {
        await this.options.rollback.beforeWidening()
      }
      const policy = policyForMode(request.mode)
      const at = this.options.now()
      if (repinWorkspace) {
        // Every "always" was given for the folder the room was made for, not
        // the one the person now accepts at its path: what they allowed must
        // not reach a folder they never saw. Revoked first, so no moment
        // exists where the new folder is accepted and an old grant answers.
        for (const grant of this.options.grants.listActive(roomId)) {
          this.options.grants.revoke(roomId, grant.id, at)
        }
      }
      const result = this.options.rooms.changePolicy(
        {
          roomId,
          clientRequestId: request.clientRequestId,
          bodyDigest,
          policy,
          expectedRevision: request.expectedRevision,
          fromMode: modeFromPolicy(room.policy),
          toMode: request.mode,
          at,
          ...(repinWorkspace === undefined ? {} : { repinWorkspace }),
        },
        () => this.permissions(roomId),
      )
      if (!result) throw new Refusal('stale_revision', 'the room changed meanwhile')
      this.options.events.emit('room.updated', { roomId, permissions: result })
      await this.options.rollback.settled()
      return result
    })
  }

  listGrants(roomId: string): Grant[] {
    this.requireRoom(roomId)
    return this.options.grants.listActive(roomId)
  }

  /** Revoking narrows permissions, so the bearer token is enough. */
  revokeGrant(roomId: string, grantId: string): void {
    this.requireRoom(roomId)
    const revoked = this.options.grants.revoke(roomId, grantId, this.options.now())
    if (!revoked) throw new Refusal('unknown_grant', 'unknown grant')
    this.options.events.emit('grant.changed', { roomId })
  }

  /** Revokes every grant of one MCP server in the room, each audited; a
   *  404 when there is none, like revoking one unknown grant. */
  revokeMcpServerGrants(roomId: string, serverId: string): string[] {
    this.requireRoom(roomId)
    const ids = this.options.grants.activeMcpGrantIds(roomId, serverId)
    if (ids.length === 0) throw new Refusal('unknown_grant', 'no active grants for that server')
    for (const grantId of ids) this.revokeGrant(roomId, grantId)
    return ids
  }

  /**
   * A consented change seals the row again and re-pins a replaced workspace
   * (confirmedWorkspace), which gives a room back its turns, grants and
   * webhook. The token binds which of the two the person's window said.
   * Main times a confirm that says neither like a narrowing, with no enable
   * delay, so one that would re-pin or re-seal without saying so is refused:
   * the click would vouch for a folder or a row nobody showed. One that says
   * so of a room that no longer needs it is not the room shown either.
   */
  private assertRoomAsShown(room: StoredRoom, request: PermissionChangeRequest): void {
    const moved = this.workspaceMoved(room)
    const reseals = room.integrity !== 'ok'
    if (
      moved !== (request.acceptsReplacedWorkspace === true) ||
      reseals !== (request.resealsRoom === true)
    ) {
      throw new Refusal(
        'stale_revision',
        "the room's workspace or stored settings changed since its window opened; review the change again",
      )
    }
  }

  /**
   * Confirming a mode seals the whole row again, its agent and workspace
   * included. On a tampered row those may be what the editor put there, so
   * they must match the room's sealed creation record first; otherwise the
   * person's click would vouch for a workspace they never chose.
   */
  private assertSealedOrigin(room: StoredRoom): void {
    const created = this.options.rooms.sealedCreation(room.id)
    if (
      !created ||
      created.kind !== room.kind ||
      created.agentId !== room.agentId ||
      created.workspace !== room.workspace
    ) {
      throw new Refusal(
        'room_tampered',
        "this room's agent or workspace was changed outside Assent and cannot be confirmed; create a new room",
      )
    }
  }

  /**
   * The room's workspace identity, checked now: what a turn is admitted
   * with and every door it acts through checks again. Refused
   * (`workspace_moved`) when the folder at the workspace's path is not the
   * pinned one.
   *
   * A room made before identities were kept is pinned here, once, to the
   * folder its path resolves to now, and only if that path still resolves
   * to itself: a workspace swapped for a link since is refused, never
   * followed. Pinning then narrows what the room trusted (its name) to one
   * folder; a folder replaced under the same name before the upgrade cannot
   * be told apart by anything Assent kept, and asking the person would show
   * them the same path. A row edited on disk is not pinned this way:
   * sealing it would vouch for the edit.
   */
  admitWorkspace(room: StoredRoom): WorkspaceIdentity {
    let pinned = trustedIdentity(this.options.rooms, room)
    if (pinned === undefined) {
      if (room.integrity === 'tampered') {
        throw new Refusal(
          'room_tampered',
          "this room was changed outside Assent and its workspace cannot be verified; confirm the room's mode again in Assent's window",
        )
      }
      const now = workspaceIdentityNow(room.workspace)
      if (now === null || now.realPath !== room.workspace) {
        throw new Refusal('workspace_moved', movedReason(room.workspace, now))
      }
      if (!this.options.rooms.pinWorkspace(room.id, now, this.options.now())) {
        // Pinned meanwhile (or the row changed): judge by what is stored.
        const again = this.requireRoom(room.id)
        if (again.workspaceIdentity === undefined) {
          throw new Refusal('workspace_moved', movedReason(room.workspace, null))
        }
        return this.admitWorkspace(again)
      }
      pinned = now
    }
    const check = checkWorkspaceIdentity(pinned)
    if (!check.ok) throw new Refusal('workspace_moved', check.reason)
    return pinned
  }

  admitRoom(roomId: string): { workspaceIdentity: WorkspaceIdentity; policy: RoomPolicy } {
    // One read: the identity admitted and the policy granted are of the
    // same row, never of two reads a write could fall between.
    const room = this.requireDirectRoom(roomId)
    return { workspaceIdentity: this.admitWorkspace(room), policy: room.policy }
  }

  /**
   * The identity a consented mode change seals into the row: undefined to
   * keep the row's own. The person confirming a mode in the protected
   * window is how a replaced workspace is accepted: the folder now at the
   * same real path is pinned. A workspace whose path now leads elsewhere
   * (or nowhere) is refused: the person chose a folder, not whatever a link
   * points to, and only a new room can choose another. An edited row is
   * sealed with the identity its creation record vouches for, never the
   * one in the row. A narrowing is never refused for it: it is applied and
   * the workspace stays as it was (its turns still refused).
   */
  private confirmedWorkspace(
    room: StoredRoom,
    widens: boolean,
  ): WorkspaceIdentity | null | undefined {
    const pinned = trustedIdentity(this.options.rooms, room)
    // What an unchanged workspace is sealed with: the row's own, unless the
    // row was edited, whose identity columns may be the editor's.
    const kept = room.integrity === 'tampered' ? (pinned ?? null) : undefined
    const check = pinned === undefined ? undefined : checkWorkspaceIdentity(pinned)
    if (check?.ok === true) return kept
    const now = workspaceIdentityNow(room.workspace)
    const samePath = now !== null && now.realPath === room.workspace
    if (samePath && (check === undefined || check.change === 'replaced')) return now
    if (!widens) return kept
    throw new Refusal(
      'workspace_moved',
      check !== undefined && !check.ok ? check.reason : movedReason(room.workspace, now),
    )
  }

  /** The stored row of a room, or a 404: for the turn service, which
   *  admits turns under the row's (verified) policy. */
  storedRoom(roomId: string): StoredRoom {
    return this.requireRoom(roomId)
  }

  private requireRoom(roomId: string): StoredRoom {
    const room = this.options.rooms.get(roomId)
    if (!room) throw new Refusal('unknown_room', 'unknown room')
    return room
  }

  private requireDirectRoom(roomId: string): StoredRoom {
    const room = this.requireRoom(roomId)
    if (room.kind !== 'direct') {
      throw new Refusal('private_conversation_required', 'private conversation required')
    }
    return room
  }
}
