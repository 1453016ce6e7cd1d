import type { Turn } from '../../contracts/room.ts'
import type { EventBus } from '../events/event-bus.ts'
import { allowerStands, type Allower, type RoomNow } from '../policy/allower-stands.ts'

/** A running call's stop when what allowed it falls while it runs. */
export interface NarrowedStop {
  signal: AbortSignal
  /** Stops watching; called once the call has ended. */
  release(): void
}

/**
 * What allowed a call must still stand under the room's mode right before
 * it acts (allower-stands.ts); a command acts for as long as it runs, so
 * the same rule is held while it runs: once the room is narrowed (or the
 * grant that allowed it revoked) so that its allow would not stand, the
 * signal aborts and the command's process tree is killed (`run_command`
 * is the tool that heeds it). Without this a command started under full
 * access went on with the person's full rights after they chose plan or
 * ask-for-approval, for as long as it ran. As before it acts, a person's
 * allow stands unless the room is now in plan. A room whose state cannot
 * be read stops it (fails closed). Costs nothing per judgment: it listens
 * only while a call runs, and reads the room's row only when a room's mode
 * or grants changed.
 */
export function stopWhenNarrowed(
  events: EventBus,
  room: RoomNow,
  turn: Pick<Turn, 'roomId' | 'policy'>,
  allower: Allower,
): NarrowedStop {
  const controller = new AbortController()
  const unsubscribe = events.subscribe((event) => {
    if (event.type !== 'room.updated' && event.type !== 'grant.changed') return
    if (event.data.roomId !== turn.roomId || stillStands(allower, turn, room)) return
    controller.abort()
    unsubscribe()
  })
  return { signal: controller.signal, release: unsubscribe }
}

function stillStands(
  allower: Allower,
  turn: Pick<Turn, 'roomId' | 'policy'>,
  room: RoomNow,
): boolean {
  try {
    return allowerStands(allower, turn, room) === null
  } catch {
    return false
  }
}
