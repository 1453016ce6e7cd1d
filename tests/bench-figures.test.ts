import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { commandFigures, gatewayFigures } from '../scripts/bench/bench-figures.ts'
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
  it('judges a goal only when other processes kept the load within the core count', () => {
    const load = fc.double({ min: 0, max: 64, noNaN: true })
    let judged = 0
    let unjudged = 0
    fc.assert(
      fc.property(
        fc.double({ min: 0.1, max: 10, noNaN: true }),
        load,
        load,
        // The others' demand as a multiple of the core count, so both
        // verdicts are drawn often.
        fc.integer({ min: 0, max: 30 }).map((tenths) => tenths / 10),
        fc.integer({ min: 1, max: 32 }),
        (median, start, end, perCore, cores) => {
          const others = perCore * cores
          const [stamped] = underLoad([measured(median)], { start, end, others }, cores)
          // The load average (the bench's own processes included) decides
          // nothing when the others' demand is known.
          const unreliable = others > cores
          expect(stamped!.unreliable).toBe(unreliable)
          expect(stamped!.load).toEqual({ start, end, others })
          expect(stamped!.goal!.met).toBe(unreliable ? null : median <= 2.5)
          if (unreliable) unjudged += 1
          else judged += 1
        },
      ),
    )
    expect(judged).toBeGreaterThan(10)
    expect(unjudged).toBeGreaterThan(10)
  })

  it('falls back to the load average, at start and end, where the others cannot be read', () => {
    const judge = (start: number, end: number) =>
      underLoad([measured(2)], { start, end, others: null }, 2)[0]!
    expect(judge(1.5, 1.9)).toMatchObject({ unreliable: false, goal: { met: true } })
    expect(judge(2.1, 1.0)).toMatchObject({ unreliable: true, goal: { met: null } })
    expect(judge(1.0, 2.1)).toMatchObject({ unreliable: true, goal: { met: null } })
  })

  it('keeps a section reliable however high the load average, when the others stay low', () => {
    const [stamped] = underLoad([measured(2)], { start: 9, end: 12, others: 0.4 }, 2)
    expect(stamped).toMatchObject({ unreliable: false, goal: { met: true } })
  })

  it('leaves a figure without a goal without one', () => {
    const plain = figure({ id: 'a', section: 'memory', label: 'a', unit: 'B', samples: [1, 2] })
    const [stamped] = underLoad([plain], { start: 9, end: 9, others: 9 }, 2)
    expect(stamped!.goal).toBeUndefined()
    expect(stamped!.unreliable).toBe(true)
  })
})

describe('the gateway figures', () => {
  const result = {
    unaskedAddedP50Ms: [0.6, -0.2, 0.9],
    unaskedAddedP99Ms: [4, 6, 3],
    grantedAddedP50Ms: [2, 4, 5],
    directP50Ms: [0.7, 0.8, 0.7],
    idleRssBytes: [64 * 1024 * 1024],
    callsPerRound: 100,
    warmupCalls: 200,
  }

  it('counts a round where the gateway measured no slower than direct as 1 µs, never as a negative figure', () => {
    const [added] = gatewayFigures(result)
    expect(added!.samples).toEqual([0.6, 0.001, 0.9])
    expect(added!.goal).toMatchObject({ target: 1, met: true })
  })

  it('states the three latency goals and judges each on its median', () => {
    const goals = Object.fromEntries(
      gatewayFigures(result)
        .filter((each) => each.goal)
        .map((each) => [each.id, [each.goal!.target, each.goal!.met]]),
    )
    expect(goals).toEqual({
      'gateway.added-latency-ms': [1, true],
      'gateway.added-latency-p99-ms': [5, true],
      'gateway.granted-added-latency-ms': [3, false],
    })
    expect(gatewayFigures(result).find((each) => each.id === 'gateway.rss-mib')!.median).toBe(64)
  })
})

describe('the command sandbox figures', () => {
  it('counts a round where the sandbox measured no slower than none as 1 µs, never as a negative figure', () => {
    const [overhead] = commandFigures({
      overheadMs: [13, -104.7, 12],
      sandboxedP50Ms: [27, 20, 26],
      bareP50Ms: [14, 124.7, 14],
      pairsPerRound: 20,
    })
    expect(overhead!.samples).toEqual([13, 0.001, 12])
    expect(overhead!.note).toContain('at or below 0 counts as 0.001')
  })
})
