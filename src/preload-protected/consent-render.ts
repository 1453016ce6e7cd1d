import {
  CONSENT_BUTTON_IDS,
  type ApprovalView,
  type ConsentAnswer,
  type ConsentView,
  type Language,
} from '../common/consent-view.ts'
import type { DisplaySafeOptions, DisplayWarning } from '../common/display-safe-text.ts'
import { translate, type MessageKey } from '../common/i18n/index.ts'
import { renderApprovalAction } from './consent-action-render.ts'
import {
  CONSEQUENCE_IDS,
  labelServerButton,
  renderConsequences,
  renderServerTools,
} from './consent-consequences-render.ts'
import { renderFormFields, type FormCollector } from './consent-form-render.ts'
import { CONSENT_CLASSES, CONSENT_PAGE_IDS, type ConsentPageElement } from './consent-page-ids.ts'
import { SafeTextWriter } from './safe-text-writer.ts'
import { renderApprovalTitle } from './consent-title-render.ts'
import { renderWebhookView } from './consent-webhook-render.ts'

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
    return [
      'deny',
      'allow-once',
      ...(view.alwaysAllow.offered ? (['allow-always'] as const) : []),
      ...(view.serverAlwaysAllow?.offered ? (['allow-always-server'] as const) : []),
    ]
  }
  if (view.subject === 'form') return ['cancel', 'decline', 'submit']
  // Shown once, decided nothing: closing it is the only answer.
  if (view.subject === 'approver-webhook-secret') return ['cancel']
  return ['cancel', 'confirm']
}

const BUTTON_LABELS: Readonly<Record<ConsentAnswer, MessageKey>> = {
  'allow-once': 'consent.button.allowOnce',
  'allow-always': 'consent.button.allowAlways',
  'allow-always-server': 'consent.button.allowAlwaysServer',
  deny: 'consent.button.deny',
  confirm: 'consent.button.confirm',
  cancel: 'consent.button.cancel',
  submit: 'consent.button.submit',
  decline: 'consent.button.decline',
}

const MODE_CHANGE_LABELS: ReadonlyArray<readonly [ConsentPageElement, MessageKey]> = [
  ['modeKind', 'consent.kind.permissions'],
  ['modeFromLabel', 'consent.modeChange.fromLabel'],
  ['modeToLabel', 'consent.modeChange.toLabel'],
  ['modeAllowsLabel', 'consent.modeChange.allowsLabel'],
  ['modeGivesUpLabel', 'consent.modeChange.givesUpLabel'],
  ['modeGivesUpText', 'consent.modeChange.givesUp'],
  ['modeVouchesLabel', 'consent.modeChange.vouchesLabel'],
  ['modeReplacedWorkspace', 'consent.modeChange.acceptsReplacedWorkspace'],
  ['modeResealsRoom', 'consent.modeChange.resealsRoom'],
  ['modeRoomLabel', 'consent.label.room'],
  ['modeWorkspaceLabel', 'consent.label.workspace'],
]

const APPROVAL_LABELS: ReadonlyArray<readonly [ConsentPageElement, MessageKey]> = [
  ['actionHeading', 'consent.action.heading'],
  ['actionEnd', 'consent.action.end'],
  ['detailsHeading', 'consent.label.details'],
  ['roomLabel', 'consent.label.room'],
  ['sandboxModeLabel', 'consent.label.sandboxMode'],
  ['toolLabel', 'consent.label.tool'],
  ['workingDirectoryLabel', 'consent.label.workingDirectory'],
  ['digestLabel', 'consent.label.actionDigest'],
]

const NOTICE_ORDER: readonly DisplayWarning[] = ['direction', 'hidden', 'confusable']

/** What the preload needs of a rendered view besides the page. */
export interface RenderedView {
  readonly form: FormCollector | undefined
  /** Whether any hidden, direction-changing or confusable text was shown. */
  readonly warnings: ReadonlySet<DisplayWarning>
}

/**
 * Renders a parsed view. Every string goes through the safe-text writer
 * (`displaySafe`, then text nodes and `<span>` escapes): action text is data
 * from the agent and must neither become markup nor hide part of itself.
 * Leaves every button disabled; enabling is the preload's job.
 */
