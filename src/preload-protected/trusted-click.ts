/** The parts of a click event the decision depends on. A `MouseEvent` has
 *  all of them. */
export interface ClickFacts {
  readonly isTrusted: boolean
  readonly button: number
  readonly detail: number
  readonly target: EventTarget | null
}

/** What the preload knows when the click arrives: which button it listened
 *  on, whether its own enable delay has passed, and whether the document has
 *  focus. `buttonsEnabled` is the preload's own state, never the DOM
 *  `disabled` attribute, which the page's main world could change. */
export interface ClickContext {
  readonly expectedButton: EventTarget
  readonly buttonsEnabled: boolean
  readonly documentHasFocus: boolean
}

/**
 * Whether a click on a consent button counts as the person's decision. Every
 * condition must hold; each one alone refuses:
 * - `isTrusted`: the browser made the event from real input, so `el.click()`
 *   or `dispatchEvent` from any script cannot decide;
 * - primary button only (`button === 0`);
 * - `detail >= 1`: a pointer click. Keyboard activation (Enter, Space)
 *   produces a trusted click with `detail === 0`; Enter must never approve;
 * - the target is exactly the button the listener belongs to;
 * - the buttons have been enabled by the preload's own delay;
 * - the document has focus, so a click landing while another window is in
 *   front does not count.
 */
export function isTrustedConsentClick(click: ClickFacts, context: ClickContext): boolean {
  return (
    click.isTrusted === true &&
    click.button === 0 &&
    click.detail >= 1 &&
    click.target === context.expectedButton &&
    context.buttonsEnabled &&
    context.documentHasFocus
  )
}
