import { useCallback, useEffect, useReducer, useRef } from 'react'
import type { AssentGui } from '../../../common/assent-gui.ts'
import type { Room } from '../../../contracts/room.ts'
import type { WorkbenchApi } from '../gui/workbench-api.ts'
import { readWorkbenchEvent } from '../gui/workbench-events.ts'
import { EMPTY_ROOM_STATE, roomReducer, type RoomAction, type RoomState } from './room-state.ts'

export interface RoomData {
  state: RoomState
  dispatch: (action: RoomAction) => void
  refreshTimeline: () => void
  refreshPermissions: () => void
  refreshGrants: () => void
}

interface Refreshers {
  timeline: () => void
  permissions: () => void
  grants: () => void
}

/**
 * One room's timeline, cards, permissions and grants, kept in step with the
 * runtime: loaded when the room opens (so reopening a room reconciles its
 * cards), refreshed on the runtime's events, and reloaded when the runtime
 * comes back. An answer asked for before the runtime last went away is
 * dropped: it could bring back a card nobody is waiting on.
 */
export function useRoom(api: WorkbenchApi, gui: Pick<AssentGui, 'onEvent'>, room: Room): RoomData {
  const [state, dispatch] = useReducer(roomReducer, EMPTY_ROOM_STATE)
  const refreshers = useRef<Refreshers | undefined>(undefined)
  const roomId = room.id
  const direct = room.kind === 'direct'

  useEffect(() => {
    let active = true
    let epoch = 0
    // Approval events so far: a timeline asked for after the n-th one lists
    // every approval those events named (see reconcileApprovals).
    let approvalEvents = 0
    const load = (task: () => Promise<RoomAction | undefined>) =>
      serial(async () => {
        const askedAt = epoch
        let action: RoomAction | undefined
        try {
          action = await task()
        } catch (error) {
          action = { type: 'load-failed', failure: error }
        }
        if (active && askedAt === epoch && action) dispatch(action)
      })
    const timeline = load(async () => {
      const askedAt = approvalEvents
      return { type: 'timeline', timeline: await api.timeline(roomId), askedAt }
    })
    const permissions = load(async () =>
      direct ? { type: 'permissions', permissions: await api.permissions(roomId) } : undefined,
    )
    const grants = load(async () => ({ type: 'grants', grants: await api.grants(roomId) }))
    const everything = () => {
      timeline()
      permissions()
      grants()
    }
    refreshers.current = { timeline, permissions, grants }
    everything()

    const stop = gui.onEvent((event) => {
      const signal = readWorkbenchEvent(event)
      if (!signal || !active) return
      switch (signal.type) {
        case 'approval.requested':
        case 'approval.resolved':
          if (signal.approval.roomId !== roomId) return
          approvalEvents += 1
          dispatch({ type: 'approval', approval: signal.approval, seenAt: approvalEvents })
          if (
            signal.approval.decision === 'allow-always' ||
            signal.approval.decision === 'allow-always-server'
          ) {
            grants()
          }
          return
        case 'timeline.updated':
          if (signal.roomId === roomId) timeline()
          return
        case 'room.updated':
          if (signal.roomId === roomId) permissions()
          return
        case 'grant.changed':
          if (signal.roomId === roomId) grants()
          return
        case 'runtime.integrity':
          // The runtime now reads this room's row as its narrowest policy:
          // show what it really enforces.
          if (signal.report.roomId === roomId) {
            permissions()
            grants()
          }
          return
        case 'runtime.status':
          epoch += 1
          if (signal.state === 'down') {
            dispatch({ type: 'runtime-gone', down: true })
          } else {
            dispatch({ type: 'runtime-up' })
            everything()
          }
          return
        case 'runtime.reset':
          epoch += 1
          dispatch({ type: 'runtime-gone', down: false })
          everything()
          return
        default:
          return
      }
    })
    return () => {
      active = false
      refreshers.current = undefined
      stop()
    }
  }, [api, gui, roomId, direct])

  return {
    state,
    dispatch,
    refreshTimeline: useCallback(() => refreshers.current?.timeline(), []),
    refreshPermissions: useCallback(() => refreshers.current?.permissions(), []),
    refreshGrants: useCallback(() => refreshers.current?.grants(), []),
  }
}

/** Runs `task` one at a time; calls that arrive meanwhile fold into one more
 *  run after it, so answers land in the order they were asked for. */
export function serial(task: () => Promise<void>): () => void {
  let running = false
  let again = false
  const run = async () => {
    running = true
    try {
      do {
        again = false
        await task()
      } while (again)
    } finally {
      running = false
    }
  }
  return () => {
    if (running) again = true
    else void run()
  }
}
