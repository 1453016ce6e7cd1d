import {
  CONSENT_BUTTON_IDS,
  type ConsentAnswer,
  type ConsentView,
  type Language,
} from '../common/consent-view.ts'
import { translate, type MessageKey } from '../common/i18n/index.ts'
import { renderFormFields, type FormCollector } from './consent-form-render.ts'
import { CONSENT_PAGE_IDS, type ConsentPageElement } from './consent-page-ids.ts'

/** The consent page's elements, looked up once. */
export interface ConsentPage {
  readonly elements: Readonly<Record<ConsentPageElement, HTMLElement>>
  readonly buttons: Readonly<Record<ConsentAnswer, HTMLButtonElement>>
}

/**
 * Finds every element the preload needs, or returns undefined when any is
 * missing or a button is not a `<button>`: a page that is not the one we
 * built shows nothing and can decide nothing.
 */
export function findConsentPage(document: Document): ConsentPage | undefined {
  const elements: Partial<Record<ConsentPageElement, HTMLElement>> = {}
  for (const [name, id] of Object.entries(CONSENT_PAGE_IDS)) {
    const element = document.getElementById(id)
    if (!element) return undefined
    elements[name as ConsentPageElement] = element
  }
  const buttons: Partial<Record<ConsentAnswer, HTMLButtonElement>> = {}
  for (const [answer, id] of Object.entries(CONSENT_BUTTON_IDS)) {
    const button = document.getElementById(id)
    if (!button || button.tagName !== 'BUTTON') return undefined
    buttons[answer as ConsentAnswer] = button as HTMLButtonElement
  }
  return {
    elements: elements as Record<ConsentPageElement, HTMLElement>,
    buttons: buttons as Record<ConsentAnswer, HTMLButtonElement>,
  }
}

/** The answers a view offers, in page order; the first is the safe default
 *  that gets focus. Escape's `cancel` is always possible besides these. */
export function answersFor(view: ConsentView): readonly ConsentAnswer[] {
  if (view.subject === 'approval') {
    // Hidden, and a click on it ignored, when the runtime would refuse it:
    // a button that can only fail invites the person to think it worked.
    return view.alwaysAllowAvailable === false
      ? ['deny', 'allow-once']
      : ['deny', 'allow-once', 'allow-always']
  }
  if (view.subject === 'form') return ['cancel', 'decline', 'submit']
  return ['cancel', 'confirm']
}

const BUTTON_LABELS: Readonly<Record<ConsentAnswer, MessageKey>> = {
  'allow-once': 'consent.button.allowOnce',
  'allow-always': 'consent.button.allowAlways',
  deny: 'consent.button.deny',
  confirm: 'consent.button.confirm',
  cancel: 'consent.button.cancel',
  submit: 'consent.button.submit',
  decline: 'consent.button.decline',
}

const APPROVAL_LABELS: ReadonlyArray<readonly [ConsentPageElement, MessageKey]> = [
  ['toolLabel', 'consent.label.tool'],
  ['workingDirectoryLabel', 'consent.label.workingDirectory'],
  ['sandboxModeLabel', 'consent.label.sandboxMode'],
  ['roomLabel', 'consent.label.room'],
  ['digestLabel', 'consent.label.actionDigest'],
  ['argumentsLabel', 'consent.label.arguments'],
]

const MODE_CHANGE_LABELS: ReadonlyArray<readonly [ConsentPageElement, MessageKey]> = [
  ['modeHeading', 'consent.kind.permissions'],
  ['modeFromLabel', 'consent.modeChange.fromLabel'],
  ['modeToLabel', 'consent.modeChange.toLabel'],
  ['modeAllowsLabel', 'consent.modeChange.allowsLabel'],
  ['modeRoomLabel', 'consent.label.room'],
]

/**
 * Renders a parsed view. Every string goes through `textContent`: action
 * text is data from the agent and must never become markup. Leaves every
 * button disabled; enabling is the preload's job.
 */
export function renderConsentView(
  document: Document,
  page: ConsentPage,
  view: ConsentView,
): FormCollector | undefined {
  const root = document.documentElement
  root.lang = view.lang
  root.dataset.theme = view.theme
  document.title = translate(view.lang, 'consent.pageTitle')

  const { elements } = page
  let collector: FormCollector | undefined
  const text = (name: ConsentPageElement, value: string) => {
    elements[name].textContent = value
  }
  const labels = (list: typeof APPROVAL_LABELS, lang: Language) => {
    for (const [name, key] of list) text(name, translate(lang, key))
  }

  if (view.subject === 'approval') {
    labels(APPROVAL_LABELS, view.lang)
    text('kind', translate(view.lang, `consent.kind.${view.kind}`))
    text('summary', view.summary)
    const reason = view.escalationReason
    text('escalation', reason ? translate(view.lang, 'consent.escalated', { reason }) : '')
    elements.escalation.hidden = !reason
    text('tool', view.toolName)
    text('workingDirectory', view.workingDirectory)
    text('sandboxMode', view.sandboxMode)
    text('room', view.roomLabel)
    text('digest', `${view.digestPrefix}…`)
    text('arguments', view.argumentsText)
    text('mcpServerLabel', translate(view.lang, 'consent.label.mcpServer'))
    text('mcpDescriptionLabel', translate(view.lang, 'consent.label.toolDescription'))
    text('mcpPreviewLabel', translate(view.lang, 'consent.label.preview'))
    text('mcpServer', view.mcp?.serverName ?? '')
    text('mcpDescription', view.mcp?.toolDescription ?? '')
    text('mcpPreview', view.mcp?.previewText ?? '')
    elements.mcpSection.hidden = view.mcp === undefined
    elements.mcpPreviewSection.hidden = (view.mcp?.previewText ?? null) === null
  } else if (view.subject === 'form') {
    text('formHeading', translate(view.lang, 'consent.form.heading'))
    text('formIntro', translate(view.lang, 'consent.form.intro'))
    text('formMessage', view.message)
    text('formNote', translate(view.lang, 'consent.form.nothingRemembered'))
    text('formRoomLabel', translate(view.lang, 'consent.label.room'))
    text('formRoom', view.roomLabel)
    text('formError', '')
    collector = renderFormFields(
      document,
      elements.formFields,
      view.fields,
      translate(view.lang, 'consent.form.required'),
    )
  } else {
    labels(MODE_CHANGE_LABELS, view.lang)
    const from = translate(view.lang, `mode.${view.fromMode}.name`)
    const to = translate(view.lang, `mode.${view.toMode}.name`)
    text(
      'modeSentence',
      translate(view.lang, 'consent.modeChange.sentence', { room: view.roomLabel, from, to }),
    )
    text('modeFrom', from)
    text('modeTo', to)
    text('modeAllows', translate(view.lang, `mode.${view.toMode}.description`))
    text('modeRoom', view.roomLabel)
  }
  elements.approvalSection.hidden = view.subject !== 'approval'
  elements.modeChangeSection.hidden = view.subject !== 'mode-change'
  elements.formSection.hidden = view.subject !== 'form'

  text('keyboardHint', translate(view.lang, 'consent.keyboardHint'))
  const offered = answersFor(view)
  for (const [answer, button] of Object.entries(page.buttons) as Array<
    [ConsentAnswer, HTMLButtonElement]
  >) {
    button.disabled = true
    button.hidden = !offered.includes(answer)
    button.textContent = translate(view.lang, BUTTON_LABELS[answer])
  }
  elements.actions.hidden = false
  return collector
}
