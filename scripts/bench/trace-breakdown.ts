// Folds a Chromium performance trace (the Trace Event format) into where the
// page's main thread spent its time: self time per kind of work (script,
// style, layout, paint, garbage collection, …), and the script part per
// function from the trace's sampling profile. Pure: the trace is data.

export interface TraceEvent {
  name: string
  ph: string
  pid: number
  tid: number
  ts: number
  dur?: number
  id?: string
  args?: Record<string, unknown>
}

/** A `console.timeStamp` label: main-thread work before it is left out. */
export const TRACE_START_MARK = 'assent-bench:start'

export const KINDS = [
  'script',
  'garbage collection',
  'style',
  'layout',
  'paint and composite',
  'parse HTML',
  'other',
] as const
export type Kind = (typeof KINDS)[number]

const KIND_OF: ReadonlyArray<[Kind, RegExp]> = [
  ['garbage collection', /GC|^BlinkGC|Sweep|Mark/],
  [
    'script',
    /^(FunctionCall|EvaluateScript|RunMicrotasks|TimerFire|FireAnimationFrame|EventDispatch|v8\.|V8\.|FireIdleCallback|XHRReadyStateChange|HandlePostMessage)/,
  ],
  [
    'style',
    /^(UpdateLayoutTree|RecalculateStyles|ParseAuthorStyleSheet|ScheduleStyleRecalculation)/,
  ],
  [
    'layout',
    /^(Layout|UpdateLayerTree|IntersectionObserver|ComputeIntersections|LocalFrameView::)/,
  ],
  [
    'paint and composite',
    /^(Paint|PrePaint|Layerize|Commit|CompositeLayers|Decode|Rasterize|UpdateLayer|Animation)/,
  ],
  ['parse HTML', /^ParseHTML/],
]

export interface FunctionTime {
  /** The function's name and where it is (url:line:column, 1-based). */
  name: string
  where: string
  selfMs: number
}

export interface Breakdown {
  /** The main thread's busy time inside the trace, in ms. */
  busyMs: number
  byKind: Record<Kind, number>
  /** Self time per event name, largest first. */
  byEvent: Array<{ name: string; selfMs: number }>
  /** Sampled script self time per function, largest first. */
  byFunction: FunctionTime[]
}

/** The renderer main thread that was busiest: the page that did the work. */
function mainThread(events: readonly TraceEvent[]): { pid: number; tid: number } | undefined {
  const mains = events.filter(
    (event) =>
      event.ph === 'M' &&
      event.name === 'thread_name' &&
      (event.args?.name as string | undefined) === 'CrRendererMain',
  )
  let best: { pid: number; tid: number; busy: number } | undefined
  for (const main of mains) {
    const busy = events
      .filter((e) => e.pid === main.pid && e.tid === main.tid && e.name === 'RunTask')
      .reduce((sum, e) => sum + (e.dur ?? 0), 0)
    if (!best || busy > best.busy) best = { pid: main.pid, tid: main.tid, busy }
  }
  return best
}

export function kindOf(name: string): Kind {
  return KIND_OF.find(([, pattern]) => pattern.test(name))?.[0] ?? 'other'
}

export function traceBreakdown(events: readonly TraceEvent[]): Breakdown {
  const byKind = Object.fromEntries(KINDS.map((kind) => [kind, 0])) as Record<Kind, number>
  const thread = mainThread(events)
  if (!thread) return { busyMs: 0, byKind, byEvent: [], byFunction: [] }
  const from =
    events.find((e) => e.name === 'TimeStamp' && markOf(e) === TRACE_START_MARK)?.ts ?? -Infinity
  const complete = events
    .filter(
      (e) => e.pid === thread.pid && e.tid === thread.tid && e.ph === 'X' && e.dur && e.ts >= from,
    )
    .sort((a, b) => a.ts - b.ts || b.dur! - a.dur!)
  // Self time: an event's duration less that of the events nested in it.
  const self = new Map<TraceEvent, number>()
  const stack: TraceEvent[] = []
  let busy = 0
  for (const event of complete) {
    while (stack.length > 0 && stack.at(-1)!.ts + stack.at(-1)!.dur! <= event.ts) stack.pop()
    const parent = stack.at(-1)
    if (parent) self.set(parent, self.get(parent)! - event.dur!)
    else busy += event.dur!
    self.set(event, event.dur!)
    stack.push(event)
  }
  const byName = new Map<string, number>()
  for (const [event, micros] of self) {
    byName.set(event.name, (byName.get(event.name) ?? 0) + micros / 1_000)
    // A task's own time (scheduling, IPC) is not a kind of work: 'other'.
    byKind[kindOf(event.name)] += micros / 1_000
  }
  const byEvent = [...byName]
    .map(([name, selfMs]) => ({ name, selfMs }))
    .sort((a, b) => b.selfMs - a.selfMs)
  return {
    busyMs: busy / 1_000,
    byKind,
    byEvent,
    byFunction: sampledFunctions(events, thread, from),
  }
}

