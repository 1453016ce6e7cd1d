import type { Room } from '../../contracts/room.ts'
import { modeFromPolicy } from '../policy/permission-modes.ts'
import type { RoomRow } from '../ports/room-store.ts'

/** A stored room as the runtime shows it: its mode read from its policy,
 *  and nothing of its seal or its workspace's identity. */
export function roomView(row: RoomRow): Room {
  return {
    id: row.id,
    kind: row.kind,
    agentId: row.agentId,
    workspace: row.workspace,
    title: row.title,
    mode: modeFromPolicy(row.policy),
    revision: row.revision,
    createdAt: row.createdAt,
  }
}