export function renderConsentView(
  document: Document,
  page: ConsentPage,
  view: ConsentView,
): RenderedView {
  const root = document.documentElement
  root.lang = view.lang
  root.dataset.theme = view.theme

  const { elements } = page
  const writer = new SafeTextWriter(document, translate(view.lang, 'consent.notice.escapeTitle'))
  let form: FormCollector | undefined
  const text = (name: ConsentPageElement, value: string) => {
    elements[name].textContent = value
  }
  const safe = (name: ConsentPageElement, value: string, options?: DisplaySafeOptions) => {
    elements[name].replaceChildren()
    writer.append(elements[name], value, options)
  }
  const labels = (list: typeof APPROVAL_LABELS) => {
    for (const [name, key] of list) text(name, translate(view.lang, key))
  }

  let title: string
  let titleId: ConsentPageElement
  if (view.subject === 'approval') {
    labels(APPROVAL_LABELS)
    text('kind', translate(view.lang, `consent.kind.${view.kind}`))
    title = renderApprovalTitle(document, elements.title, view, writer)
    titleId = 'title'
    const reason = view.escalationReason
    elements.escalation.replaceChildren()
    if (reason) {
      writer.message(elements.escalation, view.lang, 'consent.escalated', {
        reason: (parent) => writer.append(parent, reason, { multiline: true }),
      })
    }
    elements.escalation.hidden = !reason
    renderApprovalAction(document, elements.actionBody, view, writer)
    renderContainment(elements.containment, view, writer)
    renderServerTools(document, elements.actionBody, view, writer)
    safe('room', view.roomLabel)
    text('sandboxMode', translate(view.lang, `consent.sandbox.${view.sandboxMode}`))
    safe('tool', view.toolName, { name: true })
    safe('workingDirectory', view.workingDirectory)
    text('digest', `${view.digestPrefix}…`)
    renderConsequences(document, elements.consequences, view, writer)
  } else if (view.subject === 'form') {
    title = translate(view.lang, 'consent.form.heading')
    titleId = 'formHeading'
    text('formHeading', title)
    text('formIntro', translate(view.lang, 'consent.form.intro'))
    safe('formMessage', view.message, { multiline: true })
    text('formNote', translate(view.lang, 'consent.form.nothingRemembered'))
    text('formRoomLabel', translate(view.lang, 'consent.label.room'))
    safe('formRoom', view.roomLabel)
    text('formError', '')
    elements.consequences.replaceChildren()
    form = renderFormFields(
      document,
      elements.formFields,
      view.fields,
      translate(view.lang, 'consent.form.required'),
      writer,
    )
  } else if (view.subject === 'approver-webhook' || view.subject === 'approver-webhook-secret') {
    titleId = 'webhookHeading'
    title = renderWebhookView(elements, view, writer)
    elements.consequences.replaceChildren()
  } else {
    labels(MODE_CHANGE_LABELS)
    const from = translate(view.lang, `mode.${view.fromMode}.name`)
    const to = translate(view.lang, `mode.${view.toMode}.name`)
    const fullAccess = view.toMode === 'full-access'
    titleId = 'modeHeading'
    title = writer.message(
      elements.modeHeading,
      view.lang,
      fullAccess ? 'consent.title.modeFullAccess' : 'consent.title.modeChange',
      {
        room: (parent) => writer.append(parent, view.roomLabel),
        mode: (parent) => {
          parent.append(document.createTextNode(to))
          return to
        },
      },
    )
    writer.message(elements.modeSentence, view.lang, 'consent.modeChange.sentence', {
      room: (parent) => writer.append(parent, view.roomLabel),
      from: (parent) => writer.append(parent, from),
      to: (parent) => writer.append(parent, to),
    })
    text('modeFrom', from)
    text('modeTo', to)
    text('modeAllows', translate(view.lang, `mode.${view.toMode}.description`))
    elements.modeGivesUp.hidden = !fullAccess
    // Said whatever the modes: the runtime accepts the folder, or gives the
    // room back its grants, on a narrowing too.
    const accepts = view.acceptsReplacedWorkspace === true
    const reseals = view.resealsRoom === true
    elements.modeReplacedWorkspace.hidden = !accepts
    elements.modeResealsRoom.hidden = !reseals
    elements.modeVouches.hidden = !accepts && !reseals
    page.buttons.confirm.classList.toggle('consent-button-danger', fullAccess)
    elements.modeChangeSection.classList.toggle('consent-full-access', fullAccess)
    safe('modeRoom', view.roomLabel)
    elements.modeWorkspaceFact.hidden = view.workspace === undefined
    safe('modeWorkspace', view.workspace ?? '')
    elements.consequences.replaceChildren()
  }
  elements.approvalSection.hidden = view.subject !== 'approval'
  elements.modeChangeSection.hidden = view.subject !== 'mode-change'
  elements.formSection.hidden = view.subject !== 'form'
  elements.webhookSection.hidden =
    view.subject !== 'approver-webhook' && view.subject !== 'approver-webhook-secret'
  elements.content.setAttribute('aria-labelledby', CONSENT_PAGE_IDS[titleId])
  // The window's own title asks the question too, for the task switcher.
  document.title = title

  renderNotices(document, elements.notices, view.lang, writer.warnings)
  text('keyboardHint', translate(view.lang, 'consent.keyboardHint'))
  const offered = answersFor(view)
  for (const [answer, button] of Object.entries(page.buttons) as Array<
    [ConsentAnswer, HTMLButtonElement]
  >) {
    button.disabled = true
    button.hidden = !offered.includes(answer)
    button.textContent = translate(view.lang, BUTTON_LABELS[answer])
  }
  if (view.subject === 'mode-change' && view.toMode === 'full-access') {
    page.buttons.confirm.textContent = translate(view.lang, 'consent.button.confirmFullAccess')
  }
  const webhookSet = view.subject === 'approver-webhook' && view.url !== null
  if (view.subject === 'approver-webhook') {
    page.buttons.confirm.textContent = translate(
      view.lang,
      webhookSet ? 'consent.button.confirmWebhook' : 'consent.button.removeWebhook',
    )
  }
  if (view.subject === 'approver-webhook-secret') {
    page.buttons.cancel.textContent = translate(view.lang, 'consent.button.secretCopied')
  }
  if (view.subject === 'approval') {
    page.buttons.deny.setAttribute('aria-describedby', CONSEQUENCE_IDS.deny)
    page.buttons['allow-always'].setAttribute('aria-describedby', CONSEQUENCE_IDS.alwaysAllow)
    labelServerButton(page.buttons['allow-always-server'], view)
  }
  elements.actions.hidden = false
  return { form, warnings: writer.warnings }
}

