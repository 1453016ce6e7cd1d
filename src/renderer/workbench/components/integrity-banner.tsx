import type { TFunction } from 'i18next'
import { useTranslation } from 'react-i18next'
import type { Room, RowIntegrity } from '../../../contracts/room.ts'
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
 * workbench: a row edited on disk outside Assent, a database older than
 * the record kept outside it (rolled back), or that record failing to
 * update. Dismissing a notice only hides it; the runtime keeps treating the
 * row as untrusted, and a tampered or rolled-back room keeps its own
 * banner until a mode is confirmed.
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
            <span>{reportText(t, report, roomTitle)}</span>
            <button type="button" className="button" onClick={() => onDismiss(report)}>
              {t('workbench.integrity.dismiss')}
            </button>
          </li>
        ))}
      </ul>
    </section>
  )
}

function reportText(
  t: TFunction,
  report: IntegrityReport,
  roomTitle: (roomId: string | null) => string,
): string {
  if (report.table === 'database') {
    return report.problem === 'rolled_back'
      ? t('workbench.integrity.rolledBack')
      : t('workbench.integrity.anchorLagging')
  }
  return report.table === 'grants'
    ? t('workbench.integrity.grants', { room: roomTitle(report.roomId) })
    : t('workbench.integrity.rooms', { room: roomTitle(report.roomId) })
}

/** A room whose permission row failed its check, or came from an older copy
 *  of the database: says so until the person confirms a mode through the
 *  protected window (the picker below). Nothing for a room that is intact. */
export function RoomIntegrityBanner({ integrity }: { integrity: RowIntegrity }) {
  const { t } = useTranslation()
  if (integrity === 'ok') return null
  return (
    <p
      className="integrity integrity--room"
      role="alert"
      data-testid="integrity-room-banner"
      data-integrity={integrity}
    >
      {integrity === 'rolled-back'
        ? t('workbench.integrity.rolledBackRoomBanner')
        : t('workbench.integrity.roomBanner')}
    </p>
  )
}
