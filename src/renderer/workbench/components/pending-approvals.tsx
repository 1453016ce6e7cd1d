import { useId, type ReactNode } from 'react'
import { useTranslation } from 'react-i18next'
import type { Timeline } from '../../../runtime/contracts/room.ts'
import { cardKey, type CardState } from '../state/approval-cards.ts'
import { argumentsOf } from '../state/timeline-items.ts'
import { ApprovalCard } from './approval-card.tsx'

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
  modeRequest?: ReactNode
}

/** The open cards, collected in one block above the composer, and the
 *  permissions request after them when there is one. */
export function PendingApprovals({
  cards,
  timeline,
  activity,
  onReview,
  modeRequest,
}: PendingApprovalsProps) {
  const { t } = useTranslation()
  const headingId = useId()
  if (cards.length === 0 && !modeRequest) return null
  return (
    <section className="pending" aria-labelledby={headingId} data-testid="pending-approvals">
      <h2 className="pending__heading" id={headingId}>
        {t('workbench.pending.heading')}
      </h2>
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
        {modeRequest ? <li className="pending__item">{modeRequest}</li> : null}
      </ol>
    </section>
  )
}
