import { useTranslation } from 'react-i18next'
import type { PermissionRequest } from '../../../contracts/approval.ts'
import type { CardOutcome } from '../state/approval-cards.ts'

/**
 * What a "Permissions request" asks, in place of a tool call's arguments:
 * the agent wants a permission its room does not give, for this turn. It
 * says exactly what widens (write access to one folder, network access for
 * one command) and for how long, and the agent's reason as plain text; once
 * settled, that a grant held for this turn only or that nothing widened.
 * Like every approval, its card decides nothing: both buttons open the
 * protected window.
 */
export function PermissionRequestDetails({
  permission,
  outcome,
}: {
  permission: PermissionRequest
  outcome: CardOutcome
}) {
  const { t } = useTranslation()
  const { widen } = permission
  return (
    <>
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
        <p className="card__note" data-testid="permission-request-reason" data-verbatim="">
          {t('workbench.permissionRequest.reason', { reason: permission.reason })}
        </p>
      )}
      {outcome === 'expired' ? (
        <p className="card__note">{t('workbench.permissionRequest.expiredNote')}</p>
      ) : null}
      {outcome === 'approved' ? (
        <p className="card__note">{t('workbench.permissionRequest.grantedNote')}</p>
      ) : null}
    </>
  )
}
