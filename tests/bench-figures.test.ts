import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { figure, underLoad } from '../scripts/bench/figures.ts'

// How a figure's goal is judged, and how the load it was taken under turns
// the judgement off. Pure functions: no clock, no machine.

const measured = (median: number) =>
  figure({
    id: 'tokens.example',
    section: 'tokens',
    label: 'an example',
    unit: 'HMACs',
    samples: [median],
    goal: { comparison: 'at-most', target: 2.5, text: '≤ 2.5' },
  })

describe('bench figures under load', () => {
  it('judges a goal only when the load stayed within the core count, at start and end', () => {
    const load = fc.double({ min: 0, max: 64, noNaN: true })
    let judged = 0
    let unjudged = 0
    fc.assert(
      fc.property(
        fc.double({ min: 0.1, max: 10, noNaN: true }),
        load,
        load,
        fc.integer({ min: 1, max: 32 }),
        (median, start, end, cores) => {
          const [stamped] = underLoad([measured(median)], { start, end }, cores)
          const unreliable = start > cores || end > cores
          expect(stamped!.unreliable).toBe(unreliable)
          expect(stamped!.load).toEqual({ start, end })
          expect(stamped!.goal!.met).toBe(unreliable ? null : median <= 2.5)
          if (unreliable) unjudged += 1
          else judged += 1
        },
      ),
    )
    expect(judged).toBeGreaterThan(10)
    expect(unjudged).toBeGreaterThan(10)
  })

  it('leaves a figure without a goal without one', () => {
    const plain = figure({ id: 'a', section: 'memory', label: 'a', unit: 'B', samples: [1, 2] })
    const [stamped] = underLoad([plain], { start: 9, end: 9 }, 2)
    expect(stamped!.goal).toBeUndefined()
    expect(stamped!.unreliable).toBe(true)
  })
})
