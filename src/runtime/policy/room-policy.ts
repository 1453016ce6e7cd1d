import type { RoomPolicy } from '../../contracts/policy-axes.ts'
import { policyForMode } from './permission-modes.ts'
import type { RoomKind } from '../../contracts/room.ts'

/**
 * The narrowest policy a room of this kind can have: where a new room starts,
 * and what a room whose stored policy cannot be trusted falls back to. Group
 * rooms keep writes and commands read-only (docs/architecture.md §4).
 */
export function narrowestRoomPolicy(kind: RoomKind): RoomPolicy {
  const policy = policyForMode('ask-for-approval')
  return kind === 'group' ? { ...policy, sandboxMode: 'read-only' } : policy
}
