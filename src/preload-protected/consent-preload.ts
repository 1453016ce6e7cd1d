import { z } from 'zod'
import { ConsentViewSchema, type ConsentAnswer, type ConsentView } from '../common/consent-view.ts'
import { translate, type MessageKey } from '../common/i18n/index.ts'
import type { FormCollector, FormValues } from './consent-form-render.ts'
import { ActionEndWatch } from './action-end-watch.ts'
import { watchFooterRegions } from './footer-scroll-regions.ts'
import { CONSENT_CLASSES } from './consent-page-ids.ts'
import {
  answersFor,
  findConsentPage,
  renderConsentView,
  type ConsentPage,
} from './consent-render.ts'
import { PersonFocusLog } from './person-focus.ts'
import type { ProtectedTransport } from './transport.ts'
import { isTrustedConsentClick } from './trusted-click.ts'

export type { ProtectedTransport } from './transport.ts'

// The page's CSP forbids eval. Without this, zod probes `new Function` once,
// and the refused probe is reported as a securitypolicyviolation on the page.
z.config({ jitless: true })

export interface ConsentPreloadOptions {
  readonly transport: ProtectedTransport
  readonly document: Document
  readonly window: Window
  /** A monotonic clock in milliseconds (`performance.now` in the entries). */
  readonly now: () => number
  readonly setTimeout: (callback: () => void, ms: number) => number
  readonly clearTimeout: (handle: number) => void
  /** Calls back once the view just rendered has been drawn (the Electron
   *  entry waits for a frame); a timer of 0 ms otherwise. */
  readonly afterDraw?: (callback: () => void) => void
}

/** Main's refusal of the decision this page sent for `promptId`. */
const RefusalSchema = z.object({ promptId: z.string().min(1).max(128) })

/** Stops a running preload: removes its listeners and timer. The entries
 *  never call it (the window lives for one prompt); tests do. */
export interface ConsentPreloadHandle {
  stop(): void
}

/** Answers that widen nothing: the keyboard may give them with Space on
 *  the default focus. */
const SAFE_ANSWERS: ReadonlySet<ConsentAnswer> = new Set(['deny', 'cancel', 'decline'])

/** An approval's answers that stay disabled until the action has been
 *  scrolled to its end. */
const ALLOW_ANSWERS: ReadonlySet<ConsentAnswer> = new Set([
  'allow-once',
  'allow-always',
  'allow-always-server',
])
const CONFIRM_ANSWERS: ReadonlySet<ConsentAnswer> = new Set(['confirm'])
const NO_ANSWERS: ReadonlySet<ConsentAnswer> = new Set()

/**
 * Which answers of `view` wait until the end of what it says has been in
 * view, the element whose bottom marks that end, and the line saying so.
 * An approval's Allow waits for the action. A mode change's and an
 * approver webhook's Confirm wait for the whole view: what confirming does
 * (full access given up to, a replaced folder accepted, a room sealed
 * again, every question handed to a URL) and the folder or the URL it is
 * about come below a title as long as the room's name, and at the
 * window's own size already below the buttons' edge. A form has none: its
 * fields are filled in where they stand.
 */
function scrollGate(
  view: ConsentView,
  page: ConsentPage,
): { answers: ReadonlySet<ConsentAnswer>; end: HTMLElement; cue: MessageKey } | undefined {
  if (view.subject === 'approval') {
    return { answers: ALLOW_ANSWERS, end: page.elements.actionEnd, cue: 'consent.notice.scroll' }
  }
  const cue = 'consent.notice.scrollConfirm'
  if (view.subject === 'mode-change') {
    return { answers: CONFIRM_ANSWERS, end: page.elements.modeChangeSection, cue }
  }
  if (view.subject === 'approver-webhook') {
    return { answers: CONFIRM_ANSWERS, end: page.elements.webhookSection, cue }
  }
  return undefined
}

