import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import type { PermissionMode } from '../../../contracts/policy-axes.ts'
import type { RoomPermissions } from '../../../contracts/room.ts'
import { errorText } from '../gui/error-text.ts'
import type { WorkbenchApi } from '../gui/workbench-api.ts'
import type { TimedModeRequest } from '../state/open-requests.ts'
import type { ModeRequest } from './mode-request-card.tsx'

export interface ModeChange {
  /** The request the picker started, while its window is open. */
  modeRequest: TimedModeRequest | undefined
  /** Requests whose window closed, for the timeline to say how each ended. */
  settledModes: readonly TimedModeRequest[]
  chooseMode: (mode: PermissionMode) => Promise<void>
}

/**
 * The permission picker's requests in one room. The card follows the request
 * the picker started; what it shows after is how the protected window
 * closed. The mode itself comes only from the permissions refresh.
 */
export function useModeChange(
  api: Pick<WorkbenchApi, 'requestModeChange'>,
  roomId: string,
  permissions: RoomPermissions | undefined,
  refreshPermissions: () => void,
): ModeChange {
  const { t } = useTranslation()
  const [modeRequest, setModeRequest] = useState<TimedModeRequest | undefined>(undefined)
  const [settledModes, setSettledModes] = useState<readonly TimedModeRequest[]>([])

  const chooseMode = async (mode: PermissionMode) => {
    const from = permissions?.mode
    const at = Date.now()
    // Once its window closed, the request leaves the open block for the
    // timeline, where it says how it ended.
    const ended = (next: ModeRequest) => {
      setModeRequest((current) => (current?.at === at ? undefined : current))
      setSettledModes((current) => [...current, { request: next, at }])
    }
    // Entering plan mode opens no window (it only narrows), so nothing waits
    // for one in the open block; the timeline says how the change ended.
    const windowless = mode === 'plan' && permissions?.integrity === 'ok'
    if (!windowless) setModeRequest({ request: { status: 'waiting', from, to: mode }, at })
    try {
      const outcome = await api.requestModeChange(roomId, mode)
      if (outcome.status === 'changed') ended({ status: 'changed', from, to: mode })
      else if (outcome.status === 'failed')
        ended({ status: 'failed', from, to: mode, reason: errorText(t, outcome.error) })
      else if (outcome.status === 'closed')
        ended({ status: 'failed', from, to: mode, reason: errorText(t, outcome.reason) })
      else ended({ status: 'cancelled', from, to: mode })
    } catch (failure) {
      ended({ status: 'failed', from, to: mode, reason: errorText(t, failure) })
    } finally {
      refreshPermissions()
    }
  }

  return { modeRequest, settledModes, chooseMode }
}
