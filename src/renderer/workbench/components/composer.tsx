import { useId, useRef, useState, type KeyboardEvent, type ReactNode } from 'react'
import { useTranslation } from 'react-i18next'
import { errorText } from '../gui/error-text.ts'

export interface ComposerProps {
  /** Sends the text; rejects with a reason the person can read. */
  onSend: (text: string) => Promise<void>
  /** The permission picker, for direct rooms only. */
  picker?: ReactNode
}

/**
 * The message box. Enter sends and Shift+Enter adds a line; Enter while an
 * input method is composing (Chinese, Japanese…) confirms the composition
 * and sends nothing. Nothing here can approve: what the text becomes (an
 * answer to an open question, a rejection of open approvals and then a
 * message) is the room's choice (message-routing.ts).
 */
export function Composer({ onSend, picker }: ComposerProps) {
  const { t } = useTranslation()
  const inputId = useId()
  const hintId = useId()
  const [text, setText] = useState('')
  const [sending, setSending] = useState(false)
  const [error, setError] = useState<string | undefined>(undefined)
  // A ref, not the `sending` state: a second click in the same frame still
  // sees the state from before the first, and would send the text twice.
  const inFlight = useRef(false)

  const submit = async () => {
    const message = text.trim()
    if (message === '' || inFlight.current) return
    inFlight.current = true
    setSending(true)
    setError(undefined)
    try {
      await onSend(message)
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
      <textarea
        id={inputId}
        className="composer__input"
        data-testid="composer-input"
        rows={2}
        value={text}
        placeholder={t('workbench.composer.placeholder')}
        aria-describedby={hintId}
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
