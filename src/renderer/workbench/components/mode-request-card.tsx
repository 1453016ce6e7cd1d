import { useId } from 'react'
import { useTranslation } from 'react-i18next'
import type { PermissionMode } from '../../../contracts/policy-axes.ts'
import { KindIcon, OutcomeIcon } from './icons.tsx'
import { RequestHeader } from './request-header.tsx'

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
  /** Waiting, in the block above the composer: whether its note shows. */
  expanded?: boolean
  onToggle?: () => void
}

const OUTCOME = {
  changed: { icon: 'approved', label: 'workbench.modeRequest.outcome.changed' },
  cancelled: { icon: 'stale', label: 'workbench.modeRequest.outcome.cancelled' },
  failed: { icon: 'rejected', label: 'workbench.modeRequest.outcome.failed' },
} as const

/**
 * "Permissions request": old mode → new mode. While the protected window is
 * open it waits in the block above the composer, with no button: the window
 * is where the change is confirmed. Once that window closed it says how, in
 * the timeline.
 */
export function ModeRequestCard({ request, expanded = true, onToggle }: ModeRequestCardProps) {
  const { t } = useTranslation()
  const headingId = useId()
  const bodyId = useId()
  const name = (mode: PermissionMode | undefined) => (mode ? t(`mode.${mode}.name`) : '…')
  const change = t('workbench.modeRequest.change', {
    from: name(request.from),
    to: name(request.to),
  })
  if (request.status === 'waiting') {
    return (
      <article
        className={`card card--mode card--mode-waiting card--request${expanded ? ' card--expanded' : ''}`}
        data-testid="mode-request-card"
        data-status="waiting"
        data-expanded={expanded}
        aria-label={`${t('consent.kind.permissions')}: ${change}`}
      >
        <RequestHeader
          icon={<KindIcon kind="permissions" />}
          label={t('consent.kind.permissions')}
          title={change}
          titleTestId="mode-request-change"
          bodyId={bodyId}
          expanded={expanded}
          onToggle={onToggle}
          actions={null}
        />
        <p className="card__note card__live" role="status">
          {t('workbench.modeRequest.waiting')}
        </p>
        <div className="card__body" id={bodyId} hidden={!expanded}>
          <p className="card__note">
            {t('workbench.modeRequest.waitingNote', { mode: name(request.from) })}
          </p>
        </div>
      </article>
    )
  }
  const outcome = OUTCOME[request.status]
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
        <p
          className={`outcome outcome--mode-${request.status}`}
          data-testid="mode-request-outcome"
          data-outcome={request.status}
        >
          <OutcomeIcon outcome={outcome.icon} />
          <span>{t(outcome.label)}</span>
        </p>
      </header>
      <p className="card__summary" data-testid="mode-request-change">
        {change}
      </p>
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
    </article>
  )
}
