import type { ClickContext, PersonFocus } from './trusted-click.ts'

/**
 * What the keyboard did in this window, for the keyboard and assistive
 * technology rules of `isTrustedConsentClick`: which trusted keys are held
 * or were just released, and where the person (not the preload) last moved
 * focus, with a key press or without.
 *
 * Fails closed: a window blur forgets everything, focus the preload sets
 * itself is never the person's, and only trusted key events count.
 */
export class PersonFocusLog {
  private readonly held = new Set<string>()
  private released: string | undefined
  private focus: PersonFocus | undefined
  private preloadFocusing = false
  private readonly now: () => number
  private readonly defer: (callback: () => void) => void

  /** `defer` runs a callback once the current input event is over (a 0 ms
   *  timer): a click a key release makes is dispatched before it. */
  constructor(now: () => number, defer: (callback: () => void) => void) {
    this.now = now
    this.defer = defer
  }

  keyDown(event: KeyboardEvent): void {
    if (!event.isTrusted) return
    this.held.add(event.key)
    this.released = undefined
  }

  keyUp(event: KeyboardEvent): void {
    if (!event.isTrusted) return
    const key = event.key
    this.held.delete(key)
    this.released = key
    this.defer(() => {
      if (this.released === key) this.released = undefined
    })
  }

  pointerDown(): void {
    this.released = undefined
  }

  /** Focus arrived on `target`; `isButton` when it is one of the consent
   *  buttons (focus anywhere else is nobody's focus on a button). */
  focusIn(target: EventTarget | null, isButton: boolean): void {
    if (this.preloadFocusing || !isButton || target === null) {
      this.focus = undefined
      return
    }
    this.focus = { target, byKey: this.held.size > 0, atMs: this.now() }
  }

  /** The window lost focus: keys held now are released elsewhere. */
  forget(): void {
    this.held.clear()
    this.released = undefined
    this.focus = undefined
  }

  /** Focuses `element` as the preload's default: not the person's focus. */
  focusAsPreload(element: HTMLElement): void {
    this.preloadFocusing = true
    try {
      element.focus()
    } finally {
      this.preloadFocusing = false
    }
    this.focus = undefined
  }

  get personFocus(): PersonFocus | undefined {
    return this.focus
  }

  get activatingKey(): ClickContext['activatingKey'] {
    const keys = [...this.held]
    if (this.released !== undefined) keys.push(this.released)
    if (keys.length === 0) return undefined
    return keys.every((key) => key === ' ' || key === 'Spacebar') ? 'space' : 'other'
  }
}