interface ProfileNode {
  id: number
  parent?: number
  callFrame: { functionName: string; url: string; lineNumber?: number; columnNumber?: number }
}

function markOf(event: TraceEvent): unknown {
  return (event.args?.data as { message?: unknown } | undefined)?.message
}

/** The V8 sampling profile the trace carries for `thread`, by function,
 *  from `from` (trace microseconds) on. */
function sampledFunctions(
  events: readonly TraceEvent[],
  thread: { pid: number; tid: number },
  from: number,
): FunctionTime[] {
  // Each profile's clock: its start, then every sample's delta in turn.
  const clocks = new Map<string | undefined, number>()
  for (const e of events) {
    if (e.name !== 'Profile' || e.pid !== thread.pid || e.tid !== thread.tid) continue
    clocks.set(e.id, Number((e.args?.data as { startTime?: number } | undefined)?.startTime ?? 0))
  }
  const nodes = new Map<string, ProfileNode>()
  const totals = new Map<string, FunctionTime>()
  const chunks = events
    .filter((e) => e.name === 'ProfileChunk' && clocks.has(e.id))
    .sort((a, b) => a.ts - b.ts)
  for (const chunk of chunks) {
    const data = chunk.args?.data as
      | { cpuProfile?: { nodes?: ProfileNode[]; samples?: number[] }; timeDeltas?: number[] }
      | undefined
    for (const node of data?.cpuProfile?.nodes ?? []) nodes.set(`${chunk.id}:${node.id}`, node)
    const samples = data?.cpuProfile?.samples ?? []
    const deltas = data?.timeDeltas ?? []
    let clock = clocks.get(chunk.id)!
    samples.forEach((id, index) => {
      clock += deltas[index] ?? 0
      // A sample's time is the gap to the next one (the chunk's previous
      // gap for its last: close enough at a fixed sampling interval).
      const micros = Math.max(0, deltas[index + 1] ?? deltas[index] ?? 0)
      const node = nodes.get(`${chunk.id}:${id}`)
      if (!node || clock < from || node.callFrame.functionName === '(idle)') return
      const frame = node.callFrame
      const where = frame.url
        ? `${frame.url.split('/').at(-1)}:${(frame.lineNumber ?? 0) + 1}:${(frame.columnNumber ?? 0) + 1}`
        : ''
      const key = `${frame.functionName}@${where}`
      const total = totals.get(key) ?? {
        name: frame.functionName || '(anonymous)',
        where,
        selfMs: 0,
      }
      total.selfMs += micros / 1_000
      totals.set(key, total)
    })
    clocks.set(chunk.id, clock)
  }
  return [...totals.values()].sort((a, b) => b.selfMs - a.selfMs)
}

/** The breakdown as a few lines of text. */
export function formatBreakdown(breakdown: Breakdown, top = 15): string {
  const ms = (value: number) => value.toFixed(1).padStart(8)
  const lines = [`  main thread busy ${ms(breakdown.busyMs)} ms`]
  for (const kind of KINDS) lines.push(`  ${kind.padEnd(22)}${ms(breakdown.byKind[kind])} ms`)
  lines.push('  events by self time:')
  for (const event of breakdown.byEvent.slice(0, top)) {
    lines.push(`    ${ms(event.selfMs)} ms  ${event.name}`)
  }
  lines.push('  sampled functions by self time:')
  for (const fn of breakdown.byFunction.slice(0, top)) {
    lines.push(`    ${ms(fn.selfMs)} ms  ${fn.name} ${fn.where}`)
  }
  return lines.join('\n')
}
