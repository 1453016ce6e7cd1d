import { useId, useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import type { Question, QuestionAnswer, StoredAnswer } from '../../../contracts/input-request.ts'
import { errorText } from '../gui/error-text.ts'
import { closedOutcome, type InputCard } from '../state/input-cards.ts'
import { formatCountdown, useCountdown } from '../state/use-countdown.ts'
import { KindIcon } from './icons.tsx'
import { RequestHeader } from './request-header.tsx'
import { ShownText } from './shown-text.tsx'

/** What the person has chosen or typed so far, per question id. */
export type QuestionDrafts = Readonly<Record<string, { option?: number; text: string }>>

export function isAnswered(questions: readonly Question[], drafts: QuestionDrafts): boolean {
  return questions.every((question) => {
    const draft = drafts[question.id]
    return draft !== undefined && (draft.option !== undefined || draft.text.trim() !== '')
  })
}

export function answersFrom(
  questions: readonly Question[],
  drafts: QuestionDrafts,
): QuestionAnswer[] {
  return questions.map((question) => {
    const draft = drafts[question.id]
    const text = draft?.text.trim() ?? ''
    return {
      questionId: question.id,
      ...(draft?.option === undefined ? {} : { option: draft.option }),
      ...(text === '' ? {} : { text }),
    }
  })
}

export interface QuestionCardProps {
  card: InputCard
  onSend: (answers: QuestionAnswer[]) => Promise<void>
  onDismiss: () => Promise<void>
  /** Asks the runtime to start the question's wait again; called when the
   *  person interacts with the card while its countdown shows. */
  onKeepWaiting: () => Promise<void>
  /** Reports every change, so a message typed in the composer can answer
   *  with what is already chosen here. */
  onDraft?: (drafts: QuestionDrafts) => void
  /** Open, in the block above the composer: whether its questions show,
   *  and how the person shows or hides them. */
  expanded?: boolean
  onToggle?: () => void
}

/**
 * A request with one or more questions. Open: a title line with Dismiss and
 * Send (only once every question is answered), then each question's title
 * in the accent colour, its text, options as radio buttons with their
 * explanations, and "Your answer" (three lines at most on screen), and for
 * an ordinary question a countdown to the runtime's deadline in its last
 * phase, which any interaction with the card starts again (through the
 * runtime, which keeps the timer). Closed: what happened, with a secret
 * answer shown only as saved. Stale: muted, without buttons, its options
 * still shown.
 */
export function QuestionCard(props: QuestionCardProps) {
  const { card } = props
  const open = card.request.status === 'pending' && !card.stale
  return open ? <OpenQuestionCard {...props} /> : <ClosedQuestionCard card={card} />
}

function OpenQuestionCard({
  card,
  onSend,
  onDismiss,
  onKeepWaiting,
  onDraft,
  expanded = true,
  onToggle,
}: QuestionCardProps) {
  const { t } = useTranslation()
  const bodyId = useId()
  const { request } = card
  const [drafts, setDrafts] = useState<QuestionDrafts>({})
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | undefined>(undefined)
  // A ref, not state: two clicks in one frame both see the first click's
  // mark, so a double click can never send twice.
  const inFlight = useRef(false)
  const countdown = useCountdown({
    deadline: request.blocking ? null : request.autoResolveAt,
    countdownMs: request.timing?.countdownMs ?? 0,
  })
  // One request to the runtime at a time: a burst of keys is one restart.
  const keeping = useRef(false)
  const keepWaiting = () => {
    if (countdown.visibleRemainingMs === undefined || keeping.current || inFlight.current) return
    keeping.current = true
    void onKeepWaiting()
      .catch(() => undefined)
      .finally(() => {
        keeping.current = false
      })
  }

  const change = (questionId: string, update: { option?: number; text?: string }) => {
    const current = drafts[questionId] ?? { text: '' }
    const next = { ...drafts, [questionId]: { ...current, ...update } }
    setDrafts(next)
    onDraft?.(next)
  }

  const run = async (action: () => Promise<void>) => {
    if (inFlight.current) return
    inFlight.current = true
    setBusy(true)
    setError(undefined)
    try {
      await action()
    } catch (failure) {
      inFlight.current = false
      setError(t('workbench.question.failed', { reason: errorText(t, failure) }))
    } finally {
      setBusy(false)
    }
  }

  const answered = isAnswered(request.questions, drafts)
  const [first, ...others] = request.questions
  const title =
    others.length === 0
      ? (first?.title ?? '')
      : t('workbench.question.titleAndMore', { title: first?.title ?? '', count: others.length })
  return (
    <article
      className={`card card--question card--request${expanded ? ' card--expanded' : ''}`}
      data-testid="question-card"
      data-request-id={request.id}
      data-turn-id={request.turnId ?? ''}
      data-expanded={expanded}
      aria-label={`${t('workbench.question.heading')}: ${title}`}
      tabIndex={-1}
      onPointerDown={keepWaiting}
      onKeyDown={keepWaiting}
      onFocus={keepWaiting}
    >
      <RequestHeader
        icon={<KindIcon kind="question" />}
        label={t('workbench.question.label')}
        title={title}
        verbatimTitle
        bodyId={bodyId}
        expanded={expanded}
        onToggle={onToggle}
        status={
          countdown.visibleRemainingMs !== undefined ? (
            <span
              className="card__ttl card__ttl--soon"
              role="timer"
              data-testid="question-countdown"
            >
              {t('workbench.question.countdown', {
                time: formatCountdown(countdown.visibleRemainingMs),
              })}
            </span>
          ) : null
        }
        actions={
          <>
            <button
              type="button"
              className="button"
              data-testid="question-dismiss"
              disabled={busy}
              onClick={() => void run(onDismiss)}
            >
              {t('workbench.question.dismiss')}
            </button>
            <button
              type="button"
              className="button button--primary"
              data-testid="question-send"
              disabled={busy || !answered}
              onClick={() => void run(() => onSend(answersFrom(request.questions, drafts)))}
            >
              {busy ? t('workbench.question.sending') : t('workbench.question.send')}
            </button>
          </>
        }
      />
      {error ? (
        <p className="card__error" role="alert">
          {error}
        </p>
      ) : null}
      <div className="card__body" id={bodyId} hidden={!expanded}>
        {request.questions.map((question) => (
          <QuestionFields
            key={question.id}
            question={question}
            draft={drafts[question.id]}
            disabled={busy}
            onChange={(update) => change(question.id, update)}
          />
        ))}
        {request.blocking ? (
          <p className="card__note" data-testid="question-blocking">
            {t('workbench.question.blocking')}
          </p>
        ) : null}
      </div>
    </article>
  )
}

function QuestionFields({
  question,
  draft,
  disabled,
  onChange,
}: {
  question: Question
  draft: { option?: number; text: string } | undefined
  disabled: boolean
  onChange: (update: { option?: number; text?: string }) => void
}) {
  const { t } = useTranslation()
  const titleId = useId()
  const answerId = useId()
  return (
    <fieldset className="question" aria-labelledby={titleId} disabled={disabled}>
      <legend className="question__title" id={titleId} data-verbatim="">
        <ShownText text={question.title} />
      </legend>
      {question.text ? (
        <p className="question__text" data-verbatim="">
          <ShownText text={question.text} multiline />
        </p>
      ) : null}
      {question.options.length > 0 ? (
        <div className="question__options" role="radiogroup" aria-labelledby={titleId}>
          {question.options.map((option, index) => (
            <label key={option.label} className="question__option">
              <input
                type="radio"
                name={`${titleId}-option`}
                value={index}
                checked={draft?.option === index}
                onChange={() => onChange({ option: index })}
              />
              <span className="question__option-text" data-verbatim="">
                <span className="question__option-label">
                  <ShownText text={option.label} />
                </span>
                {option.explanation ? (
                  <span className="question__option-explanation">
                    <ShownText text={option.explanation} multiline />
                  </span>
                ) : null}
              </span>
            </label>
          ))}
        </div>
      ) : null}
      <label className="question__answer-label" htmlFor={answerId}>
        {t('workbench.question.yourAnswer')}
      </label>
      {question.secret ? (
        <>
          <input
            id={answerId}
            className="question__answer"
            type="password"
            autoComplete="off"
            value={draft?.text ?? ''}
            onChange={(event) => onChange({ text: event.target.value })}
          />
          <p className="question__hint">{t('workbench.question.secretHint')}</p>
        </>
      ) : (
        <textarea
          id={answerId}
          className="question__answer"
          rows={Math.min(3, Math.max(1, (draft?.text ?? '').split('\n').length))}
          spellCheck={false}
          value={draft?.text ?? ''}
          onChange={(event) => onChange({ text: event.target.value })}
        />
      )}
    </fieldset>
  )
}

const OUTCOME_KEYS = {
  answered: 'answered',
  dismissed: 'dismissed',
  'auto-resolved': 'autoResolved',
  stale: 'stale',
} as const

function ClosedQuestionCard({ card }: { card: InputCard }) {
  const { t } = useTranslation()
  const { request } = card
  const outcome = closedOutcome(card, OUTCOME_KEYS)
  return (
    <article
      className={`card card--question card--question-${outcome}${card.stale ? ' card--stale' : ''}`}
      data-testid="question-card"
      data-request-id={request.id}
      data-turn-id={request.turnId ?? ''}
      data-outcome={outcome}
    >
      <p className="card__eyebrow">
        {t('workbench.question.heading')} ·{' '}
        <span className="card__outcome">{t(`workbench.question.outcome.${outcome}`)}</span>
      </p>
      {request.questions.map((question) => {
        const answer = request.answers?.find((a) => a.questionId === question.id)
        const chosen = answer && !answer.secret ? answer.option : null
        return (
          <div key={question.id} className="question question--closed">
            <p className="question__title" data-verbatim="">
              <ShownText text={question.title} />
            </p>
            {question.text ? (
              <p className="question__text" data-verbatim="">
                <ShownText text={question.text} multiline />
              </p>
            ) : null}
            {question.options.length > 0 ? (
              <ul className="question__choices" data-testid="question-options" data-verbatim="">
                {question.options.map((option) => (
                  <li
                    key={option.label}
                    className={`question__choice${option.label === chosen ? ' question__choice--chosen' : ''}`}
                  >
                    <span className="question__option-label">
                      <ShownText text={option.label} />
                    </span>
                    {option.explanation ? (
                      <span className="question__option-explanation">
                        <ShownText text={option.explanation} multiline />
                      </span>
                    ) : null}
                  </li>
                ))}
              </ul>
            ) : null}
            <AnswerLine answer={answer} />
          </div>
        )
      })}
      {outcome === 'dismissed' ? (
        <p className="card__note">{t('workbench.question.dismissedNote')}</p>
      ) : null}
      {outcome === 'autoResolved' ? (
        <p className="card__note" data-testid="question-auto-note">
          {t('workbench.question.autoResolvedNote')}
        </p>
      ) : null}
      {outcome === 'stale' ? (
        <p className="card__note" data-testid="question-stale-note">
          {t('workbench.question.staleNote')}
        </p>
      ) : null}
    </article>
  )
}

function AnswerLine({ answer }: { answer: StoredAnswer | undefined }) {
  const { t } = useTranslation()
  if (!answer) return null
  if (answer.secret) {
    return (
      <p className="question__answered" data-testid="question-answer-saved">
        {t('workbench.question.answerSaved')}
      </p>
    )
  }
  const parts = [answer.option, answer.text].filter((part) => part !== null && part !== '')
  return (
    <p className="question__answered" data-verbatim="">
      {parts.join(' — ')}
    </p>
  )
}
