import { useId, useRef, useState, type KeyboardEvent, type ReactNode } from 'react'
import { useTranslation } from 'react-i18next'
import { errorText } from '../gui/error-text.ts'

export interface ComposerProps {
  /** Sends the text; rejects with a reason the person can read. */
  onSend: (text: string) => Promise<void>
  /** The permission picker, for direct rooms only. */
  picker?: ReactNode
  /** The open question the text will answer, by its title, if any. */
  answering?: string | undefined
  /** Sends the text as a message, not as that answer. */
  onSendAsMessage?: (text: string) => Promise<void>
}

/**
 * The message box. Enter sends and Shift+Enter adds a line; Enter while an
 * input method is composing (Chinese, Japanese…) confirms the composition
 * and sends nothing. Nothing here can approve: what the text becomes (an
 * answer to an open question, a rejection of open approvals and then a
 * message) is the room's choice (message-routing.ts). While a question is
 * open, the box says the text will answer it ("Answering: Scope") and
 * offers to send it as a message instead.
 */
export function Composer({ onSend, picker, answering, onSendAsMessage }: ComposerProps) {
  const { t } = useTranslation()
  const inputId = useId()
  const hintId = useId()
  const targetId = useId()
  const [text, setText] = useState('')
  const [sending, setSending] = useState(false)
  const [error, setError] = useState<string | undefined>(undefined)
  // A ref, not the `sending` state: a second click in the same frame still
  // sees the state from before the first, and would send the text twice.
  const inFlight = useRef(false)

  const submit = async (send: (text: string) => Promise<void> = onSend) => {
    const message = text.trim()
    if (message === '' || inFlight.current) return
    inFlight.current = true
    setSending(true)
    setError(undefined)
    try {
      await send(message)
      setText('')
    } catch (failure) {
      setError(t('workbench.composer.failed', { reason: errorText(t, failure) }))
    } finally {
      inFlight.current = false
      setSending(false)
    }
  }

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key !== 'Enter' || event.shiftKey) return
    if (event.nativeEvent.isComposing || event.keyCode === 229) return
    event.preventDefault()
    void submit()
  }

  return (
    <form
      className="composer"
      data-testid="composer"
      onSubmit={(event) => {
        event.preventDefault()
        void submit()
      }}
    >
      <label className="visually-hidden" htmlFor={inputId}>
        {t('workbench.composer.label')}
      </label>
      {answering !== undefined ? (
        <p className="composer__target" id={targetId} data-testid="composer-answering">
          <span className="composer__answering">
            {t('workbench.composer.answering', { title: answering })}
          </span>
          {onSendAsMessage ? (
            <button
              type="button"
              className="link-button composer__as-message"
              data-testid="composer-as-message"
              disabled={sending || text.trim() === ''}
              onClick={() => void submit(onSendAsMessage)}
            >
              {t('workbench.composer.sendAsMessage')}
            </button>
          ) : null}
        </p>
      ) : null}
      <textarea
        id={inputId}
        className="composer__input"
        data-testid="composer-input"
        rows={2}
        value={text}
        placeholder={
          answering !== undefined
            ? t('workbench.composer.answerPlaceholder', { title: answering })
            : t('workbench.composer.placeholder')
        }
        aria-describedby={answering !== undefined ? `${targetId} ${hintId}` : hintId}
        spellCheck={false}
        onChange={(event) => setText(event.target.value)}
        onKeyDown={onKeyDown}
      />
      <div className="composer__bar">
        {picker}
        <p className="composer__hint" id={hintId}>
          {t('workbench.composer.hint')}
        </p>
        <button
          type="submit"
          className="button button--primary composer__send"
          data-testid="composer-send"
          disabled={sending || text.trim() === ''}
        >
          {sending ? t('workbench.composer.sending') : t('workbench.composer.send')}
        </button>
      </div>
      {error ? (
        <p className="composer__error" role="alert" data-testid="composer-error">
          {error}
        </p>
      ) : null}
    </form>
  )
}
