// `node scripts/bench/profile-workbench.ts [--decided N] [--pending N] [--loads N] [--keep]`:
// where the workbench page's main thread spends its time while a long room
// opens and while its timeline is scrolled. The bench's room (workbench-
// bench.ts) on the CDP host, with a Chromium performance trace of each
// opening and each scroll pass; each trace's main-thread time is charged to
// what the page did (trace-breakdown.ts), and the JavaScript part to its
// functions. `--keep` leaves the traces (open them in DevTools' Performance
// panel) and names their folder.

import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { parseArgs } from 'node:util'
import type { CDPSession, Page } from 'playwright-core'
import { ensureBuilt } from '../build-freshness.ts'
import { startBenchHost } from './bench-host.ts'
import {
  formatBreakdown,
  TRACE_START_MARK,
  traceBreakdown,
  type TraceEvent,
} from './trace-breakdown.ts'
import { makeLongRoom, openLongRoom, scrollTimeline } from './workbench-bench.ts'

const { values: flags } = parseArgs({
  options: {
    decided: { type: 'string', default: '500' },
    pending: { type: 'string', default: '20' },
    loads: { type: 'string', default: '3' },
    keep: { type: 'boolean', default: false },
  },
  strict: true,
})
const options = {
  decided: Number(flags.decided),
  pending: Number(flags.pending),
  loads: Number(flags.loads),
  log: (line: string) => console.log(line),
}
const CATEGORIES = [
  'devtools.timeline',
  'v8.execute',
  'blink.user_timing',
  'disabled-by-default-devtools.timeline',
  'disabled-by-default-v8.cpu_profiler',
]

ensureBuilt(options.log)
const traces = await mkdtemp(join(tmpdir(), 'assent-workbench-traces-'))
const bench = await startBenchHost()
try {
  const { page } = await bench.host.workbench()
  const cdp = await page.context().newCDPSession(page)
  const rooms = await makeLongRoom(bench, page, options)
  for (let load = 1; load <= options.loads; load += 1) {
    const opening = await traced(page, cdp, () => openLongRoom(page, rooms, options))
    await report(`open-${load}`, `opening ${Math.round(opening.result)} ms`, opening.events)
    const scrolling = await traced(page, cdp, () => scrollTimeline(page))
    const longest = Math.max(...scrolling.result.frameGapsMs)
    await report(`scroll-${load}`, `scrolling, longest frame ${Math.round(longest)} ms`, [
      ...scrolling.events,
    ])
  }
} finally {
  await bench.close()
}
if (flags.keep) console.log(`traces in ${traces}`)

async function report(name: string, title: string, events: TraceEvent[]): Promise<void> {
  console.log(`\n${name}: ${title}`)
  console.log(formatBreakdown(traceBreakdown(events)))
  if (flags.keep) {
    await writeFile(join(traces, `${name}.json`), JSON.stringify({ traceEvents: events }))
  }
}

/** Runs `work` inside a Chromium trace of the page; returns both. */
async function traced<T>(
  page: Page,
  cdp: CDPSession,
  work: () => Promise<T>,
): Promise<{ result: T; events: TraceEvent[] }> {
  const events: TraceEvent[] = []
  const collect = ({ value }: { value: unknown[] }) => events.push(...(value as TraceEvent[]))
  cdp.on('Tracing.dataCollected', collect)
  const complete = new Promise<void>((resolve) =>
    cdp.once('Tracing.tracingComplete', () => resolve()),
  )
  await cdp.send('Tracing.start', {
    transferMode: 'ReportEvents',
    traceConfig: { includedCategories: CATEGORIES },
  })
  let result: T
  try {
    // Starting the trace's sampler interrupts the page for a while; what is
    // measured starts after it, at this mark (trace-breakdown.ts).
    await sleep(300)
    await page.evaluate((label) => console.timeStamp(label), TRACE_START_MARK)
    result = await work()
  } finally {
    await cdp.send('Tracing.end')
    await complete
    cdp.off('Tracing.dataCollected', collect)
  }
  return { result, events }
}
