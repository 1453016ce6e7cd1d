/**
 * The consent page in happy-dom with the protected preload started on it,
 * shared by the preload's tests. Tests read `clock`, `inbox` and `sent`
 * through live bindings, which `useConsentPage()` renews before each test.
 */
/// <reference types="node" />
import { readFileSync } from 'node:fs'
import { URL as NodeURL } from 'node:url'
import { afterEach, beforeEach, vi } from 'vitest'
import {
  CONSENT_BUTTON_IDS,
  type ConsentAnswer,
  type ConsentDecisionMessage,
  type ConsentView,
} from '../../common/consent-view.ts'
import { startConsentPreload } from '../consent-preload.ts'
import { ViewInbox } from '../transport.ts'

// The happy-dom window stands in for the protected window; Chromium runs the
// built page for real in tests/consent-page.test.ts. happy-dom replaces the
// global URL, so the file's URL is built with Node's.
const pageHtml = readFileSync(
  new NodeURL('../../renderer/consent/index.html', import.meta.url),
  'utf8',
)
export const pageBody = /<body>([\s\S]*)<\/body>/.exec(pageHtml)?.[1] ?? ''

export const DELAY_MS = 600

export { approvalView } from './consent-views.ts'

export const modeChangeView = (): ConsentView => ({
  subject: 'mode-change',
  promptId: 'prompt-2',
  roomLabel: 'Design review',
  fromMode: 'ask-for-approval',
  toMode: 'full-access',
  lang: 'en',
  theme: 'dark',
  enableDelayMs: DELAY_MS,
})

/** A clock and timers the test moves by hand. */
function fakeClock() {
  let time = 1_000
  let nextId = 1
  const timers = new Map<number, { at: number; callback: () => void }>()
  return {
    now: () => time,
    setTimeout: (callback: () => void, ms: number) => {
      timers.set(nextId, { at: time + ms, callback })
      return nextId++
    },
    clearTimeout: (handle: number) => {
      timers.delete(handle)
    },
    advance(ms: number) {
      const end = time + ms
      for (;;) {
        const due = [...timers].filter(([, t]) => t.at <= end).sort((a, b) => a[1].at - b[1].at)[0]
        if (!due) break
        timers.delete(due[0])
        time = Math.max(time, due[1].at)
        due[1].callback()
      }
      time = end
    },
  }
}

export let clock: ReturnType<typeof fakeClock>
export let inbox: ViewInbox
export let sent: ConsentDecisionMessage[]
/** The prompt ids the preload reported drawn, in order. */
export let drawn: string[]
let refusedListener: ((message: unknown) => void) | undefined
/** Main refuses a decision: what it sends the page. */
export const refuse = (message: unknown) => refusedListener?.(message)
const running: Array<{ stop(): void }> = []

export function start() {
  const decisions = sent
  const reported = drawn
  const preload = startConsentPreload({
    transport: {
      onShow: (listener) => inbox.onShow(listener),
      sendDecision: (message) => decisions.push(message),
      onRefused: (listener) => {
        refusedListener = listener
      },
      viewDrawn: (promptId) => reported.push(promptId),
    },
    document,
    window,
    now: clock.now,
    setTimeout: clock.setTimeout,
    clearTimeout: clock.clearTimeout,
  })
  running.push(preload)
}

export const byId = (id: string) => {
  const element = document.getElementById(id)
  if (!element) throw new Error(`no #${id} on the consent page`)
  return element
}
export const buttonFor = (answer: ConsentAnswer) =>
  byId(CONSENT_BUTTON_IDS[answer]) as HTMLButtonElement

/** A click as the browser would make it from real input; each field can be
 *  spoiled to check one rule. happy-dom has no trusted events, so
 *  `isTrusted` is set on the event instance. */
export function click(
  target: Element,
  init: { isTrusted?: boolean; button?: number; detail?: number } = {},
) {
  const event = new MouseEvent('click', {
    bubbles: true,
    cancelable: true,
    button: init.button ?? 0,
    detail: init.detail ?? 1,
  })
  Object.defineProperty(event, 'isTrusted', { value: init.isTrusted ?? true })
  target.dispatchEvent(event)
}

export function key(
  target: EventTarget,
  name: string,
  isTrusted = true,
  type: 'keydown' | 'keyup' = 'keydown',
) {
  const event = new KeyboardEvent(type, { key: name, bubbles: true, cancelable: true })
  Object.defineProperty(event, 'isTrusted', { value: isTrusted })
  target.dispatchEvent(event)
  return event
}

/** A trusted pointer press, as the browser reports one before a click. */
export function press(target: EventTarget, isTrusted = true) {
  for (const type of ['pointerdown', 'mousedown']) {
    const event = new MouseEvent(type, { bubbles: true, cancelable: true, button: 0 })
    Object.defineProperty(event, 'isTrusted', { value: isTrusted })
    target.dispatchEvent(event)
  }
}

/** Tab to `button` as the browser does it: a trusted key held while focus
 *  moves there. */
export function tabTo(button: HTMLElement) {
  key(document.body, 'Tab')
  button.focus()
  key(document.body, 'Tab', true, 'keyup')
}

/** Space on `button`: press, release, and the click the release makes
 *  (`detail` 0, as for any keyboard activation). */
export function space(button: HTMLElement) {
  key(button, ' ')
  key(button, ' ', true, 'keyup')
  click(button, { detail: 0 })
}

/** Registers the hooks that give each test a fresh page, clock, inbox and
 *  decision list, and stop every preload it started. */
/** Stops every preload started so far and puts a fresh page and inbox in
 *  place, keeping the clock: for a second view within one test. */
export function freshPage(): void {
  for (const preload of running.splice(0)) preload.stop()
  document.body.innerHTML = pageBody
  inbox = new ViewInbox()
}

export function useConsentPage(): void {
  beforeEach(() => {
    document.documentElement.lang = 'en'
    document.documentElement.dataset.theme = 'light'
    document.body.innerHTML = pageBody
    clock = fakeClock()
    inbox = new ViewInbox()
    sent = []
    drawn = []
    refusedListener = undefined
  })

  afterEach(() => {
    for (const preload of running.splice(0)) preload.stop()
    vi.restoreAllMocks()
  })
}
