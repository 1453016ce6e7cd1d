import type { RoomPolicy } from '../../contracts/policy-axes.ts'
import type {
  RoomKind,
  RoomPermissions,
  RowIntegrity,
  WorkspaceIdentity,
} from '../../contracts/room.ts'

export interface RoomRow {
  id: string
  kind: RoomKind
  agentId: string
  /** The workspace's real path when the room was made. */
  workspace: string
  /** The folder's identity at `workspace`, taken when the room was made
   *  (its `realPath` is `workspace`). Absent on a room made before
   *  identities were kept, until it is pinned (`pinWorkspace`). */
  workspaceIdentity?: WorkspaceIdentity
  title: string
  policy: RoomPolicy
  revision: number
  createdAt: number
}

/**
 * A room as read back. A row whose MAC does not verify comes back with
 * `integrity: 'tampered'` and the narrowest policy for its kind, never the
 * policy it claims: whoever edited the file must not get the wider mode
 * through any reader that forgets to look at `integrity`. A row read from a
 * database older than its rollback anchor, and not confirmed since, comes
 * back the same way with `integrity: 'rolled-back'`.
 */
export interface StoredRoom extends RoomRow {
  integrity: RowIntegrity
}

/** The first answer to one permission change, kept under its idempotency
 *  key. */
export interface PermissionRequestRow {
  bodyDigest: string
  resultJson: string
}

/** One confirmed mode change, as the room service asks for it. */
export interface PolicyChange {
  roomId: string
  clientRequestId: string
  /** Digest of the request's body, to tell a repeat from a conflict. */
  bodyDigest: string
  policy: RoomPolicy
  expectedRevision: number
  /** The modes before and after, as the audit event names them. */
  fromMode: string
  toMode: string
  at: number
  /** The identity sealed into the row with the change, when it is not the
   *  row's own: the folder now at the workspace path, which the person's
   *  confirmation accepts, or, for a row edited on disk, the identity its
   *  creation record vouches for (null: none, to be pinned at first use). */
  repinWorkspace?: WorkspaceIdentity | null
}

/**
 * Rooms, sealed against edits on disk.
 *
 * Invariants the adapter keeps: a room and its `room_created` event are
 * written in one transaction; a policy change is a compare-and-set on the
 * revision that writes the new sealed row (clearing a rolled-back mark),
 * the idempotency record, the `room_permission_changed` event and one step
 * of the rollback counter in one transaction, or nothing.
 */
export interface RoomStore {
  get(id: string): StoredRoom | undefined
  /** Every room, oldest first. */
  list(): StoredRoom[]
  /** The oldest room of `agentId` whose workspace is `workspace`, as
   *  `list` would find it first. */
  findByAgentWorkspace(agentId: string, workspace: string): StoredRoom | undefined
  getPermissionRequest(roomId: string, clientRequestId: string): PermissionRequestRow | undefined
  /** Writes a new room with its `room_created` event. */
  create(row: RoomRow): void
  /**
   * Applies a policy change if the room is still at `expectedRevision`, and
   * answers what `permissionsAfter` reads of it inside the same transaction
   * (stored as the idempotent answer). Undefined, with nothing written,
   * when the revision moved.
   */
  changePolicy(
    change: PolicyChange,
    permissionsAfter: () => RoomPermissions,
  ): RoomPermissions | undefined
  /**
   * Pins a room made before identities were kept: seals `identity` into its
   * row with a `room_workspace_pinned` event, in one transaction. Only a row
   * with no identity yet, whose seal verifies, and whose workspace is
   * `identity.realPath`: false, with nothing written, otherwise.
   */
  pinWorkspace(roomId: string, identity: WorkspaceIdentity, at: number): boolean
  /** The payload of the room's `room_created` audit event, only if that
   *  event's hash and MAC verify: what its agent and workspace really were. */
  sealedCreation(roomId: string): Record<string, unknown> | undefined
}
