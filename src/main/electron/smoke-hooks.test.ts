import { describe, expect, it } from 'vitest'
import { smokeHooksEnabled } from './smoke-hooks.ts'

describe('the smoke hooks', () => {
  it('are installed only in an unpackaged build that asks for them', () => {
    expect(smokeHooksEnabled(false, { ASSENT_SMOKE_HOOKS: '1' })).toBe(true)
    expect(smokeHooksEnabled(true, { ASSENT_SMOKE_HOOKS: '1' })).toBe(false)
    expect(smokeHooksEnabled(false, {})).toBe(false)
    expect(smokeHooksEnabled(false, { ASSENT_SMOKE_HOOKS: 'true' })).toBe(false)
  })
})
