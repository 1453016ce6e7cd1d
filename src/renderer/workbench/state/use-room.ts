import { useCallback, useEffect, useReducer, useRef } from 'react'
import type { AssentGui } from '../../../common/assent-gui.ts'
import type { Room, TimelinePage, TimelinePageRequest } from '../../../contracts/room.ts'
import type { WorkbenchApi } from '../gui/workbench-api.ts'
import { readWorkbenchEvent } from '../gui/workbench-events.ts'
import { EMPTY_ROOM_STATE, roomReducer, type RoomAction, type RoomState } from './room-state.ts'
import { earlierRequest, foldTimelinePage, refreshRequest } from './timeline-pages.ts'

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
    // What the room view holds of the timeline: the newest page first, and
    // the pages above it while the page is idle, so a long room is drawn as
    // fast as a short one and is whole a moment later (timeline-pages.ts).
    let held: TimelinePage | undefined
    const pages = (ask: () => TimelinePageRequest | undefined) =>
      serial(async () => {
        const request = ask()
        if (!request || !active) return
        const askedAt = epoch
        const eventsAt = approvalEvents
        let page: TimelinePage
        try {
          page = await api.timelinePage(roomId, request)
        } catch (failure) {
          if (active && askedAt === epoch) dispatch({ type: 'load-failed', failure })
          return
        }
        if (!active || askedAt !== epoch) return
        held = foldTimelinePage(held, request, page)
        dispatch({ type: 'timeline', timeline: held, approvals: page.approvals, askedAt: eventsAt })
        if (held.earlierTurns > 0) whenIdle(earlier)
      })
    const timeline = pages(() => refreshRequest(held))
    const earlier = pages(() => earlierRequest(held))
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
          // A new store: the turns held may not be in it.
          held = undefined
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

/** Runs `task` once the page has nothing else to do (a second at most):
 *  earlier turns load after the room is drawn, and between the frames of a
 *  person's scrolling rather than during them. */
function whenIdle(task: () => void): void {
  if (typeof requestIdleCallback === 'function') requestIdleCallback(task, { timeout: 1000 })
  else setTimeout(task, 0)
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
