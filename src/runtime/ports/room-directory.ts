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
 * Invariants the adapter keeps: `getRoom` and `permissions` throw a refusal
 * (`unknown_room`) for a room that does not exist; `permissions` reads a row
 * whose integrity check failed as its narrowest policy; `createRoom` stores
 * the room and its `room_created` audit event together, at the narrowest
 * policy for its kind.
 */
export interface RoomDirectory {
  getRoom(roomId: string): Room
  listRooms(): Room[]
  createRoom(request: CreateRoomRequest): Promise<Room>
  permissions(roomId: string): RoomPermissions
  /** The room's workspace identity, checked now; a refusal
   *  (`workspace_moved`) when the folder at its path is not the room's. */
  admitRoomWorkspace(roomId: string): WorkspaceIdentity
}
