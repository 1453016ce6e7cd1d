import { describe, expect, it } from 'vitest'
import { SmokeWindowLog, smokeHooksEnabled } from './smoke-hooks.ts'

describe('the smoke hooks', () => {
  it('are installed only in an unpackaged build that asks for them', () => {
    expect(smokeHooksEnabled(false, { ASSENT_SMOKE_HOOKS: '1' })).toBe(true)
    expect(smokeHooksEnabled(true, { ASSENT_SMOKE_HOOKS: '1' })).toBe(false)
    expect(smokeHooksEnabled(false, {})).toBe(false)
    expect(smokeHooksEnabled(false, { ASSENT_SMOKE_HOOKS: 'true' })).toBe(false)
  })
})

describe('the smoke window log', () => {
  it('keeps which window each prompt was handed, in order', () => {
    const log = new SmokeWindowLog()
    const { record } = log
    record('p1', 2)
    record('p2', 3)
    expect(log.opened).toEqual([
      { promptId: 'p1', windowId: 2 },
      { promptId: 'p2', windowId: 3 },
    ])
  })
})
