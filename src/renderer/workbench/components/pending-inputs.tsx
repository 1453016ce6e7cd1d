import { useId } from 'react'
import { useTranslation } from 'react-i18next'
import type { InputResponse } from '../../../contracts/input-request.ts'
import { inputKey, type InputCard } from '../state/input-cards.ts'
import { DEFAULT_QUESTION_TIMING } from '../state/use-countdown.ts'
import { FormCard } from './form-card.tsx'
import { QuestionCard, type QuestionDrafts } from './question-card.tsx'

export interface PendingInputsProps {
  cards: readonly InputCard[]
  onRespond: (card: InputCard, response: InputResponse) => Promise<void>
  onDraft: (card: InputCard, drafts: QuestionDrafts) => void
  onOpenProtected?: (card: InputCard) => void
}

/** Open questions and forms, above the composer with the open approvals. */
export function PendingInputs({ cards, onRespond, onDraft, onOpenProtected }: PendingInputsProps) {
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
                timing={card.request.timing ?? DEFAULT_QUESTION_TIMING}
                onSend={(answers) => onRespond(card, { action: 'answer', answers })}
                onDismiss={() => onRespond(card, { action: 'dismiss' })}
                onAutoResolve={() =>
                  // A failure shows as the card staying open; the next
                  // reconcile marks it stale if the runtime moved on.
                  void onRespond(card, { action: 'auto-resolve' }).catch(() => undefined)
                }
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
