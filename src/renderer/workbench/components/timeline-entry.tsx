import { memo, type ReactNode } from 'react'
import { useTranslation } from 'react-i18next'
import type { Message, ToolCallRecord } from '../../../contracts/room.ts'
import { cardKey, outcomeOf, type CardState } from '../state/approval-cards.ts'
import type { TimelineItem } from '../state/timeline-items.ts'
import { ApprovalCard } from './approval-card.tsx'
import { ToolIcon } from './icons.tsx'
import { FormCard } from './form-card.tsx'
import { QuestionCard } from './question-card.tsx'
import type { CardActivity } from './open-requests.tsx'
import { ModeRequestCard } from './mode-request-card.tsx'
import { RuntimeText } from './runtime-text.tsx'
import { ShownText } from './shown-text.tsx'

/** A closed card offers no buttons; these are never called. */
const CLOSED_CARD = {
  onSend: () => Promise.resolve(),
  onDismiss: () => Promise.resolve(),
  onKeepWaiting: () => Promise.resolve(),
}

export interface TimelineEntryProps {
  item: TimelineItem
  activity: ReadonlyMap<string, CardActivity>
  retryErrors: ReadonlyMap<string, string>
  onReview: (card: CardState) => void
  onShowCard: (approvalId: string) => void
  onRetry: (turnId: string) => void
}

/** One entry of the conversation, whichever kind it is. Memoized: the list
 *  renders again on every move of its window, and an entry whose record and
 *  handlers are the same draws the same. */
export const TimelineEntry = memo(function TimelineEntry({
  item,
  activity,
  retryErrors,
  onReview,
  onShowCard,
  onRetry,
}: TimelineEntryProps) {
  const { t } = useTranslation()
  switch (item.kind) {
    case 'message':
      return <MessageEntry message={item.message} />
    case 'tool':
      return (
        <ToolEntry
          call={item.call}
          stale={item.card ? outcomeOf(item.card) === 'stale' : false}
          openCard={item.openCardKey !== undefined}
        >
          {item.card ? (
            <ApprovalCard
              card={item.card}
              args={item.call.arguments}
              error={activity.get(cardKey(item.card.approval))?.error}
              onReview={() => item.card && onReview(item.card)}
            />
          ) : item.openCardKey && item.call.approvalId ? (
            <p className="tool__waiting" data-testid="tool-open-card">
              <span>{t('workbench.timeline.cardBelow')}</span>{' '}
              <button
                type="button"
                className="link-button"
                onClick={() => item.call.approvalId && onShowCard(item.call.approvalId)}
              >
                {t('workbench.timeline.showCard')}
              </button>
            </p>
          ) : (
            <pre
              className="tool__arguments"
              tabIndex={0}
              role="group"
              aria-label={t('workbench.timeline.arguments')}
            >
              <ShownText text={JSON.stringify(item.call.arguments, null, 2)} multiline />
            </pre>
          )}
        </ToolEntry>
      )
    case 'approval':
      return (
        <ApprovalCard
          card={item.card}
          args={undefined}
          error={activity.get(cardKey(item.card.approval))?.error}
          onReview={() => onReview(item.card)}
        />
      )
    case 'input':
      return item.card.request.kind === 'questions' ? (
        <QuestionCard card={item.card} {...CLOSED_CARD} />
      ) : (
        <FormCard card={item.card} onRespond={CLOSED_CARD.onDismiss} />
      )
    case 'mode':
      return <ModeRequestCard request={item.mode.request} />
    case 'turn-end': {
      const error = retryErrors.get(item.turn.id)
      return (
        <div className="turn-end" data-testid="turn-end">
          <span>{t('workbench.timeline.turnStopped')}</span>
          <button type="button" className="button" onClick={() => onRetry(item.turn.id)}>
            {t('workbench.timeline.retry')}
          </button>
          {error ? (
            <p className="card__error" role="alert">
              {t('workbench.timeline.retryFailed', { reason: error })}
            </p>
          ) : null}
        </div>
      )
    }
  }
})

function MessageEntry({ message }: { message: Message }) {
  const { t } = useTranslation()
  return (
    <div className={`message message--${message.role}`} data-testid="timeline-message">
      <p className="message__author">{t(`workbench.timeline.${message.role}`)}</p>
      <p className="message__text">
        <RuntimeText message={message.message} english={message.text} />
      </p>
    </div>
  )
}

function ToolEntry({
  call,
  stale,
  openCard,
  children,
}: {
  call: ToolCallRecord
  /** Its approval went stale: the status the runtime last reported is
   *  no longer news, so it is shown muted. */
  stale: boolean
  /** Its approval is open above the composer, whose card says it waits and
   *  for how long: said there once, not here again. */
  openCard: boolean
  children: ReactNode
}) {
  const { t } = useTranslation()
  const exitCode = call.result?.exitCode
  return (
    <div
      className={`tool tool--${call.status}${stale ? ' tool--stale' : ''}`}
      data-testid="timeline-tool"
      data-tool-call-id={call.id}
      data-status={call.status}
    >
      <p className="tool__header">
        <ToolIcon />
        <span className="visually-hidden">{t('workbench.timeline.toolCall')}</span>
        <span className="mono tool__name">
          <ShownText text={call.toolName} name />
        </span>
        {openCard ? null : (
          <span className={`tool__status tool__status--${call.status}`}>
            {t(`workbench.timeline.toolStatus.${call.status}`)}
          </span>
        )}
      </p>
      {children}
      {call.result ? (
        <div className="tool__result">
          <p className="tool__result-label">
            {exitCode === undefined || exitCode === null
              ? t('workbench.timeline.result')
              : t('workbench.timeline.resultWithExit', { code: String(exitCode) })}
          </p>
          {call.result.message ? (
            <p className="tool__said" data-testid="tool-said">
              <RuntimeText message={call.result.message} english={call.result.output} />
            </p>
          ) : null}
          {/* Words say it all, except for a command: its output is data. */}
          {call.result.message === undefined || exitCode !== undefined ? (
            <pre
              className="tool__output"
              data-testid="tool-output"
              tabIndex={0}
              role="group"
              aria-label={t('workbench.timeline.result')}
            >
              <ShownText text={call.result.output} multiline />
            </pre>
          ) : null}
        </div>
      ) : null}
    </div>
  )
}