/**
 * The containment line of a command the runtime runs, in words: where it
 * can change files, that it has no network, that the person's keys are
 * hidden; or, in the danger style, that it runs with all their rights.
 * Drawn only from the view's `containment`, which comes from the canonical
 * action; hidden for every other action.
 */
function renderContainment(element: HTMLElement, view: ApprovalView, writer: SafeTextWriter): void {
  const containment = view.containment
  element.replaceChildren()
  element.hidden = containment === undefined
  element.classList.toggle(
    CONSENT_CLASSES.uncontained,
    containment !== undefined && !containment.contained,
  )
  if (containment === undefined) return
  if (!containment.contained) {
    const key =
      containment.why === 'full-access'
        ? 'consent.containment.fullAccess'
        : 'consent.containment.uncontainedSetting'
    writer.message(element, view.lang, key, {})
    return
  }
  if (containment.writableRoots.length === 0) {
    writer.message(element, view.lang, 'consent.containment.containedReadOnly', {})
    return
  }
  writer.message(element, view.lang, 'consent.containment.contained', {
    roots: (parent) => writer.append(parent, containment.writableRoots.join(', ')),
  })
}

/** Above the buttons: one warning per kind of deceptive text shown. */
function renderNotices(
  document: Document,
  container: HTMLElement,
  lang: Language,
  warnings: ReadonlySet<DisplayWarning>,
): void {
  container.replaceChildren()
  for (const warning of NOTICE_ORDER) {
    if (!warnings.has(warning)) continue
    const notice = document.createElement('p')
    notice.className = `${CONSENT_CLASSES.notice} ${CONSENT_CLASSES.notice}-${warning}`
    notice.textContent = translate(lang, `consent.notice.${warning}`)
    container.append(notice)
  }
}
