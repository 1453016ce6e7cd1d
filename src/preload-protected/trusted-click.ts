/** The parts of a click event the decision depends on. A `MouseEvent` has
 *  all of them. */
export interface ClickFacts {
  readonly isTrusted: boolean
  readonly button: number
  readonly detail: number
  readonly target: EventTarget | null
}

/** Focus the person moved to a button themselves (never the preload's own
 *  default focus): which button, whether a key press in this window moved
 *  it there, and when. */
export interface PersonFocus {
  readonly target: EventTarget
  readonly byKey: boolean
  readonly atMs: number
}

/** What the preload knows when the click arrives. `buttonsEnabled` is the
 *  preload's own state (its enable delay and, for the buttons that widen,
 *  the action scrolled to its end), never the DOM `disabled` attribute,
 *  which the page's main world could change. */
export interface ClickContext {
  readonly expectedButton: EventTarget
  readonly buttonsEnabled: boolean
  readonly documentHasFocus: boolean
  /** Deny, Cancel, Decline: answers that widen nothing, which the keyboard
   *  may give from the preload's default focus. */
  readonly safeAnswer: boolean
  readonly nowMs: number
  readonly enableDelayMs: number
  /** Undefined when focus is where the preload put it, or elsewhere. */
  readonly personFocus: PersonFocus | undefined
  /** The trusted key being pressed or just released as the click arrives:
   *  `space` alone, `other` for any other key (Enter, or Space with a
   *  modifier), undefined when no key is involved. */
  readonly activatingKey: 'space' | 'other' | undefined
}

/**
 * Whether a click on a consent button counts as the person's decision.
 *
 * Always, each alone refusing: `isTrusted` (the browser made the event from
 * real input, so `el.click()` or `dispatchEvent` from any script cannot
 * decide); the primary button; the target is exactly the button the
 * listener belongs to; the buttons enabled by the preload's own delay; the
 * document has focus, so a click landing while another window is in front
 * does not count.
 *
 * Then by what made the click:
 * - a pointer (`detail >= 1`): counts;
 * - the keyboard or assistive technology (`detail === 0`): never Enter or
 *   any key but Space alone. On a button that widens nothing (Deny,
 *   Cancel, Decline) that is enough, wherever focus came from. Otherwise
 *   the person must have moved focus to this very button themselves at
 *   least the enable delay ago, and for Space with a key press in this
 *   window: a deliberate keyboard activation. A click with no key behind
 *   it is assistive technology activating the button the person focused.
 */
export function isTrustedConsentClick(click: ClickFacts, context: ClickContext): boolean {
  const base =
    click.isTrusted === true &&
    click.button === 0 &&
    click.target === context.expectedButton &&
    context.buttonsEnabled &&
    context.documentHasFocus
  if (!base) return false
  if (click.detail >= 1) return true
  if (click.detail !== 0 || context.activatingKey === 'other') return false
  if (context.safeAnswer) return true
  const focus = context.personFocus
  if (focus === undefined || focus.target !== context.expectedButton) return false
  if (context.nowMs - focus.atMs < context.enableDelayMs) return false
  return context.activatingKey === undefined || focus.byKey
}
