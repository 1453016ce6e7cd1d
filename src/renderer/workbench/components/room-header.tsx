import { useTranslation } from 'react-i18next'
import type { Grant, Room } from '../../../contracts/room.ts'
import type { WorkbenchApi } from '../gui/workbench-api.ts'
import { ApproverWebhookPanel } from './approver-webhook-panel.tsx'
import { GrantsPanel } from './grants-panel.tsx'
import { agentName } from './room-list.tsx'

export interface RoomHeaderProps {
  api: Pick<
    WorkbenchApi,
    'revokeGrant' | 'revokeServerGrants' | 'approverWebhook' | 'requestApproverWebhook'
  >
  room: Room
  /** The id the room's section is labelled by. */
  titleId: string
  grants: readonly Grant[]
  /** After a revoke, so the panel shows what the runtime now holds. */
  onGrantsChanged: () => void
}

/** The room's title, its agent and workspace, its grants and its approver
 *  webhook. */
export function RoomHeader({ api, room, titleId, grants, onGrantsChanged }: RoomHeaderProps) {
  const { t } = useTranslation()
  const revokeGrant = async (grantId: string) => {
    await api.revokeGrant(room.id, grantId)
    onGrantsChanged()
  }
  const revokeServerGrants = async (serverId: string) => {
    await api.revokeServerGrants(room.id, serverId)
    onGrantsChanged()
  }
  return (
    <header className="room__header">
      <div className="room__heading">
        <h1 className="room__title" id={titleId}>
          {room.title}
        </h1>
        <p className="room__meta">
          <span>{t('workbench.room.agent', { agent: agentName(t, room.agentId) })}</span>
          <span>
            {t('workbench.room.workspace')} <span className="mono">{room.workspace}</span>
          </span>
        </p>
      </div>
      <GrantsPanel grants={grants} onRevoke={revokeGrant} onRevokeServer={revokeServerGrants} />
      <ApproverWebhookPanel key={room.id} roomId={room.id} api={api} />
    </header>
  )
}
