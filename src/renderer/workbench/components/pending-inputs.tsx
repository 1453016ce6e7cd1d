import { useId } from 'react'
import { useTranslation } from 'react-i18next'
import type { InputResponse } from '../../../contracts/input-request.ts'
import { inputKey, type InputCard } from '../state/input-cards.ts'
import { FormCard } from './form-card.tsx'
import { QuestionCard, type QuestionDrafts } from './question-card.tsx'

export interface PendingInputsProps {
  cards: readonly InputCard[]
  onRespond: (card: InputCard, response: InputResponse) => Promise<void>
  /** Starts an ordinary question's wait again in the runtime. */
  onKeepWaiting: (card: InputCard) => Promise<void>
  onDraft: (card: InputCard, drafts: QuestionDrafts) => void
  onOpenProtected?: (card: InputCard) => void
}

/** Open questions and forms, above the composer with the open approvals. */
export function PendingInputs({
  cards,
  onRespond,
  onKeepWaiting,
  onDraft,
  onOpenProtected,
}: PendingInputsProps) {
  const { t } = useTranslation()
  const headingId = useId()
  if (cards.length === 0) return null
  return (
    <section className="pending" aria-labelledby={headingId} data-testid="pending-inputs">
      <h2 className="pending__heading" id={headingId}>
        {t('workbench.question.heading')}
      </h2>
      <ol className="pending__list">
        {cards.map((card) => (
          <li key={inputKey(card.request)} className="pending__item">
            {card.request.kind === 'questions' ? (
              <QuestionCard
                card={card}
                onSend={(answers) => onRespond(card, { action: 'answer', answers })}
                onDismiss={() => onRespond(card, { action: 'dismiss' })}
                onKeepWaiting={() => onKeepWaiting(card)}
                onDraft={(drafts) => onDraft(card, drafts)}
              />
            ) : (
              <FormCard
                card={card}
                onRespond={(action, content) =>
                  onRespond(
                    card,
                    action === 'accept' ? { action, content: content ?? {} } : { action },
                  )
                }
                {...(onOpenProtected ? { onOpenProtected: () => onOpenProtected(card) } : {})}
              />
            )}
          </li>
        ))}
      </ol>
    </section>
  )
}
