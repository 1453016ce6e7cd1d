import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import type { TFunction } from 'i18next'
import type { Grant } from '../../../contracts/room.ts'
import { errorText } from '../gui/error-text.ts'
import { ShownText } from './shown-text.tsx'

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
              const coverage = coverageOf(grant)
              const what = describe(t, grant, coverage)
              return (
                <li
                  key={grant.id}
                  className="grants__item"
                  data-testid="grant"
                  data-grant-id={grant.id}
                  data-scope={coverage.scope}
                >
                  <span className="grants__what" data-testid="grant-what">
                    <span className="mono">
                      <ShownText
                        text={
                          coverage.scope === 'mcp' || coverage.scope === 'mcp-server'
                            ? what
                            : grant.toolName
                        }
                      />
                    </span>
                    <Coverage coverage={coverage} />
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

/**
 * What one grant lets the agent do unasked, as the runtime matches it
 * (src/runtime/agent/grant-scope.ts): one exact command, one real path, any
 * call of the tool (still inside the room's sandbox), or one MCP tool
 * definition. A row from before scopes were stored answers for its command
 * or MCP definition only, so it reads as one of those; a row that names
 * nothing the runtime can match shows as the bare tool, still revocable.
 */
export type GrantCoverage =
  | { scope: 'command'; line: string }
  | { scope: 'path'; path: string }
  | { scope: 'tool' }
  | { scope: 'mcp'; serverId: string; answers: 'tool' | 'every-read' | { prompt: string } }
  | { scope: 'mcp-server'; serverId: string }
  | { scope: 'unscoped' }

export function coverageOf(grant: Grant): GrantCoverage {
  // A server-wide grant answers for every tool of its server while the
  // server's tool list is the one the person saw; any other MCP grant for
  // its server and tool definition alone.
  if (grant.mcp && grant.scope === 'mcp-server') {
    return { scope: 'mcp-server', serverId: grant.mcp.serverId }
  }
  if (grant.mcp) return { scope: 'mcp', serverId: grant.mcp.serverId, answers: mcpAnswers(grant) }
  switch (grant.scope) {
    case 'tool':
      return { scope: 'tool' }
    case 'path':
      return grant.path === undefined ? { scope: 'unscoped' } : { scope: 'path', path: grant.path }
    case 'command':
    case undefined:
      // Joined as the runtime joins the argv in the approval's summary, so the
      // line reads as the command the person allowed.
      return grant.command
        ? { scope: 'command', line: grant.command.join(' ') }
        : { scope: 'unscoped' }
    default:
      return { scope: 'unscoped' }
  }
}

/**
 * What an MCP grant answers for beyond its server: assent-gateway's grant
 * on a resource read answers for every read of the server, and one on a
 * prompt for that prompt by name; two prompts' grants would otherwise read
 * alike, `prompts/get`, and the person could not tell which to revoke.
 */
function mcpAnswers(grant: Grant): Extract<GrantCoverage, { scope: 'mcp' }>['answers'] {
  if (grant.toolName === 'resources/read') return 'every-read'
  if (grant.toolName === 'prompts/get' && grant.mcp?.prompt !== undefined) {
    return { prompt: grant.mcp.prompt }
  }
  return 'tool'
}

/** The grant in one line, for the revoke button's label. */
function describe(t: TFunction, grant: Grant, coverage: GrantCoverage): string {
  switch (coverage.scope) {
    case 'command':
      return coverage.line
    case 'path':
      return `${grant.toolName}: ${coverage.path}`
    case 'tool':
      return t('workbench.grants.anyCall', { tool: grant.toolName })
    case 'mcp':
      // The same tool name on two servers is two different things to allow.
      return typeof coverage.answers === 'object'
        ? `${coverage.serverId}: ${grant.toolName} ${coverage.answers.prompt}`
        : `${coverage.serverId}: ${grant.toolName}`
    case 'mcp-server':
      return t('workbench.grants.everyTool', { server: coverage.serverId })
    case 'unscoped':
      return grant.toolName
  }
}

function Coverage({ coverage }: { coverage: GrantCoverage }) {
  const { t } = useTranslation()
  switch (coverage.scope) {
    case 'command':
      return (
        <code className="grants__command">
          <ShownText text={coverage.line} />
        </code>
      )
    case 'path':
      return (
        <code className="grants__command">
          <ShownText text={coverage.path} />
        </code>
      )
    case 'tool':
      return <span className="grants__scope">{t('workbench.grants.toolScope')}</span>
    case 'mcp-server':
      return <span className="grants__scope">{t('workbench.grants.serverScope')}</span>
    case 'mcp':
      if (coverage.answers === 'every-read') {
        return <span className="grants__scope">{t('workbench.grants.readScope')}</span>
      }
      if (typeof coverage.answers === 'object') {
        return <span className="grants__scope">{t('workbench.grants.promptScope')}</span>
      }
      return null
    case 'unscoped':
      return null
  }
}
