import { useEffect, useState } from 'react'
import { useTranslation } from 'react-i18next'
import type { ApproverWebhook } from '../../../contracts/approver-webhook.ts'
import { errorText } from '../gui/error-text.ts'
import type { ReviewOutcome, WorkbenchApi } from '../gui/workbench-api.ts'

export interface ApproverWebhookPanelProps {
  roomId: string
  api: Pick<WorkbenchApi, 'approverWebhook' | 'requestApproverWebhook'>
}

/** What the last request came to, said under the buttons. */
type Said =
  | { kind: 'set'; url: string }
  | { kind: 'removed' }
  | { kind: 'unchanged' }
  | { kind: 'failed'; reason: string }

/**
 * The room's approver webhook: the URL in force, and a way to set or remove
 * one. The page only asks; main opens the protected window, which alone can
 * change it, and the page hears how it closed (never the secret).
 */
export function ApproverWebhookPanel({ roomId, api }: ApproverWebhookPanelProps) {
  const { t } = useTranslation()
  const [current, setCurrent] = useState<ApproverWebhook | null | undefined>(undefined)
  const [url, setUrl] = useState('')
  const [busy, setBusy] = useState(false)
  const [said, setSaid] = useState<Said | undefined>(undefined)

  useEffect(() => {
    // One room per mount (the room view keys the panel by room), so there
    // is nothing to reset here.
    let live = true
    api.approverWebhook(roomId).then(
      (webhook) => live && setCurrent(webhook),
      (failure: unknown) => live && setSaid({ kind: 'failed', reason: errorText(t, failure) }),
    )
    return () => {
      live = false
    }
  }, [api, roomId, t])

  const ask = async (next: string | null) => {
    setBusy(true)
    setSaid(undefined)
    try {
      const outcome: ReviewOutcome = await api.requestApproverWebhook(roomId, next)
      if (outcome.status === 'webhook-changed') {
        setCurrent(outcome.webhook)
        setSaid(outcome.webhook ? { kind: 'set', url: outcome.webhook.url } : { kind: 'removed' })
        setUrl('')
      } else if (outcome.status === 'failed') {
        setSaid({ kind: 'failed', reason: errorText(t, outcome.error) })
      } else if (outcome.status === 'closed') {
        setSaid({ kind: 'failed', reason: errorText(t, outcome.reason) })
      } else {
        setSaid({ kind: 'unchanged' })
      }
    } catch (failure) {
      setSaid({ kind: 'failed', reason: errorText(t, failure) })
    } finally {
      setBusy(false)
    }
  }

  const submit = () => {
    if (url.trim() !== '') void ask(url.trim())
  }

  return (
    <details className="grants webhook" data-testid="webhook-panel">
      <summary className="grants__summary">{t('workbench.webhook.summary')}</summary>
      <div className="grants__body">
        <p data-testid="webhook-current">
          {current === undefined ? (
            t('workbench.webhook.loading')
          ) : current === null ? (
            t('workbench.webhook.none')
          ) : (
            <>
              {t('workbench.webhook.current')} <span className="mono">{current.url}</span>
            </>
          )}
        </p>
        <p className="grants__empty">{t('workbench.webhook.explain')}</p>
        <form
          className="webhook__form"
          onSubmit={(event) => {
            event.preventDefault()
            submit()
          }}
        >
          <label>
            <span className="visually-hidden">{t('workbench.webhook.urlLabel')}</span>
            <input
              type="url"
              value={url}
              placeholder="https://…"
              aria-label={t('workbench.webhook.urlLabel')}
              data-testid="webhook-url"
              onChange={(event) => setUrl(event.target.value)}
            />
          </label>
          <button
            type="button"
            className="button button--small"
            data-testid="webhook-set"
            disabled={busy || url.trim() === ''}
            onClick={submit}
          >
            {t('workbench.webhook.set')}
          </button>
          {current ? (
            <button
              type="button"
              className="button button--small"
              data-testid="webhook-remove"
              disabled={busy}
              onClick={() => void ask(null)}
            >
              {t('workbench.webhook.remove')}
            </button>
          ) : null}
        </form>
        {said ? (
          <p role="status" data-testid="webhook-said">
            {said.kind === 'set'
              ? t('workbench.webhook.saidSet', { url: said.url })
              : said.kind === 'removed'
                ? t('workbench.webhook.saidRemoved')
                : said.kind === 'unchanged'
                  ? t('workbench.webhook.saidUnchanged')
                  : t('workbench.webhook.saidFailed', { reason: said.reason })}
          </p>
        ) : null}
      </div>
    </details>
  )
}
