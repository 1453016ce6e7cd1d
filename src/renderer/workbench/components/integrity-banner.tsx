import { useTranslation } from 'react-i18next'
import type { Room } from '../../../contracts/room.ts'
import type { IntegrityReport } from '../gui/workbench-events.ts'

export interface IntegrityNoticesProps {
  reports: readonly IntegrityReport[]
  rooms: readonly Room[]
  onDismiss: (report: IntegrityReport) => void
}

/** Identity of a report: one notice per edited row. */
export function integrityKey(report: IntegrityReport): string {
  return `${report.table}\u0000${report.rowId}`
}

/**
 * The runtime's integrity reports for this session, at the top of the
 * workbench: a row edited on disk outside Assent. Dismissing a notice only
 * hides it; the runtime keeps treating the row as untrusted, and a tampered
 * room keeps its own banner until a mode is confirmed.
 */
export function IntegrityNotices({ reports, rooms, onDismiss }: IntegrityNoticesProps) {
  const { t } = useTranslation()
  if (reports.length === 0) return null
  const roomTitle = (roomId: string | null) =>
    rooms.find((room) => room.id === roomId)?.title ?? roomId ?? '?'
  return (
    <section className="integrity" role="alert" data-testid="integrity-notices">
      <h2 className="integrity__heading">{t('workbench.integrity.heading')}</h2>
      <ul className="integrity__list">
        {reports.map((report) => (
          <li key={integrityKey(report)} className="integrity__item" data-table={report.table}>
            <span>
              {report.table === 'grants'
                ? t('workbench.integrity.grants', { room: roomTitle(report.roomId) })
                : t('workbench.integrity.rooms', { room: roomTitle(report.roomId) })}
            </span>
            <button type="button" className="button" onClick={() => onDismiss(report)}>
              {t('workbench.integrity.dismiss')}
            </button>
          </li>
        ))}
      </ul>
    </section>
  )
}

/** A room whose permission row failed its check: says so until the person
 *  confirms a mode through the protected window (the picker below). */
export function TamperedRoomBanner() {
  const { t } = useTranslation()
  return (
    <p className="integrity integrity--room" role="alert" data-testid="integrity-room-banner">
      {t('workbench.integrity.roomBanner')}
    </p>
  )
}
