import { useId } from 'react'
import { useTranslation } from 'react-i18next'
import type { Timeline } from '../../../contracts/room.ts'
import { cardKey, type CardState } from '../state/approval-cards.ts'
import { argumentsOf } from '../state/timeline-items.ts'
import { ApprovalCard } from './approval-card.tsx'
import { ModeRequestCard, type ModeRequest } from './mode-request-card.tsx'

export interface CardActivity {
  reviewing: boolean
  error?: string
}

export interface PendingApprovalsProps {
  /** Open cards, in order of arrival (see `openCards`). */
  cards: readonly CardState[]
  timeline: Timeline | undefined
  activity: ReadonlyMap<string, CardActivity>
  onReview: (card: CardState) => void
  /** A mode change waiting in (or just back from) the protected window. */
  modeRequest?: ModeRequest | undefined
  onDismissModeRequest?: () => void
}

/** The open cards, collected in one block above the composer, and the
 *  permissions request after them when there is one. The heading says the
 *  person is awaited only while something is: a permissions request that
 *  already closed stays here until dismissed, under a neutral name. */
export function PendingApprovals({
  cards,
  timeline,
  activity,
  onReview,
  modeRequest,
  onDismissModeRequest = () => {},
}: PendingApprovalsProps) {
  const { t } = useTranslation()
  const headingId = useId()
  if (cards.length === 0 && !modeRequest) return null
  const waiting = cards.length > 0 || modeRequest?.status === 'waiting'
  return (
    <section
      className="pending"
      data-testid="pending-approvals"
      {...(waiting
        ? { 'aria-labelledby': headingId }
        : { 'aria-label': t('workbench.pending.settledLabel') })}
    >
      {waiting ? (
        <h2 className="pending__heading" id={headingId} data-testid="pending-heading">
          {t('workbench.pending.heading')}
        </h2>
      ) : null}
      <ol className="pending__list">
        {cards.map((card) => {
          const key = cardKey(card.approval)
          const current = activity.get(key)
          return (
            <li key={key} className="pending__item">
              <ApprovalCard
                card={card}
                args={argumentsOf(timeline, card.approval.id)}
                reviewing={current?.reviewing ?? false}
                error={current?.error}
                onReview={() => onReview(card)}
              />
            </li>
          )
        })}
        {modeRequest ? (
          <li className="pending__item">
            <ModeRequestCard request={modeRequest} onDismiss={onDismissModeRequest} />
          </li>
        ) : null}
      </ol>
    </section>
  )
}
