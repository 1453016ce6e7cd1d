import { describe, expect, it } from 'vitest'
import { isTrustedConsentClick, type ClickContext, type ClickFacts } from './trusted-click.ts'

const button = { id: 'assent-allow-once' } as unknown as EventTarget
const otherButton = { id: 'assent-allow-always' } as unknown as EventTarget

const goodClick: ClickFacts = { isTrusted: true, button: 0, detail: 1, target: button }
const goodContext: ClickContext = {
  expectedButton: button,
  buttonsEnabled: true,
  documentHasFocus: true,
}

describe('isTrustedConsentClick', () => {
  it('accepts a trusted primary pointer click on the enabled, focused, expected button', () => {
    expect(isTrustedConsentClick(goodClick, goodContext)).toBe(true)
    expect(isTrustedConsentClick({ ...goodClick, detail: 2 }, goodContext)).toBe(true)
  })

  const refusals: Array<[string, Partial<ClickFacts>, Partial<ClickContext>]> = [
    ['a scripted click (isTrusted false)', { isTrusted: false }, {}],
    ['the middle button', { button: 1 }, {}],
    ['the secondary button', { button: 2 }, {}],
    ['a keyboard-synthesised click (detail 0)', { detail: 0 }, {}],
    ['a click whose target is another element', { target: otherButton }, {}],
    ['a click without a target', { target: null }, {}],
    ['a click before the buttons are enabled', {}, { buttonsEnabled: false }],
    ['a click while the document has no focus', {}, { documentHasFocus: false }],
  ]
  for (const [name, click, context] of refusals) {
    it(`refuses ${name}`, () => {
      expect(
        isTrustedConsentClick({ ...goodClick, ...click }, { ...goodContext, ...context }),
      ).toBe(false)
    })
  }
})
