import { useId } from 'react'
import { useTranslation } from 'react-i18next'
import { deciderOf } from '../../../contracts/approval.ts'
import { outcomeOf, type CardOutcome, type CardState } from '../state/approval-cards.ts'
import { EXPIRY_WARNING_MS, formatTimeLeft, useTimeLeft } from '../state/use-time-left.ts'
import { KindIcon, OutcomeIcon } from './icons.tsx'
import { PermissionRequestDetails } from './permission-request-details.tsx'
import { RequestHeader } from './request-header.tsx'
import { RuntimeText, useRuntimeWords } from './runtime-text.tsx'
import { ShownText } from './shown-text.tsx'

export interface ApprovalCardProps {
  card: CardState
  /** The tool call's full arguments from the timeline, once loaded. */
  args: Record<string, unknown> | undefined
  reviewing?: boolean
  error?: string | undefined
  /** Both buttons call this: the protected window decides, never the card. */
  onReview: (approvalId: string) => void
  /** Open, in the block above the composer: whether its details show, and
   *  how the person shows or hides them. One line with its buttons otherwise. */
  expanded?: boolean
  onToggle?: () => void
}

type DecidedOutcome = Exclude<CardOutcome, 'pending'>

const OUTCOME_LABEL = {
  approved: 'workbench.card.outcome.approved',
  'always-allowed': 'workbench.card.outcome.alwaysAllowed',
  rejected: 'workbench.card.outcome.rejected',
  expired: 'workbench.card.outcome.expired',
  'auto-reviewed': 'workbench.card.outcome.autoReviewed',
  'webhook-decided': 'workbench.card.outcome.webhookDecided',
  stale: 'workbench.card.outcome.stale',
} as const satisfies Record<DecidedOutcome, string>

/**
 * One approval: what the agent wants to do, with which tool, where. Open, it
 * sits in the block above the composer: its title line says what it is and
 * how long the runtime still waits, and holds "Review and allow" and "Deny",
 * which both open the protected window (Deny is its default focus there);
 * its details show when it is the one expanded. Decided, it shows its
 * outcome and stays in the timeline. No key on the card decides anything.
 * A permission request (the agent asks for more than its room gives, for
 * this turn) is the same card with what widens in place of the arguments.
 */
export function ApprovalCard(props: ApprovalCardProps) {
  return outcomeOf(props.card) === 'pending' ? (
    <OpenApproval {...props} />
  ) : (
    <SettledApproval {...props} />
  )
}

function OpenApproval({
  card,
  args,
  reviewing,
  error,
  onReview,
  expanded = true,
  onToggle,
}: ApprovalCardProps) {
  const { t } = useTranslation()
  const words = useRuntimeWords()
  const bodyId = useId()
  const { approval } = card
  const summary = words(approval.summaryMessage, approval.summary)
  const left = useTimeLeft(approval.expiresAt)
  return (
    <article
      className={`card card--pending card--request${expanded ? ' card--expanded' : ''}`}
      data-testid={cardTestId(approval)}
      data-approval-id={approval.id}
      data-turn-id={approval.turnId}
      data-outcome="pending"
      data-expanded={expanded}
      aria-label={`${t(`consent.kind.${approval.kind}`)}: ${summary}`}
      tabIndex={-1}
    >
      <RequestHeader
        icon={<KindIcon kind={approval.kind} />}
        label={t(`consent.kind.${approval.kind}`)}
        title={summary}
        shownTitle={<RuntimeText message={approval.summaryMessage} english={approval.summary} />}
        bodyId={bodyId}
        expanded={expanded}
        onToggle={onToggle}
        status={
          <span
            className={`card__ttl${left <= EXPIRY_WARNING_MS ? ' card__ttl--soon' : ''}`}
            data-testid="approval-ttl"
          >
            {t('workbench.card.expiresIn', { time: formatTimeLeft(left) })}
          </span>
        }
        actions={
          <>
            <button
              type="button"
              className="button button--primary"
              data-testid="approval-review"
              onClick={() => onReview(approval.id)}
            >
              {t('workbench.card.review')}
            </button>
            <button
              type="button"
              className="button"
              data-testid="approval-deny"
              onClick={() => onReview(approval.id)}
            >
              {t('workbench.card.deny')}
            </button>
          </>
        }
      />
      {reviewing ? (
        <p className="card__note card__live" role="status">
          {t('workbench.card.reviewing')}
        </p>
      ) : null}
      {error ? (
        <p className="card__error" role="alert">
          {error}
        </p>
      ) : null}
      <div className="card__body" id={bodyId} hidden={!expanded}>
        {approval.escalationReason ? (
          <p className="card__note" data-testid="approval-escalation">
            {t('workbench.card.escalated', {
              reason: words(approval.escalationMessage, approval.escalationReason),
            })}
          </p>
        ) : null}
        <ApprovalDetails card={card} args={args} />
      </div>
    </article>
  )
}

