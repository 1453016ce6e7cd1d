import { useTranslation } from 'react-i18next'
import type { CardOutcome } from '../state/approval-cards.ts'
import { OutcomeIcon } from './icons.tsx'

export type DecidedOutcome = Exclude<CardOutcome, 'pending'>

const OUTCOME_LABEL = {
  approved: 'workbench.card.outcome.approved',
  'always-allowed': 'workbench.card.outcome.alwaysAllowed',
  rejected: 'workbench.card.outcome.rejected',
  expired: 'workbench.card.outcome.expired',
  'auto-reviewed': 'workbench.card.outcome.autoReviewed',
  stale: 'workbench.card.outcome.stale',
} as const satisfies Record<DecidedOutcome, string>

/** How a decided approval ended, with its icon, in the card's header. */
export function OutcomeLabel({ outcome }: { outcome: DecidedOutcome }) {
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

export interface CardActionsProps {
  approvalId: string
  open: boolean
  reviewing?: boolean | undefined
  error?: string | undefined
  /** Both buttons call this: the protected window decides, never the card. */
  onReview: (approvalId: string) => void
}

/**
 * The foot of an approval card: while it is open, "Review and allow" and
 * "Deny", which both open the protected window (Deny is its default focus
 * there); that the window is opening; and why it could not be.
 */
export function CardActions({ approvalId, open, reviewing, error, onReview }: CardActionsProps) {
  const { t } = useTranslation()
  return (
    <>
      {open ? (
        <div className="card__actions">
          <button
            type="button"
            className="button button--primary"
            data-testid="approval-review"
            onClick={() => onReview(approvalId)}
          >
            {t('workbench.card.review')}
          </button>
          <button
            type="button"
            className="button"
            data-testid="approval-deny"
            onClick={() => onReview(approvalId)}
          >
            {t('workbench.card.deny')}
          </button>
        </div>
      ) : null}
      {open && reviewing ? (
        <p className="card__note" role="status">
          {t('workbench.card.reviewing')}
        </p>
      ) : null}
      {error ? (
        <p className="card__error" role="alert">
          {error}
        </p>
      ) : null}
    </>
  )
}
