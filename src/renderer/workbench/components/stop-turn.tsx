import { useEffect, useState } from 'react'
import { useTranslation } from 'react-i18next'
import type { Room, Turn } from '../../../contracts/room.ts'
import { errorText } from '../gui/error-text.ts'
import type { WorkbenchApi } from '../gui/workbench-api.ts'

export interface StopTurnProps {
  api: Pick<WorkbenchApi, 'listAgents' | 'stopTurn'>
  room: Pick<Room, 'agentId'>
  /** The room's running or waiting turn, if any. */
  turn: Pick<Turn, 'id'> | undefined
  /** Called once the runtime took the stop; the timeline then shows the
   *  turn interrupted, with why. */
  onStopped: () => void
}

/**
 * A button that stops the room's running turn, shown for an external
 * agent's room (agents.json) while a turn runs or waits: such an agent may
 * never answer, and would otherwise hold the room's turn for ever. The
 * built-in agent's turn ends when what it waits for is decided, so its
 * rooms show none.
 */
export function StopTurn({ api, room, turn, onStopped }: StopTurnProps) {
  const { t } = useTranslation()
  const external = useExternalAgent(api, room.agentId)
  const [stopping, setStopping] = useState<string | null>(null)
  const [failure, setFailure] = useState<string | null>(null)
  if (!external || turn === undefined) return null
  const stop = async () => {
    setStopping(turn.id)
    setFailure(null)
    try {
      await api.stopTurn(turn.id)
      onStopped()
    } catch (error) {
      setFailure(errorText(t, error))
      setStopping(null)
    }
  }
  return (
    <div className="stop-turn" data-testid="stop-turn">
      <button
        type="button"
        className="button"
        disabled={stopping === turn.id}
        onClick={() => void stop()}
      >
        {stopping === turn.id ? t('workbench.stopTurn.stopping') : t('workbench.stopTurn.stop')}
      </button>
      {failure ? (
        <span className="stop-turn__error" role="alert">
          {t('workbench.stopTurn.failed', { reason: failure })}
        </span>
      ) : null}
    </div>
  )
}

/** Whether the room's agent is an external one, once the agents are read
 *  (false until then, and when they cannot be read: no button that would
 *  only be refused). */
function useExternalAgent(api: Pick<WorkbenchApi, 'listAgents'>, agentId: string): boolean {
  const [external, setExternal] = useState(false)
  useEffect(() => {
    let live = true
    api.listAgents().then(
      (agents) => {
        if (live)
          setExternal(agents.some((agent) => agent.id === agentId && agent.kind === 'external'))
      },
      () => undefined,
    )
    return () => {
      live = false
    }
  }, [api, agentId])
  return external
}
