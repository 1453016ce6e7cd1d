import { useId } from 'react'
import { useTranslation } from 'react-i18next'
import type { PermissionMode } from '../../../contracts/policy-axes.ts'
import { KindIcon, OutcomeIcon } from './icons.tsx'

/**
 * A mode change asked for through the picker, as the page followed it: it
 * waits while the protected window is open, then shows how that window
 * closed. The page holds this only to show it; the runtime's permissions
 * answer stays the picker's only source for the current mode.
 */
export type ModeRequest =
  | { status: 'waiting'; from: PermissionMode | undefined; to: PermissionMode }
  | { status: 'changed'; from: PermissionMode | undefined; to: PermissionMode }
  | { status: 'cancelled'; from: PermissionMode | undefined; to: PermissionMode }
  | { status: 'failed'; from: PermissionMode | undefined; to: PermissionMode; reason: string }

export interface ModeRequestCardProps {
  request: ModeRequest
  /** Hides a closed card. It decides nothing: the window already closed. */
  onDismiss: () => void
}

const OUTCOME = {
  changed: { icon: 'approved', label: 'workbench.modeRequest.outcome.changed' },
  cancelled: { icon: 'stale', label: 'workbench.modeRequest.outcome.cancelled' },
  failed: { icon: 'rejected', label: 'workbench.modeRequest.outcome.failed' },
} as const

/**
 * "Permissions request": old mode → new mode. No button on it decides
 * anything; the protected window is where the change is confirmed.
 */
export function ModeRequestCard({ request, onDismiss }: ModeRequestCardProps) {
  const { t } = useTranslation()
  const headingId = useId()
  const name = (mode: PermissionMode | undefined) => (mode ? t(`mode.${mode}.name`) : '…')
  const outcome = request.status === 'waiting' ? undefined : OUTCOME[request.status]
  return (
    <article
      className={`card card--mode card--mode-${request.status}`}
      data-testid="mode-request-card"
      data-status={request.status}
      aria-labelledby={headingId}
    >
      <header className="card__header">
        <KindIcon kind="permissions" />
        <h3 className="card__title" id={headingId}>
          {t('consent.kind.permissions')}
        </h3>
        {outcome ? (
          <p
            className={`outcome outcome--mode-${request.status}`}
            data-testid="mode-request-outcome"
            data-outcome={request.status}
          >
            <OutcomeIcon outcome={outcome.icon} />
            <span>{t(outcome.label)}</span>
          </p>
        ) : null}
      </header>
      <p className="card__summary" data-testid="mode-request-change">
        {t('workbench.modeRequest.change', { from: name(request.from), to: name(request.to) })}
      </p>
      {request.status === 'waiting' ? (
        <p className="card__note" role="status">
          {t('workbench.modeRequest.waiting')}
        </p>
      ) : null}
      {request.status === 'changed' ? (
        <p className="card__note">
          {t('workbench.modeRequest.changedNote', { mode: name(request.to) })}
        </p>
      ) : null}
      {request.status === 'cancelled' ? (
        <p className="card__note">
          {t('workbench.modeRequest.cancelledNote', { mode: name(request.from) })}
        </p>
      ) : null}
      {request.status === 'failed' ? (
        <p className="card__error" role="alert">
          {t('workbench.modeRequest.failedNote', { reason: request.reason })}
        </p>
      ) : null}
      {request.status === 'waiting' ? null : (
        <div className="card__actions">
          <button
            type="button"
            className="button"
            data-testid="mode-request-dismiss"
            onClick={onDismiss}
          >
            {t('workbench.modeRequest.dismiss')}
          </button>
        </div>
      )}
    </article>
  )
}
