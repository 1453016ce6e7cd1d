import { describe, expect, it } from 'vitest'
import { kindOf, TRACE_START_MARK, traceBreakdown, type TraceEvent } from './trace-breakdown.ts'

const PAGE = { pid: 7, tid: 1 }
const OTHER = { pid: 9, tid: 1 }

function thread(at: { pid: number; tid: number }): TraceEvent {
  return { ...at, name: 'thread_name', ph: 'M', ts: 0, args: { name: 'CrRendererMain' } }
}
function span(at: { pid: number; tid: number }, name: string, ts: number, dur: number): TraceEvent {
  return { ...at, name, ph: 'X', ts, dur }
}

describe('traceBreakdown', () => {
  it('charges each event its own time, less what is nested in it, on the busiest page', () => {
    const events = [
      thread(PAGE),
      thread(OTHER),
      span(OTHER, 'RunTask', 0, 1_000),
      span(PAGE, 'RunTask', 0, 10_000),
      span(PAGE, 'FunctionCall', 1_000, 6_000),
      span(PAGE, 'Layout', 2_000, 3_000),
      span(PAGE, 'RunTask', 20_000, 4_000),
      span(PAGE, 'Paint', 20_000, 4_000),
    ]
    const result = traceBreakdown(events)
    expect(result.busyMs).toBe(14)
    expect(result.byKind.script).toBe(3)
    expect(result.byKind.layout).toBe(3)
    expect(result.byKind['paint and composite']).toBe(4)
    // The task's own time (10 less the 6 of its call) is no kind of work.
    expect(result.byKind.other).toBe(4)
    expect(result.byEvent[0]).toEqual({ name: 'RunTask', selfMs: 4 })
  })

  it('leaves out what the page did before the start mark', () => {
    const mark: TraceEvent = {
      ...PAGE,
      name: 'TimeStamp',
      ph: 'I',
      ts: 5_000,
      args: { data: { message: TRACE_START_MARK } },
    }
    const events = [
      thread(PAGE),
      mark,
      span(PAGE, 'RunTask', 0, 4_000),
      span(PAGE, 'RunTask', 6_000, 2_000),
      span(PAGE, 'UpdateLayoutTree', 6_000, 2_000),
    ]
    const result = traceBreakdown(events)
    expect(result.busyMs).toBe(2)
    expect(result.byKind.style).toBe(2)
  })

  it('sorts the page work it knows into kinds, and the rest into other', () => {
    expect(kindOf('MinorGC')).toBe('garbage collection')
    expect(kindOf('EvaluateScript')).toBe('script')
    expect(kindOf('UpdateLayoutTree')).toBe('style')
    expect(kindOf('Layout')).toBe('layout')
    expect(kindOf('Commit')).toBe('paint and composite')
    expect(kindOf('RunTask')).toBe('other')
  })

  it('sums the sampled time of each function after the mark, without idle samples', () => {
    const profile: TraceEvent = {
      ...PAGE,
      name: 'Profile',
      ph: 'P',
      ts: 0,
      id: '0x1',
      args: { data: { startTime: 0 } },
    }
    const node = (id: number, functionName: string) => ({
      id,
      callFrame: {
        functionName,
        url: 'http://x/assets/workbench.js',
        lineNumber: 9,
        columnNumber: 0,
      },
    })
    const chunk: TraceEvent = {
      ...PAGE,
      name: 'ProfileChunk',
      ph: 'P',
      ts: 1,
      id: '0x1',
      args: {
        data: {
          cpuProfile: { nodes: [node(1, 'render'), node(2, '(idle)')], samples: [1, 1, 2, 1, 1] },
          timeDeltas: [1_000, 1_000, 1_000, 1_000, 1_000],
        },
      },
    }
    const mark: TraceEvent = {
      ...PAGE,
      name: 'TimeStamp',
      ph: 'I',
      ts: 2_000,
      args: { data: { message: TRACE_START_MARK } },
    }
    const [render, ...rest] = traceBreakdown([thread(PAGE), mark, profile, chunk]).byFunction
    // Samples at 1, 2, 3 (idle), 4 and 5 ms: the first is before the mark.
    expect(render).toEqual({ name: 'render', where: 'workbench.js:10:1', selfMs: 3 })
    expect(rest).toEqual([])
  })
})