/**
 * Runs the protected consent page: renders the first valid view main sends,
 * enables its buttons only after `enableDelayMs` of the window being shown
 * and focused (any pointer or key press before then starts the delay
 * again), keeps Allow (and a mode change's or an approver webhook's
 * Confirm) disabled until the view has been scrolled to its end
 * (`scrollGate`), and sends exactly one decision: a trusted pointer click, a
 * deliberate keyboard or assistive-technology activation (the rules of
 * `isTrustedConsentClick`), or Escape (cancel).
 *
 * Fails closed: in a subframe, on a page missing any expected element, or
 * before a valid view has arrived, nothing can be decided.
 */
export function startConsentPreload(options: ConsentPreloadOptions): ConsentPreloadHandle {
  const { transport, document, window, now } = options
  const stopped = new AbortController()
  const { signal } = stopped
  const inert: ConsentPreloadHandle = { stop: () => stopped.abort() }
  if (window.top !== window) return inert
  const page = findConsentPage(document)
  if (!page) return inert

  let view: ConsentView | undefined
  let form: FormCollector | undefined
  let decided = false
  let enabled = false
  let enableAt = Number.POSITIVE_INFINITY
  let timer: number | undefined
  /** The answers waiting for the view to be scrolled to its end
   *  (`scrollGate`), and whether it has been. */
  let gated = NO_ANSWERS
  let actionSeen = true
  const focusLog = new PersonFocusLog(now, (callback) => {
    options.setTimeout(callback, 0)
  })

  const windowIsActive = () => document.visibilityState !== 'hidden' && document.hasFocus()
  const offeredNow = (answer: ConsentAnswer) => enabled && (actionSeen || !gated.has(answer))

  const disable = () => {
    enabled = false
    enableAt = Number.POSITIVE_INFINITY
    if (timer !== undefined) options.clearTimeout(timer)
    timer = undefined
    for (const button of Object.values(page.buttons)) button.disabled = true
  }

  const showButtons = () => {
    if (!view) return
    for (const answer of answersFor(view)) page.buttons[answer].disabled = !offeredNow(answer)
  }

  const enableIfDue = () => {
    timer = undefined
    if (!view || decided || !windowIsActive()) return
    const remaining = enableAt - now()
    if (remaining > 0) {
      // A timer that fires early must not shorten the delay.
      timer = options.setTimeout(enableIfDue, remaining)
      return
    }
    enabled = true
    showButtons()
    // The safe answer (Deny / Cancel) gets focus every time the buttons come
    // back, so a keystroke meant for another window cannot land on Allow.
    const safeDefault = answersFor(view)[0]
    if (safeDefault) focusLog.focusAsPreload(page.buttons[safeDefault])
  }

  /** (Re)starts the delay: the buttons stay disabled until the window has
   *  been shown and focused for the whole of it. */
  const armDelay = () => {
    disable()
    if (!view || decided || !windowIsActive()) return
    enableAt = now() + view.enableDelayMs
    timer = options.setTimeout(enableIfDue, view.enableDelayMs)
  }

  const decide = (answer: ConsentAnswer) => {
    if (!view || decided || signal.aborted) return
    let values: FormValues | undefined
    if (answer === 'submit') {
      // A form sent half-filled would only come back refused; say what is
      // missing and keep the window open instead.
      const problem = form ? form.problem() : 'form'
      if (problem !== null) {
        page.elements.formError.textContent = translate(view.lang, 'consent.form.invalid', {
          problem,
        })
        return
      }
      values = form?.values()
    }
    decided = true
    disable()
    transport.sendDecision({ promptId: view.promptId, answer, ...(values ? { values } : {}) })
  }

  for (const [answer, button] of Object.entries(page.buttons) as Array<
    [ConsentAnswer, HTMLButtonElement]
  >) {
    button.addEventListener(
      'click',
      (event) => {
        if (!view || decided || !answersFor(view).includes(answer)) return
        const counts = isTrustedConsentClick(event, {
          expectedButton: button,
          buttonsEnabled: offeredNow(answer) && now() >= enableAt,
          documentHasFocus: document.hasFocus(),
          safeAnswer: SAFE_ANSWERS.has(answer),
          nowMs: now(),
          enableDelayMs: view.enableDelayMs,
          personFocus: focusLog.personFocus,
          activatingKey: focusLog.activatingKey,
        })
        if (counts) decide(answer)
      },
      { capture: true, signal },
    )
  }

  const isConsentButton = (target: EventTarget | null) =>
    Object.values(page.buttons).some((button) => button === target)

  /** A pointer or key press while the buttons are still disabled starts the
   *  delay again: clicks or keys aimed at where Allow will appear land on
   *  a disabled button, however fast they come. */
  const pressed = (event: Event) => {
    if (event.isTrusted && view && !decided && !enabled) armDelay()
  }

  const onKey = (event: KeyboardEvent) => {
    if (event.type === 'keydown') focusLog.keyDown(event)
    if (event.type === 'keyup') focusLog.keyUp(event)
    if (event.key === 'Enter' && isConsentButton(event.target)) {
      // Enter never decides (the click rule refuses it too); stopping it
      // here keeps it from even producing a click.
      event.preventDefault()
      return
    }
    if (event.type !== 'keydown') return
    if (event.key === 'Escape' && event.isTrusted) {
      event.preventDefault()
      decide('cancel')
      return
    }
    pressed(event)
  }
  for (const type of ['keydown', 'keypress', 'keyup'] as const) {
    document.addEventListener(type, onKey, { capture: true, signal })
  }
  for (const type of ['pointerdown', 'mousedown'] as const) {
    document.addEventListener(
      type,
      (event) => {
        focusLog.pointerDown()
        pressed(event)
      },
      { capture: true, signal },
    )
  }
  document.addEventListener(
    'focusin',
    (event) => focusLog.focusIn(event.target, isConsentButton(event.target)),
    { capture: true, signal },
  )

  // Only the window's own focus and blur: moving focus between elements
  // must not restart the delay.
  window.addEventListener(
    'focus',
    (event) => {
      if (event.target === event.currentTarget && !enabled) armDelay()
    },
    { signal },
  )
  window.addEventListener(
    'blur',
    (event) => {
      if (event.target !== event.currentTarget) return
      disable()
      focusLog.forget()
    },
    { signal },
  )
  document.addEventListener(
    'visibilitychange',
    () => {
      if (document.visibilityState === 'hidden') disable()
      else if (!enabled) armDelay()
    },
    { signal },
  )

  // Main refused the decision just sent (it came too early for main's own
  // delay, the window was not in front, or main saw no press): the buttons
  // come back after a fresh delay, with a line saying why, rather than
  // leave a window with nothing left to press.
  let refusedNotice: HTMLElement | undefined
  transport.onRefused?.((message) => {
    if (signal.aborted || !view || !decided) return
    const parsed = RefusalSchema.safeParse(message)
    if (!parsed.success || parsed.data.promptId !== view.promptId) return
    decided = false
    if (!refusedNotice) {
      refusedNotice = document.createElement('p')
      refusedNotice.className = `${CONSENT_CLASSES.notice} ${CONSENT_CLASSES.notice}-refused`
      refusedNotice.textContent = translate(view.lang, 'consent.notice.refused')
      page.elements.notices.append(refusedNotice)
    }
    armDelay()
  })

  transport.onShow((candidate) => {
    if (signal.aborted) return
    // One window, one prompt: swapping the view under the person's cursor
    // could make them approve something they have not read.
    if (view) return
    const parsed = ConsentViewSchema.safeParse(candidate)
    if (!parsed.success) return
    view = parsed.data
    form = renderConsentView(document, page, view).form
    watchFooterRegions(window, [page.elements.notices, page.elements.consequences], signal)
    const gate = scrollGate(view, page)
    if (gate) {
      const cue = page.elements.scrollCue
      cue.textContent = translate(view.lang, gate.cue)
      const watch = new ActionEndWatch(
        window,
        page.elements.content,
        gate.end,
        () => {
          actionSeen = true
          cue.hidden = true
          if (enabled) showButtons()
        },
        signal,
      )
      gated = gate.answers
      actionSeen = false
      actionSeen = watch.check()
      cue.hidden = actionSeen
    }
    armDelay()
    const promptId = view.promptId
    const afterDraw = options.afterDraw ?? ((callback) => void options.setTimeout(callback, 0))
    afterDraw(() => {
      if (!signal.aborted) transport.viewDrawn?.(promptId)
    })
  })

  return {
    stop: () => {
      disable()
      stopped.abort()
    },
  }
}