function SettledApproval({ card, args, error }: ApprovalCardProps) {
  const { t } = useTranslation()
  const headingId = useId()
  const { approval } = card
  const outcome = outcomeOf(card) as DecidedOutcome
  return (
    <article
      className={`card card--${outcome}`}
      data-testid={cardTestId(approval)}
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
        <OutcomeLabel outcome={outcome} />
      </header>
      <p className="card__summary">
        <RuntimeText message={approval.summaryMessage} english={approval.summary} />
      </p>
      <ApprovalDetails card={card} args={args} />
      <OutcomeNote card={card} outcome={outcome} />
      {error ? (
        <p className="card__error" role="alert">
          {error}
        </p>
      ) : null}
    </article>
  )
}

/** A permission request's card has a test id of its own, open or settled. */
function cardTestId(approval: CardState['approval']): string {
  return approval.permission ? 'permission-request-card' : 'approval-card'
}

/** What the call is: the MCP server's word on its tool, the full arguments
 *  (scrolling inside the card), the tool and the folder it runs in; for a
 *  permission request, what widens and for how long. */
function ApprovalDetails({ card, args }: { card: CardState; args: ApprovalCardProps['args'] }) {
  const { t } = useTranslation()
  const { approval } = card
  if (approval.permission) {
    return <PermissionRequestDetails permission={approval.permission} outcome={outcomeOf(card)} />
  }
  return (
    <>
      {approval.mcp ? (
        <p className="card__note" data-testid="approval-mcp-description">
          {t('workbench.card.toolDescription')}:{' '}
          <span data-verbatim="">
            <ShownText text={approval.mcp.toolDescription} multiline />
          </span>
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
          <ShownText text={JSON.stringify(args, null, 2)} multiline />
        </pre>
      )}
      <dl className="card__facts">
        {approval.mcp ? (
          <div className="card__fact">
            <dt>{t('workbench.card.mcpServer')}</dt>
            <dd data-testid="approval-mcp-server" data-verbatim="">
              <ShownText text={approval.mcp.serverName} name />
            </dd>
          </div>
        ) : null}
        {approval.mcp?.serverFolder !== undefined ? (
          <div className="card__fact">
            <dt>{t('workbench.card.mcpServerFolder')}</dt>
            <dd className="mono" data-testid="approval-mcp-server-folder">
              <ShownText text={approval.mcp.serverFolder} />
            </dd>
          </div>
        ) : null}
        <div className="card__fact">
          <dt>{t('workbench.card.tool')}</dt>
          <dd className="mono">
            <ShownText text={approval.toolName} name />
          </dd>
        </div>
        <div className="card__fact">
          <dt>{t('workbench.card.workingDirectory')}</dt>
          <dd className="mono">
            <ShownText text={approval.workingDirectory} />
          </dd>
        </div>
      </dl>
    </>
  )
}

function OutcomeLabel({ outcome }: { outcome: DecidedOutcome }) {
  const { t } = useTranslation()
  return (
    <p
      className={`outcome outcome--${outcome}`}
      data-testid="approval-outcome"
      data-outcome={outcome}
    >
      <OutcomeIcon outcome={outcome} />
      <span>{t(OUTCOME_LABEL[outcome])}</span>
    </p>
  )
}

function OutcomeNote({ card, outcome }: { card: CardState; outcome: DecidedOutcome }) {
  const { t } = useTranslation()
  const words = useRuntimeWords()
  const reason = words(card.approval.reasonMessage, card.approval.reason ?? '')
  const allowed = card.approval.status === 'allowed'
  let note: string | undefined
  if (outcome === 'auto-reviewed') {
    note = t(allowed ? 'workbench.card.autoAllowed' : 'workbench.card.autoDenied', { reason })
  } else if (outcome === 'webhook-decided') {
    note = t(allowed ? 'workbench.card.webhookAllowed' : 'workbench.card.webhookDenied', {
      reason,
    })
  } else if (outcome === 'rejected' && deciderOf(card.approval.decidedBy) === 'room-policy') {
    // Refused in the policy's name (plan mode), nobody asked: it says so.
    note = reason
  } else if (outcome === 'expired') {
    // Withdrawn (whoever asked stopped waiting) rather than run out of
    // time: the approval says why.
    note = card.approval.reasonMessage ? reason : t('workbench.card.expiredNote')
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
