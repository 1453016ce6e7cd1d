import { describe, expect, it } from 'vitest'
import { questionRequestFixture } from '../test-support/fake-gui.ts'
import { inputKey, reconcileInputs, upsertInput } from './input-cards.ts'

describe('reconcileInputs', () => {
  it('keeps the same cards when the runtime confirms exactly what is shown', () => {
    const request = questionRequestFixture()
    const cards = upsertInput(new Map(), request)
    // A fresh copy, as a reload brings it: equal, not the same object.
    const confirmed = [JSON.parse(JSON.stringify(request)) as typeof request]
    expect(reconcileInputs(cards, confirmed)).toBe(cards)
    const none = new Map()
    expect(reconcileInputs(none, [])).toBe(none)
  })

  it('marks a pending card the runtime does not confirm as stale', () => {
    const request = questionRequestFixture()
    const cards = upsertInput(new Map(), request)
    const next = reconcileInputs(cards, [])
    expect(next).not.toBe(cards)
    expect(next.get(inputKey(request))?.stale).toBe(true)
  })
})
