import { describe, expect, it } from 'vitest'
import {
  isTrustedConsentClick,
  type ClickContext,
  type ClickFacts,
  type PersonFocus,
} from './trusted-click.ts'

const button = { id: 'assent-allow-once' } as unknown as EventTarget
const otherButton = { id: 'assent-allow-always' } as unknown as EventTarget
const DELAY_MS = 600
const NOW_MS = 10_000

const pointerClick: ClickFacts = { isTrusted: true, button: 0, detail: 1, target: button }
const keyboardClick: ClickFacts = { ...pointerClick, detail: 0 }
const tabbedHere: PersonFocus = { target: button, byKey: true, atMs: NOW_MS - DELAY_MS }
const goodContext: ClickContext = {
  expectedButton: button,
  buttonsEnabled: true,
  documentHasFocus: true,
  safeAnswer: false,
  nowMs: NOW_MS,
  enableDelayMs: DELAY_MS,
  personFocus: undefined,
  activatingKey: undefined,
}
/** Space on Allow after tabbing to it, the delay ago to the millisecond. */
const spaceContext: ClickContext = {
  ...goodContext,
  personFocus: tabbedHere,
  activatingKey: 'space',
}

const counts = (click: Partial<ClickFacts>, context: Partial<ClickContext>, base = pointerClick) =>
  isTrustedConsentClick({ ...base, ...click }, { ...goodContext, ...context })

describe('isTrustedConsentClick: a pointer click', () => {
  it('accepts a trusted primary pointer click on the enabled, focused, expected button', () => {
    expect(counts({}, {})).toBe(true)
    expect(counts({ detail: 2 }, {})).toBe(true)
  })

  const refusals: Array<[string, Partial<ClickFacts>, Partial<ClickContext>]> = [
    ['a scripted click (isTrusted false)', { isTrusted: false }, {}],
    ['the middle button', { button: 1 }, {}],
    ['the secondary button', { button: 2 }, {}],
    ['a click whose target is another element', { target: otherButton }, {}],
    ['a click without a target', { target: null }, {}],
    ['a click before the buttons are enabled', {}, { buttonsEnabled: false }],
    ['a click while the document has no focus', {}, { documentHasFocus: false }],
  ]
  for (const [name, click, context] of refusals) {
    it(`refuses ${name}`, () => {
      expect(counts(click, context)).toBe(false)
      // The same fault refuses a keyboard activation that would count.
      expect(counts(click, { ...spaceContext, ...context }, keyboardClick)).toBe(false)
    })
  }
})

describe('isTrustedConsentClick: the keyboard and assistive technology (detail 0)', () => {
  it('accepts Space on a button the person tabbed to, once the delay has passed since', () => {
    expect(counts({}, spaceContext, keyboardClick)).toBe(true)
    expect(
      counts({}, { ...spaceContext, personFocus: { ...tabbedHere, atMs: 0 } }, keyboardClick),
    ).toBe(true)
  })

  it('refuses Space sooner than the delay after the person tabbed there', () => {
    const justNow = { ...tabbedHere, atMs: NOW_MS - DELAY_MS + 1 }
    expect(counts({}, { ...spaceContext, personFocus: justNow }, keyboardClick)).toBe(false)
  })

  it('refuses Space on a button focused without a key press (pointer, script, the preload)', () => {
    const notByKey = { ...tabbedHere, byKey: false }
    expect(counts({}, { ...spaceContext, personFocus: notByKey }, keyboardClick)).toBe(false)
    expect(counts({}, { ...spaceContext, personFocus: undefined }, keyboardClick)).toBe(false)
  })

  it('refuses Space when the person tabbed to another button', () => {
    const elsewhere = { ...tabbedHere, target: otherButton }
    expect(counts({}, { ...spaceContext, personFocus: elsewhere }, keyboardClick)).toBe(false)
  })

  it('never counts Enter or any key but Space alone, even on Deny', () => {
    expect(counts({}, { ...spaceContext, activatingKey: 'other' }, keyboardClick)).toBe(false)
    expect(
      counts({}, { ...spaceContext, activatingKey: 'other', safeAnswer: true }, keyboardClick),
    ).toBe(false)
  })

  it('accepts Space or assistive technology on Deny from the default focus', () => {
    const onDeny = { ...goodContext, safeAnswer: true }
    expect(counts({}, { ...onDeny, activatingKey: 'space' }, keyboardClick)).toBe(true)
    expect(counts({}, onDeny, keyboardClick)).toBe(true)
    expect(counts({}, { ...onDeny, buttonsEnabled: false }, keyboardClick)).toBe(false)
  })

  it('accepts assistive technology (no key behind the click) on a button the person focused', () => {
    const focused = { ...tabbedHere, byKey: false }
    expect(counts({}, { ...goodContext, personFocus: focused }, keyboardClick)).toBe(true)
  })

  it('refuses assistive technology on Allow where the person never put focus, or too soon', () => {
    expect(counts({}, goodContext, keyboardClick)).toBe(false)
    const tooSoon = { ...tabbedHere, byKey: false, atMs: NOW_MS - 1 }
    expect(counts({}, { ...goodContext, personFocus: tooSoon }, keyboardClick)).toBe(false)
  })

  it('refuses a click whose detail is neither a pointer count nor 0', () => {
    for (const detail of [-1, Number.NaN, 0.5]) {
      expect(counts({ detail }, spaceContext), String(detail)).toBe(false)
    }
  })
})
