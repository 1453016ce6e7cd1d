import { useId } from 'react'
import { useTranslation } from 'react-i18next'
import { outcomeOf, type CardOutcome, type CardState } from '../state/approval-cards.ts'
import { CardActions, OutcomeLabel } from './approval-card-parts.tsx'
import { KindIcon } from './icons.tsx'
import { PermissionRequestCard } from './permission-request-card.tsx'

export interface ApprovalCardProps {
  card: CardState
  /** The tool call's full arguments from the timeline, once loaded. */
  args: Record<string, unknown> | undefined
  reviewing?: boolean
  error?: string | undefined
  /** Both buttons call this: the protected window decides, never the card. */
  onReview: (approvalId: string) => void
}

/**
 * One approval: what the agent wants to do, with which tool, where. While it
 * is open it offers "Review and allow" and "Deny", which both open the
 * protected window (Deny is its default focus there); once decided it shows
 * its outcome and stays in the timeline. No key on the card decides anything.
 */
export function ApprovalCard(props: ApprovalCardProps) {
  const { permission } = props.card.approval
  if (permission) return <PermissionRequestCard {...props} permission={permission} />
  return <ToolApprovalCard {...props} />
}

function ToolApprovalCard({ card, args, reviewing, error, onReview }: ApprovalCardProps) {
  const { t } = useTranslation()
  const headingId = useId()
  const { approval } = card
  const outcome = outcomeOf(card)
  const open = outcome === 'pending'
  return (
    <article
      className={`card card--${outcome}`}
      data-testid="approval-card"
      data-approval-id={approval.id}
      data-turn-id={approval.turnId}
      data-outcome={outcome}
      aria-labelledby={headingId}
      tabIndex={-1}
    >
      <header className="card__header">
        <KindIcon kind={approval.kind} />
        <h3 className="card__title" id={headingId}>
          {t(`consent.kind.${approval.kind}`)}
        </h3>
        {open ? null : <OutcomeLabel outcome={outcome} />}
      </header>
      <p className="card__summary">{approval.summary}</p>
      {open && approval.escalationReason ? (
        <p className="card__note" data-testid="approval-escalation">
          {t('workbench.card.escalated', { reason: approval.escalationReason })}
        </p>
      ) : null}
      {approval.mcp ? (
        <p className="card__note" data-testid="approval-mcp-description">
          {t('workbench.card.toolDescription')}: {approval.mcp.toolDescription}
        </p>
      ) : null}
      {args === undefined ? (
        <p className="card__note">{t('workbench.card.argumentsPending')}</p>
      ) : (
        <pre
          className="card__arguments"
          data-testid="approval-arguments"
          tabIndex={0}
          role="group"
          aria-label={t('workbench.card.arguments')}
        >
          {JSON.stringify(args, null, 2)}
        </pre>
      )}
      <dl className="card__facts">
        {approval.mcp ? (
          <div className="card__fact">
            <dt>{t('workbench.card.mcpServer')}</dt>
            <dd data-testid="approval-mcp-server">{approval.mcp.serverName}</dd>
          </div>
        ) : null}
        <div className="card__fact">
          <dt>{t('workbench.card.tool')}</dt>
          <dd className="mono">{approval.toolName}</dd>
        </div>
        <div className="card__fact">
          <dt>{t('workbench.card.workingDirectory')}</dt>
          <dd className="mono">{approval.workingDirectory}</dd>
        </div>
      </dl>
      <OutcomeNote card={card} outcome={outcome} />
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

function OutcomeNote({ card, outcome }: { card: CardState; outcome: CardOutcome }) {
  const { t } = useTranslation()
  const reason = card.approval.reason ?? ''
  let note: string | undefined
  if (outcome === 'auto-reviewed') {
    const key =
      card.approval.status === 'allowed'
        ? 'workbench.card.autoAllowed'
        : 'workbench.card.autoDenied'
    note = t(key, { reason })
  } else if (outcome === 'expired') {
    note = t('workbench.card.expiredNote')
  } else if (outcome === 'stale') {
    note = t(card.gone ? 'workbench.card.goneNote' : 'workbench.card.staleNote')
  }
  if (!note) return null
  return (
    <p className="card__note" data-testid="approval-note">
      {note}
    </p>
  )
}
