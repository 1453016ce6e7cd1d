import { isAbsolute } from 'node:path'
import { WorkspaceIdentitySchema, type WorkspaceIdentity } from '../../contracts/room.ts'
import { Refusal } from '../domain/refusal.ts'
import { pinWorkspace } from '../policy/workspace-identity.ts'
import { workspaceRefusal, workspaceRuleContext } from '../policy/workspace-rule.ts'
import type { RoomStore, StoredRoom } from '../ports/room-store.ts'

// A room's workspace: the folder it is pinned to when the room is made, the
// identity an edited row may still be held to, and what a moved one is told.

/** The workspace's real path and identity, taken now: the room is pinned
 *  to that folder for good (see `RoomService.admitWorkspace`). */
export async function realWorkspace(workspace: string): Promise<WorkspaceIdentity> {
  if (!isAbsolute(workspace))
    throw new Refusal('invalid_workspace', 'workspace: must be an absolute path')
  let identity: WorkspaceIdentity
  try {
    identity = await pinWorkspace(workspace)
  } catch {
    throw new Refusal('invalid_workspace', 'workspace: must be an existing directory')
  }
  const refusal = workspaceRefusal(workspace, identity.realPath, workspaceRuleContext())
  if (refusal !== null) throw new Refusal('invalid_workspace', `workspace: ${refusal.reason}`)
  return identity
}

/** What a turn in a room whose workspace moved is told, and what to do. */
export function movedReason(workspace: string, now: WorkspaceIdentity | null): string {
  return now === null
    ? `the room's workspace ${workspace} cannot be found; create a new room if it moved`
    : `the room's workspace ${workspace} now leads to ${now.realPath}, not the folder the room was made for; create a new room for the folder you mean`
}

/** The identity a room's workspace is held to: its row's when the row's
 *  seal verifies; for an edited row, the one its sealed creation record
 *  names, and only if the row still names that workspace. */
export function trustedIdentity(
  rooms: Pick<RoomStore, 'sealedCreation'>,
  room: StoredRoom,
): WorkspaceIdentity | undefined {
  if (room.integrity !== 'tampered') return room.workspaceIdentity
  const created = rooms.sealedCreation(room.id)
  if (created?.workspace !== room.workspace) return undefined
  const identity = WorkspaceIdentitySchema.safeParse(created.workspaceIdentity)
  return identity.success && identity.data.realPath === room.workspace ? identity.data : undefined
}
