/**
 * Defense in depth for the protected window, on top of the preload's trusted
 * click check: main accepts a widening decision only if the window received
 * a real mouse press, a touch tap, or a Space key (a keyboard activation)
 * shortly before. The host records input it sees from the browser process
 * (Electron's `webContents.on('input-event')`), which a script in the page
 * cannot produce. Pure: the host supplies the clock.
 *
 * Assistive technology that activates a button through the accessibility
 * tree (a screen reader's "default action") produces no input event at all:
 * it may give every narrowing answer, and widens only through a Space key
 * or a press main sees (docs/security-model.md, "Assistive technology").
 */

/** A click reaches main a few milliseconds after the mouse button is
 *  released; a second is generous for a busy machine and still far too short
 *  to reuse an unrelated click. */
export const MAX_INPUT_TO_DECISION_MS = 1_000

/** Answers that never widen anything: a deny, declining a form, or closing
 *  the prompt. They must work from the keyboard (Escape) and from assistive
 *  technology, and need no recent press. */
const NARROWING_ANSWERS: ReadonlySet<string> = new Set(['deny', 'cancel', 'decline'])

/**
 * True for a mouse press or release of the primary button, as the browser
 * process reports it. An event that names another button does not count; one
 * that names none (the base `InputEvent` shape) counts, because the preload
 * has already required the primary button on its own click.
 */
export function isPrimaryMouseInput(inputEvent: unknown): boolean {
  if (typeof inputEvent !== 'object' || inputEvent === null) return false
  const { type, button } = inputEvent as { type?: unknown; button?: unknown }
  if (type !== 'mouseDown' && type !== 'mouseUp') return false
  return button === undefined || button === 'left'
}

/**
 * True for a press or release of Space as the browser process reports it:
 * how the keyboard activates a focused button. Electron's 'input-event'
 * names a key by its DOM `key` and `code` (shell/common/gin_converters/
 * blink_converter.cc, `Converter<blink::WebKeyboardEvent>::ToV8`); the
 * `keyCode` of its docs' KeyboardInputEvent is what `sendInputEvent` takes,
 * and is never set on an event it reports. A key event that names neither
 * Space (Enter, or one with no key at all) does not count.
 */
export function isSpaceKeyInput(inputEvent: unknown): boolean {
  if (typeof inputEvent !== 'object' || inputEvent === null) return false
  const { type, key, code } = inputEvent as { type?: unknown; key?: unknown; code?: unknown }
  if (type !== 'rawKeyDown' && type !== 'keyDown' && type !== 'keyUp') return false
  return key === ' ' || code === 'Space'
}

/**
 * True for the end of a touch tap as the browser process reports it: the
 * finger lifting (`touchEnd`) or the tap gesture Chromium makes of it
 * (`gestureTap`), the names Electron gives `blink::WebInputEvent::Type`
 * (shell/common/gin_converters/blink_converter.cc). A touch that starts,
 * moves, scrolls or is held does not count.
 */
export function isTouchTapInput(inputEvent: unknown): boolean {
  if (typeof inputEvent !== 'object' || inputEvent === null) return false
  const { type } = inputEvent as { type?: unknown }
  return type === 'touchEnd' || type === 'gestureTap'
}

/** What counts as a press in a window: pointer input always (a primary
 *  mouse press or release, a touch tap); a Space key only where `keys` is
 *  'space' (the protected window, whose buttons the keyboard activates with
 *  Space). The workbench counts no key at all: a person typing there types
 *  spaces, and a review must not take focus from someone typing. */
export type PressKinds = 'pointer' | 'pointer-and-space'

/** The time of the last press (`PressKinds`) in one window. */
export class TrustedInputLog {
  private lastAtMs: number | undefined
  private readonly kinds: PressKinds

  constructor(kinds: PressKinds = 'pointer-and-space') {
    this.kinds = kinds
  }

  /** Records `inputEvent` if it is a press of the kinds this log counts. */
  record(inputEvent: unknown, atMs: number): void {
    const activates =
      isPrimaryMouseInput(inputEvent) ||
      isTouchTapInput(inputEvent) ||
      (this.kinds === 'pointer-and-space' && isSpaceKeyInput(inputEvent))
    if (activates && Number.isFinite(atMs)) this.lastAtMs = atMs
  }

  get lastInputAtMs(): number | undefined {
    return this.lastAtMs
  }
}

/**
 * True when a trusted mouse input happened at most `maxGapMs` before the
 * decision arrived. An input "after" the decision means the clock is not
 * what we think it is: refused, like no input at all.
 */
export function inputPrecedesDecision(
  lastInputAtMs: number | undefined,
  decisionAtMs: number,
  maxGapMs: number = MAX_INPUT_TO_DECISION_MS,
): boolean {
  if (lastInputAtMs === undefined) return false
  if (!Number.isFinite(lastInputAtMs) || !Number.isFinite(decisionAtMs)) return false
  const gap = decisionAtMs - lastInputAtMs
  return gap >= 0 && gap <= maxGapMs
}

/**
 * The host's check for one decision: deny, decline and cancel always pass
 * (they never widen anything and must work without a mouse); every other
 * answer needs a recent primary mouse press, touch tap or Space key. An
 * answer that is not a string is refused.
 */
export function decisionHasRecentInput(input: {
  answer: unknown
  lastInputAtMs: number | undefined
  decisionAtMs: number
  maxGapMs?: number
}): boolean {
  if (typeof input.answer !== 'string') return false
  if (NARROWING_ANSWERS.has(input.answer)) return true
  return inputPrecedesDecision(input.lastInputAtMs, input.decisionAtMs, input.maxGapMs)
}
