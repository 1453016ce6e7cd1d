import { useId, useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import {
  formContentProblem,
  isEnumField,
  type FormContent,
  type FormField,
  type FormValue,
  type RequestedSchema,
} from '../../../contracts/form-content.ts'
import type { FormOutcomeAction } from '../gui/workbench-api.ts'
import { errorText } from '../gui/error-text.ts'
import { closedOutcome, type InputCard } from '../state/input-cards.ts'
import { KindIcon } from './icons.tsx'
import { RequestHeader } from './request-header.tsx'
import { ShownText } from './shown-text.tsx'

export interface FormCardProps {
  card: InputCard
  onRespond: (action: FormOutcomeAction, content?: FormContent) => Promise<void>
  /** Opens a sensitive form in the protected window (main's job). */
  onOpenProtected?: () => void
  /** Open, in the block above the composer: whether its fields show, and
   *  how the person shows or hides them. */
  expanded?: boolean
  onToggle?: () => void
}

/** The content a form starts with: defaults, and every switch off, since a
 *  switch always counts as filled. */
export function initialContent(schema: RequestedSchema | undefined): FormContent {
  if (!schema) return {}
  const content: FormContent = {}
  for (const [name, field] of Object.entries(schema.properties)) {
    if (field.type === 'boolean') content[name] = field.default ?? false
    else if (field.default !== undefined) content[name] = field.default
  }
  return content
}

/** Checks the content the same way the runtime will; without a schema the
 *  form is one text field sent as `answer`. */
export function formProblem(schema: RequestedSchema | undefined, content: FormContent) {
  if (schema) return formContentProblem(schema, content)
  return typeof content.answer === 'string' && content.answer.trim() !== '' ? null : 'answer'
}

/**
 * An MCP server's form (elicitation). Its title line holds Decline (sends
 * `decline`), Send (enabled only when the content fits the schema) and the
 * close button (`cancel`). Nothing is remembered. A sensitive form is never
 * filled in here: the card only offers to open it in the protected window.
 */
export function FormCard({
  card,
  onRespond,
  onOpenProtected,
  expanded = true,
  onToggle,
}: FormCardProps) {
  const { t } = useTranslation()
  const bodyId = useId()
  const { request } = card
  const schema = request.form?.requestedSchema
  const [content, setContent] = useState<FormContent>(() => initialContent(schema))
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | undefined>(undefined)
  const inFlight = useRef(false)
  const open = request.status === 'pending' && !card.stale

  if (!open) return <ClosedFormCard card={card} />

  const run = async (action: FormOutcomeAction, values?: FormContent) => {
    if (inFlight.current) return
    inFlight.current = true
    setBusy(true)
    setError(undefined)
    try {
      await onRespond(action, values)
    } catch (failure) {
      inFlight.current = false
      setError(t('workbench.form.failed', { reason: errorText(t, failure) }))
    } finally {
      setBusy(false)
    }
  }
  const set = (name: string, value: FormValue | undefined) =>
    setContent((current) => {
      const next = { ...current }
      if (value === undefined) delete next[name]
      else next[name] = value
      return next
    })

  return (
    <article
      className={`card card--form card--request${expanded ? ' card--expanded' : ''}`}
      data-testid="form-card"
      data-request-id={request.id}
      data-expanded={expanded}
      aria-label={`${t('workbench.form.heading')}: ${request.form?.message ?? ''}`}
      tabIndex={-1}
    >
      <RequestHeader
        icon={<KindIcon kind="form" />}
        label={t('workbench.form.label')}
        title={request.form?.message ?? ''}
        verbatimTitle
        bodyId={bodyId}
        expanded={expanded}
        onToggle={onToggle}
        actions={
          <>
            <button
              type="button"
              className="button"
              data-testid="form-decline"
              disabled={busy}
              onClick={() => void run('decline')}
            >
              {t('workbench.form.decline')}
            </button>
            {request.sensitive ? (
              onOpenProtected ? (
                <button
                  type="button"
                  className="button button--primary"
                  data-testid="form-open-protected"
                  onClick={onOpenProtected}
                >
                  {t('workbench.form.openProtected')}
                </button>
              ) : null
            ) : (
              <button
                type="button"
                className="button button--primary"
                data-testid="form-send"
                disabled={busy || formProblem(schema, content) !== null}
                onClick={() => void run('accept', content)}
              >
                {busy ? t('workbench.form.sending') : t('workbench.form.send')}
              </button>
            )}
            <button
              type="button"
              className="button button--icon"
              data-testid="form-close"
              aria-label={t('workbench.form.close')}
              title={t('workbench.form.close')}
              disabled={busy}
              onClick={() => void run('cancel')}
            >
              ×
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
        <p className="form__message" data-verbatim="">
          <ShownText text={request.form?.message ?? ''} multiline />
        </p>
        {request.sensitive ? (
          <p className="card__note" data-testid="form-sensitive">
            {t('workbench.form.sensitive')}
          </p>
        ) : schema ? (
          Object.entries(schema.properties).map(([name, field]) => (
            <FieldInput
              key={name}
              name={name}
              field={field}
              required={(schema.required ?? []).includes(name)}
              value={content[name]}
              disabled={busy}
              onChange={(value) => set(name, value)}
            />
          ))
        ) : (
          <AnswerField
            value={typeof content.answer === 'string' ? content.answer : ''}
            disabled={busy}
            onChange={(value) => set('answer', value)}
          />
        )}
        <p className="card__note">{t('workbench.form.nothingRemembered')}</p>
      </div>
    </article>
  )
}

function AnswerField(props: {
  value: string
  disabled: boolean
  onChange: (value: string) => void
}) {
  const { t } = useTranslation()
  const id = useId()
  return (
    <div className="form__field">
      <label className="form__label" htmlFor={id}>
        {t('workbench.form.answer')}
      </label>
      <textarea
        id={id}
        className="form__answer"
        data-testid="form-answer"
        rows={5}
        value={props.value}
        disabled={props.disabled}
        onChange={(event) => props.onChange(event.target.value)}
      />
    </div>
  )
}

const INPUT_TYPES = { email: 'email', uri: 'url', date: 'date' } as const

function FieldInput(props: {
  name: string
  field: FormField
  required: boolean
  value: FormValue | undefined
  disabled: boolean
  onChange: (value: FormValue | undefined) => void
}) {
  const { t } = useTranslation()
  const id = useId()
  const { field, value, onChange } = props
  const label = (
    <span className="form__label" id={`${id}-label`}>
      <span data-verbatim="">
        <ShownText text={field.title ?? props.name} />
      </span>
      {props.required ? (
        <span className="form__required"> ({t('workbench.form.required')})</span>
      ) : null}
    </span>
  )
  const description = field.description ? (
    <p className="form__description" id={`${id}-description`} data-verbatim="">
      <ShownText text={field.description} multiline />
    </p>
  ) : null
  const common = {
    id,
    disabled: props.disabled,
    'data-field': props.name,
    'aria-describedby': field.description ? `${id}-description` : undefined,
  }

  if (field.type === 'boolean') {
    return (
      <div className="form__field form__field--switch">
        <label className="form__switch" htmlFor={id}>
          <input
            {...common}
            type="checkbox"
            role="switch"
            checked={value === true}
            onChange={(event) => onChange(event.target.checked)}
          />
          {label}
        </label>
        {description}
      </div>
    )
  }
  if (field.type === 'array' || isEnumField(field)) {
    const multiple = field.type === 'array'
    const choices = field.type === 'array' ? field.items.enum : field.enum
    const names = field.type === 'array' ? field.items.enumNames : field.enumNames
    const chosen = Array.isArray(value) ? value : []
    return (
      <fieldset className="form__field" aria-labelledby={`${id}-label`} disabled={props.disabled}>
        <legend>{label}</legend>
        {description}
        {choices.map((choice, index) => (
          <label key={choice} className="form__choice">
            <input
              type={multiple ? 'checkbox' : 'radio'}
              name={id}
              data-field={props.name}
              value={choice}
              checked={multiple ? chosen.includes(choice) : value === choice}
              onChange={(event) => {
                if (!multiple) return onChange(choice)
                const next = event.target.checked
                  ? [...chosen, choice]
                  : chosen.filter((item) => item !== choice)
                onChange(next.length > 0 ? next : undefined)
              }}
            />
            <span data-verbatim="">
              <ShownText text={names?.[index] ?? choice} />
            </span>
          </label>
        ))}
      </fieldset>
    )
  }
  if (field.type === 'number' || field.type === 'integer') {
    return (
      <div className="form__field">
        <label htmlFor={id}>{label}</label>
        {description}
        <input
          {...common}
          type="number"
          inputMode={field.type === 'integer' ? 'numeric' : 'decimal'}
          step={field.type === 'integer' ? 1 : 'any'}
          value={typeof value === 'number' ? String(value) : ''}
          onChange={(event) =>
            onChange(event.target.value === '' ? undefined : Number(event.target.value))
          }
        />
      </div>
    )
  }
  const format = 'format' in field ? field.format : undefined
  return (
    <div className="form__field">
      <label htmlFor={id}>{label}</label>
      {description}
      <input
        {...common}
        type={
          format && format in INPUT_TYPES ? INPUT_TYPES[format as keyof typeof INPUT_TYPES] : 'text'
        }
        spellCheck={false}
        value={typeof value === 'string' ? value : ''}
        onChange={(event) => onChange(event.target.value === '' ? undefined : event.target.value)}
      />
    </div>
  )
}

const FORM_OUTCOMES = {
  accepted: 'accepted',
  declined: 'declined',
  cancelled: 'cancelled',
  stale: 'stale',
} as const

function ClosedFormCard({ card }: { card: InputCard }) {
  const { t } = useTranslation()
  const { request } = card
  const outcome = closedOutcome(card, FORM_OUTCOMES)
  return (
    <article
      className={`card card--form${outcome === 'stale' ? ' card--stale' : ''}`}
      data-testid="form-card"
      data-request-id={request.id}
      data-outcome={outcome}
    >
      <p className="card__eyebrow">
        {t('workbench.form.heading')} ·{' '}
        <span className="card__outcome">{t(`workbench.form.outcome.${outcome}`)}</span>
      </p>
      <p className="form__message" data-verbatim="">
        <ShownText text={request.form?.message ?? ''} multiline />
      </p>
      {request.content ? (
        <dl className="form__values" data-verbatim="">
          {Object.entries(request.content).map(([name, value]) => (
            <div key={name}>
              <dt>
                <ShownText text={name} />
              </dt>
              <dd>{Array.isArray(value) ? value.join(', ') : String(value)}</dd>
            </div>
          ))}
        </dl>
      ) : null}
    </article>
  )
}
