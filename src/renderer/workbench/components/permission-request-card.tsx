import { useId } from 'react'
import { useTranslation } from 'react-i18next'
import type { PermissionRequest } from '../../../contracts/approval.ts'
import { outcomeOf, type CardState } from '../state/approval-cards.ts'
import { CardActions, OutcomeLabel } from './approval-card-parts.tsx'
import { KindIcon } from './icons.tsx'

export interface PermissionRequestCardProps {
  card: CardState
  permission: PermissionRequest
  reviewing?: boolean
  error?: string | undefined
  /** Both buttons call this: the protected window decides, never the card. */
  onReview: (approvalId: string) => void
}

/**
 * "Permissions request": the agent asks for a permission its room does not
 * give, for this turn. The card says exactly what widens (write access to
 * one folder, network access for one command) and for how long, and the
 * agent's reason as plain text. Like every approval it decides nothing
 * itself: both buttons open the protected window.
 */
export function PermissionRequestCard({
  card,
  permission,
  reviewing,
  error,
  onReview,
}: PermissionRequestCardProps) {
  const { t } = useTranslation()
  const headingId = useId()
  const { approval } = card
  const outcome = outcomeOf(card)
  const open = outcome === 'pending'
  const { widen } = permission
  return (
    <article
      className={`card card--${outcome} card--permission-request`}
      data-testid="permission-request-card"
      data-approval-id={approval.id}
      data-turn-id={approval.turnId}
      data-outcome={outcome}
      aria-labelledby={headingId}
      tabIndex={-1}
    >
      <header className="card__header">
        <KindIcon kind="permission-request" />
        <h3 className="card__title" id={headingId}>
          {t('consent.kind.permission-request')}
        </h3>
        {open ? null : <OutcomeLabel outcome={outcome} />}
      </header>
      <dl className="card__facts">
        <div className="card__fact">
          <dt>{t('consent.action.permission.widens')}</dt>
          <dd data-testid="permission-request-widens">
            {widen.type === 'write-directory'
              ? t('consent.action.permission.writeDirectory')
              : t('consent.action.permission.network')}
          </dd>
        </div>
        <div className="card__fact">
          <dt>
            {widen.type === 'write-directory'
              ? t('consent.action.permission.folder')
              : t('consent.action.commandLine')}
          </dt>
          <dd className="mono" data-testid="permission-request-target">
            {widen.type === 'write-directory' ? widen.path : widen.argv.join(' ')}
          </dd>
        </div>
        <div className="card__fact">
          <dt>{t('consent.action.permission.duration')}</dt>
          <dd data-testid="permission-request-duration">
            {t('consent.action.permission.thisTurn')}
          </dd>
        </div>
      </dl>
      {permission.reason === '' ? null : (
        <p className="card__note" data-testid="permission-request-reason">
          {t('workbench.permissionRequest.reason', { reason: permission.reason })}
        </p>
      )}
      {outcome === 'expired' ? (
        <p className="card__note">{t('workbench.permissionRequest.expiredNote')}</p>
      ) : null}
      {outcome === 'approved' ? (
        <p className="card__note">{t('workbench.permissionRequest.grantedNote')}</p>
      ) : null}
      <CardActions
        approvalId={approval.id}
        open={open}
        reviewing={reviewing}
        error={error}
        onReview={onReview}
      />
    </article>
  )
}
