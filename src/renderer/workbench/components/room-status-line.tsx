import { useTranslation } from 'react-i18next'
import { CatalogText } from './runtime-text.tsx'

export interface RoomStatusLineProps {
  runtimeDown: boolean
  /** The tools whose approvals are open, comma-separated; empty for none. */
  waitingTools: string
  questionOpen: boolean
  working: boolean
  /** False while the open block above already says what waits: the line
   *  then speaks only to assistive technology, so the page says it once. */
  shown: boolean
}

/** What the room is doing, in one line: the runtime is down, a tool waits
 *  for approval, a question waits, the agent works, or it is ready. */
export function RoomStatusLine({
  runtimeDown,
  waitingTools,
  questionOpen,
  working,
  shown,
}: RoomStatusLineProps) {
  const { t } = useTranslation()
  const status = runtimeDown ? (
    t('workbench.status.runtimeDown')
  ) : waitingTools ? (
    <CatalogText
      catalogKey="workbench.status.waiting"
      values={{ tool: waitingTools }}
      english={t('workbench.status.waiting', { tool: waitingTools })}
    />
  ) : questionOpen ? (
    t('workbench.status.question')
  ) : working ? (
    t('workbench.status.working')
  ) : (
    t('workbench.status.ready')
  )
  return (
    <p
      className={`status-line${waitingTools ? ' status-line--waiting' : ''}${shown ? '' : ' visually-hidden'}`}
      role="status"
      data-testid="status-line"
    >
      {status}
    </p>
  )
}
