import { useId } from 'react'
import { useTranslation } from 'react-i18next'
import type { InputResponse } from '../../../contracts/input-request.ts'
import type { Timeline } from '../../../contracts/room.ts'
import type { InputCard } from '../state/input-cards.ts'
import type { OpenRequest } from '../state/open-requests.ts'
import { argumentsOf } from '../state/timeline-items.ts'
import { cardKey, type CardState } from '../state/approval-cards.ts'
import { ApprovalCard } from './approval-card.tsx'
import { FormCard } from './form-card.tsx'
import { ModeRequestCard } from './mode-request-card.tsx'
import { QuestionCard, type QuestionDrafts } from './question-card.tsx'

export interface CardActivity {
  reviewing: boolean
  error?: string
}

export interface OpenRequestsProps {
  /** In order of arrival (`openRequests`). */
  requests: readonly OpenRequest[]
  /** The one whose details show (`expandedRequest`). */
  expanded: string | undefined
  onToggle: (key: string) => void
  timeline: Timeline | undefined
  activity: ReadonlyMap<string, CardActivity>
  onReview: (card: CardState) => void
  onRespond: (card: InputCard, response: InputResponse) => Promise<void>
  /** Starts an ordinary question's wait again in the runtime. */
  onKeepWaiting: (card: InputCard) => Promise<void>
  onDraft: (card: InputCard, drafts: QuestionDrafts) => void
  onOpenProtected?: (card: InputCard) => void
}

/**
 * Everything that waits for the person, in one block above the composer, in
 * order of arrival whatever its kind. Each request is one line with its own
 * buttons; one at a time shows its details, which scroll inside it. The
 * block's height is bounded (styles/requests.css), so the composer and every
 * request's buttons stay on screen however many are open. A request leaves
 * the block the moment it is settled; the timeline keeps it.
 */
export function OpenRequests(props: OpenRequestsProps) {
  const { t } = useTranslation()
  const headingId = useId()
  const { requests } = props
  if (requests.length === 0) return null
  return (
    <section className="requests" aria-labelledby={headingId} data-testid="open-requests">
      <h2 className="requests__heading" id={headingId} data-testid="open-requests-heading">
        {t('workbench.requests.heading', { count: requests.length })}
      </h2>
      <ol className="requests__list">
        {requests.map((request) => {
          const expanded = request.key === props.expanded
          return (
            <li
              key={request.key}
              className={`requests__item${expanded ? ' requests__item--expanded' : ''}`}
              data-request-key={request.key}
            >
              <RequestCard {...props} request={request} isExpanded={expanded} />
            </li>
          )
        })}
      </ol>
    </section>
  )
}

function RequestCard({
  request,
  isExpanded: expanded,
  onToggle,
  timeline,
  activity,
  onReview,
  onRespond,
  onKeepWaiting,
  onDraft,
  onOpenProtected,
}: Omit<OpenRequestsProps, 'requests' | 'expanded'> & {
  request: OpenRequest
  isExpanded: boolean
}) {
  const toggle = () => onToggle(request.key)
  if (request.kind === 'approval') {
    const current = activity.get(cardKey(request.card.approval))
    return (
      <ApprovalCard
        card={request.card}
        args={argumentsOf(timeline, request.card.approval.id)}
        reviewing={current?.reviewing ?? false}
        error={current?.error}
        onReview={() => onReview(request.card)}
        expanded={expanded}
        onToggle={toggle}
      />
    )
  }
  if (request.kind === 'mode') {
    return <ModeRequestCard request={request.request} expanded={expanded} onToggle={toggle} />
  }
  const card = request.card
  if (card.request.kind === 'questions') {
    return (
      <QuestionCard
        card={card}
        onSend={(answers) => onRespond(card, { action: 'answer', answers })}
        onDismiss={() => onRespond(card, { action: 'dismiss' })}
        onKeepWaiting={() => onKeepWaiting(card)}
        onDraft={(drafts) => onDraft(card, drafts)}
        expanded={expanded}
        onToggle={toggle}
      />
    )
  }
  return (
    <FormCard
      card={card}
      onRespond={(action, content) =>
        onRespond(card, action === 'accept' ? { action, content: content ?? {} } : { action })
      }
      {...(onOpenProtected ? { onOpenProtected: () => onOpenProtected(card) } : {})}
      expanded={expanded}
      onToggle={toggle}
    />
  )
}
