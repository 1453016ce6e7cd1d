import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import type { Grant } from '../../../runtime/contracts/room.ts'
import { errorText } from '../gui/error-text.ts'

export interface GrantsPanelProps {
  grants: readonly Grant[]
  /** Revoking only narrows what the agent may do, so no protected window. */
  onRevoke: (grantId: string) => Promise<void>
  /** Revokes every grant of one MCP server in the room at once. */
  onRevokeServer: (serverId: string) => Promise<void>
}

/** The room's "always allow" grants, each with a way to take it back. */
export function GrantsPanel({ grants, onRevoke, onRevokeServer }: GrantsPanelProps) {
  const { t } = useTranslation()
  const [error, setError] = useState<string | undefined>(undefined)
  const attempt = async (work: () => Promise<void>) => {
    setError(undefined)
    try {
      await work()
    } catch (failure) {
      setError(t('workbench.grants.failed', { reason: errorText(t, failure) }))
    }
  }
  const revoke = (grantId: string) => attempt(() => onRevoke(grantId))
  const servers = [...new Set(grants.flatMap((grant) => (grant.mcp ? [grant.mcp.serverId] : [])))]
  return (
    <details className="grants" data-testid="grants-panel">
      <summary className="grants__summary">
        {t('workbench.grants.summary', { count: String(grants.length) })}
      </summary>
      <div className="grants__body">
        {grants.length === 0 ? (
          <p className="grants__empty">{t('workbench.grants.empty')}</p>
        ) : (
          <ul className="grants__list">
            {grants.map((grant) => {
              // An MCP grant names its server: the same tool name on two
              // servers is two different things to allow.
              const what = grant.command
                ? grant.command.join(' ')
                : grant.mcp
                  ? `${grant.mcp.serverId}: ${grant.toolName}`
                  : grant.toolName
              return (
                <li
                  key={grant.id}
                  className="grants__item"
                  data-testid="grant"
                  data-grant-id={grant.id}
                >
                  <span className="grants__what">
                    <span className="mono">{grant.mcp ? what : grant.toolName}</span>
                    {grant.command ? <code className="grants__command">{what}</code> : null}
                  </span>
                  <button
                    type="button"
                    className="button button--small"
                    data-testid="grant-revoke"
                    aria-label={t('workbench.grants.revokeLabel', { what })}
                    onClick={() => void revoke(grant.id)}
                  >
                    {t('workbench.grants.revoke')}
                  </button>
                </li>
              )
            })}
          </ul>
        )}
        {servers.map((serverId) => (
          <button
            key={serverId}
            type="button"
            className="button button--small"
            data-testid="grant-revoke-server"
            data-server-id={serverId}
            onClick={() => void attempt(() => onRevokeServer(serverId))}
          >
            {t('workbench.grants.revokeServer', { server: serverId })}
          </button>
        ))}
        {error ? (
          <p className="card__error" role="alert">
            {error}
          </p>
        ) : null}
      </div>
    </details>
  )
}
