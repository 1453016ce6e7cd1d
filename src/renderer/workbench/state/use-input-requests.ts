import { useCallback, useEffect, useRef, useState } from 'react'
import type { AssentGui } from '../../../common/assent-gui.ts'
import type { InputRequestRecord } from '../../../contracts/input-request.ts'
import type { WorkbenchApi } from '../gui/workbench-api.ts'
import {
  markInputStale,
  reconcileInputs,
  upsertInput,
  upsertInputs,
  type InputCards,
} from './input-cards.ts'

/** After a room opens, its questions are checked with the runtime again
 *  this much later; cards it does not confirm turn stale. */
export const INPUT_RECONCILE_DELAY_MS = 3_000

export interface InputRequestsData {
  cards: InputCards
  /** Applies the runtime's answer to a response. */
  update: (request: InputRequestRecord) => void
  markStale: (key: string) => void
  reload: () => void
}

/** One room's questions and forms, kept in step with the runtime's events
 *  and reconciled once, `INPUT_RECONCILE_DELAY_MS` after the room opens. */
export function useInputRequests(
  api: WorkbenchApi,
  gui: Pick<AssentGui, 'onEvent'>,
  roomId: string,
): InputRequestsData {
  const [cards, setCards] = useState<InputCards>(new Map())
  const reloadRef = useRef<() => void>(() => undefined)

  useEffect(() => {
    let active = true
    const load = async (mode: 'merge' | 'reconcile') => {
      let requests: InputRequestRecord[]
      try {
        requests = await api.inputRequests(roomId)
      } catch {
        return
      }
      if (!active) return
      setCards((current) =>
        mode === 'merge' ? upsertInputs(current, requests) : reconcileInputs(current, requests),
      )
    }
    reloadRef.current = () => void load('merge')
    void load('merge')
    const reconcile = setTimeout(() => void load('reconcile'), INPUT_RECONCILE_DELAY_MS)
    const stop = gui.onEvent((event) => {
      if (!active) return
      const data = event.data as { request?: InputRequestRecord } | null
      if (event.type === 'input.requested' || event.type === 'input.resolved') {
        const request = data?.request
        if (request && typeof request.id === 'string' && request.roomId === roomId) {
          setCards((current) => upsertInput(current, request))
        }
        return
      }
      if (event.type === 'runtime.status' || event.type === 'runtime.reset') {
        void load('reconcile')
      }
    })
    return () => {
      active = false
      clearTimeout(reconcile)
      stop()
    }
  }, [api, gui, roomId])

  return {
    cards,
    update: useCallback((request) => setCards((current) => upsertInput(current, request)), []),
    markStale: useCallback((key) => setCards((current) => markInputStale(current, key)), []),
    reload: useCallback(() => reloadRef.current(), []),
  }
}
