import type { RoomPolicy } from '../../contracts/policy-axes.ts'
import type {
  CreateRoomRequest,
  Room,
  RoomPermissions,
  WorkspaceIdentity,
} from '../../contracts/room.ts'

/**
 * The rooms as a service outside `rooms/` sees them (the MCP gateway's calls
 * live in rooms of their own).
 *
 * Invariants the adapter keeps: `getRoom` and `admitRoom` throw a refusal
 * (`unknown_room`) for a room that does not exist; `admitRoom` reads a row
 * whose integrity check failed as its narrowest policy; `createRoom` stores
 * the room and its `room_created` audit event together, at the narrowest
 * policy for its kind.
 */
export interface RoomDirectory {
  getRoom(roomId: string): Room
  /** The oldest room of `agentId` at the real path `workspace`, if any:
   *  one query, not a read (and an integrity check) of every room. */
  findRoom(agentId: string, workspace: string): Room | undefined
  createRoom(request: CreateRoomRequest): Promise<Room>
  /** What a turn in a private room runs under, from one read of its row:
   *  its workspace identity, checked now (a refusal, `workspace_moved`,
   *  when the folder at its path is not the room's), and its policy (the
   *  narrowest when the row's integrity check failed). */
  admitRoom(roomId: string): { workspaceIdentity: WorkspaceIdentity; policy: RoomPolicy }
  /** A private room's mode as the person sees it: its revision, its
   *  policy (the narrowest when the row's integrity check failed) and its
   *  integrity. Reads only: it pins nothing and refuses no moved folder. */
  permissions(roomId: string): RoomPermissions
}
