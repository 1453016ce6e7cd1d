import type { ConsentView } from '../common/consent-view.ts'
import { translate } from '../common/i18n/index.ts'
import type { ConsentPageElement } from './consent-page-ids.ts'
import type { SafeTextWriter } from './safe-text-writer.ts'

type WebhookView = Extract<ConsentView, { subject: 'approver-webhook' | 'approver-webhook-secret' }>

/**
 * The approver webhook's two views. Setting one says in words what it hands
 * over (every question this room would ask the person, answered by whoever
 * controls the URL) in a warning box; removing one says the room asks the
 * person again. The secret view shows the new secret once, selectable, with
 * what to do with it. Every value goes through the safe-text writer.
 */
export function renderWebhookView(
  elements: Readonly<Record<ConsentPageElement, HTMLElement>>,
  view: WebhookView,
  writer: SafeTextWriter,
): string {
  const { lang } = view
  const text = (name: ConsentPageElement, value: string) => {
    elements[name].textContent = value
  }
  const safe = (name: ConsentPageElement, value: string) => {
    elements[name].replaceChildren()
    writer.append(elements[name], value)
  }
  const room = (parent: HTMLElement) => writer.append(parent, view.roomLabel)
  text('webhookKind', translate(lang, 'consent.kind.webhook'))
  text('webhookUrlLabel', translate(lang, 'consent.webhook.urlLabel'))
  text('webhookRoomLabel', translate(lang, 'consent.label.room'))
  safe('webhookRoom', view.roomLabel)

  if (view.subject === 'approver-webhook-secret') {
    safe('webhookUrl', view.url)
    text('webhookIdLabel', translate(lang, 'consent.webhook.idLabel'))
    text('webhookId', view.webhookId)
    text('webhookSecretLabel', translate(lang, 'consent.webhook.secretLabel'))
    text('webhookSecret', view.secret)
    text('webhookSecretNote', translate(lang, 'consent.webhook.secretNote'))
    writer.message(elements.webhookSentence, lang, 'consent.webhook.secretSentence', {
      url: (parent) => writer.append(parent, view.url),
    })
    elements.webhookSecretBox.hidden = false
    elements.webhookIdFact.hidden = false
    elements.webhookCurrentFact.hidden = true
    elements.webhookWarning.hidden = true
    return writer.message(elements.webhookHeading, lang, 'consent.title.webhookSecret', { room })
  }

  elements.webhookSecretBox.hidden = true
  elements.webhookIdFact.hidden = true
  text('webhookSecret', '')
  const current = view.currentUrl
  elements.webhookCurrentFact.hidden = current === null || view.url === null
  text('webhookCurrentLabel', translate(lang, 'consent.webhook.currentLabel'))
  safe('webhookCurrent', current ?? '')
  if (view.url === null) {
    safe('webhookUrl', current ?? '')
    writer.message(elements.webhookSentence, lang, 'consent.webhook.removeSentence', { room })
    elements.webhookWarning.hidden = true
    return writer.message(elements.webhookHeading, lang, 'consent.title.webhookRemove', { room })
  }
  const url = view.url
  safe('webhookUrl', url)
  writer.message(elements.webhookSentence, lang, 'consent.webhook.setSentence', {
    room,
    url: (parent) => writer.append(parent, url),
    seconds: (parent) => {
      const seconds = String(view.timeoutSeconds)
      parent.append(parent.ownerDocument.createTextNode(seconds))
      return seconds
    },
  })
  text('webhookWarningText', translate(lang, 'consent.webhook.setWarning'))
  elements.webhookWarning.hidden = false
  return writer.message(elements.webhookHeading, lang, 'consent.title.webhookSet', { room })
}
