// `node scripts/bench/profile-first-room.ts [--starts N]`: where the
// workbench's first room's time goes (the `startup` figure of first-room-
// bench.ts, taken the same way). Each start is timed step by step in main,
// by wrapping the steps the CDP host takes (Chromium's launch, the runtime's
// fork and its `ready`, the workbench window, each workbench call), and in
// the page, by its navigation and resource timings; with the CPU each
// process spent by then (from /proc: comparable on a loaded machine, where
// wall time is not). `--renderer <dir>` loads the pages from another
// build's renderer folder (e.g. a release build's); `--chromium-arg <flag>`
// (repeatable) adds a flag to Chromium's launch, to try one; `--no-spare`
// leaves out the protected window prepared ahead. Linux only.

import { readdirSync, readFileSync } from 'node:fs'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { parseArgs } from 'node:util'
import { chromium } from 'playwright-core'
import { ensureBuilt } from '../build-freshness.ts'
import { MainServices } from '../../src/main/core/main-services.ts'
import { ChildProcessLauncher } from '../../src/main/core/runtime-launcher.ts'
import { builtAssets } from '../../src/main/cdp/built-assets.ts'
import type { CdpHost } from '../../src/main/cdp/cdp-host.ts'
import { SparePool } from '../../src/main/core/spare-window.ts'
import { CdpPageChannel } from '../../src/main/cdp/page-channel.ts'
import { SharedBrowserLauncher } from '../../src/main/cdp/window-launcher.ts'
import { CdpWorkbench } from '../../src/main/cdp/workbench-page.ts'
import { BENCH_TIMEOUT_MS } from './bench-host.ts'
import { firstRoomHost, roomMadeOnce } from './first-room-bench.ts'
import { epochNow, nextFrame } from './page-probes.ts'
import { formatBreakdown, traceBreakdown, type TraceEvent } from './trace-breakdown.ts'

const { values: flags } = parseArgs({
  options: {
    starts: { type: 'string', default: '5' },
    renderer: { type: 'string' },
    trace: { type: 'boolean', default: false },
    'chromium-arg': { type: 'string', multiple: true },
    'no-spare': { type: 'boolean', default: false },
  },
  strict: true,
})
const starts = Number(flags.starts)
const log = (line: string) => console.log(line)

/** Steps of the current start, ms since `CdpHost.start` was called. */
let began = 0
let marks: { name: string; at: number }[] = []
const mark = (name: string) => marks.push({ name, at: performance.now() - began })

function timed<T extends object, K extends keyof T>(target: T, key: K, name: string): void {
  const original = target[key] as unknown as (...args: unknown[]) => unknown
  const wrapped = function (this: unknown, ...args: unknown[]) {
    const detail = name === 'call' ? describeCall(args) : name
    mark(`${detail} ▸`)
    const result = original.apply(this, args)
    if (result instanceof Promise) {
      return result.finally(() => mark(`${detail} ◂`))
    }
    mark(`${detail} ◂`)
    return result
  }
  ;(target as Record<K, unknown>)[key] = wrapped
}

function describeCall(args: unknown[]): string {
  const [channel, callArgs] = args as [string, unknown]
  const first = (Array.isArray(callArgs) ? callArgs[0] : callArgs) as
    { method?: string; path?: string } | undefined
  const route = first?.path ? ` ${first.method ?? ''} ${first.path}` : ''
  return `call ${channel}${route}`
}

const extraArgs = flags['chromium-arg'] ?? []
if (extraArgs.length > 0) {
  const launch = chromium.launch.bind(chromium)
  chromium.launch = (options) =>
    launch({ ...options, args: [...(options?.args ?? []), ...extraArgs] })
}
timed(chromium, 'launch', 'chromium.launch')
timed(ChildProcessLauncher.prototype, 'launch', 'runtime fork')
timed(MainServices.prototype, 'start', 'services.start (runtime ready)')
timed(MainServices.prototype, 'handleWorkbenchCall', 'call')
// Without the protected window the host prepares ahead: what it costs the
// first room, which it competes with for the CPU.
if (flags['no-spare']) SparePool.prototype.warmWhenQuiet = () => undefined
timed(SparePool.prototype, 'warm', 'consent spare warm')
timed(SharedBrowserLauncher.prototype, 'open', 'window open (context, page)')
timed(CdpWorkbench, 'open', 'workbench open')
timed(CdpPageChannel, 'attach', 'page channel attach')
const openWindow = SharedBrowserLauncher.prototype.open
SharedBrowserLauncher.prototype.open = async function (options) {
  const window = await openWindow.call(this, options)
  if (!options.hidden) timed(window.page, 'goto', 'workbench page.goto')
  return window
}

/** CPU ms (user + system) of each process under this one, by role. */
function cpuByRole(): Record<string, number> {
  const ticksPerMs = 100 / 1_000
  const byPid = new Map<number, { ppid: number; ms: number; role: string }>()
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8')
      byPid.set(Number(entry), {
        ppid: Number(fields[1]),
        ms: (Number(fields[11]) + Number(fields[12])) / ticksPerMs,
        role: roleOf(cmdline),
      })
    } catch {
      // Gone between the listing and the read.
    }
  }
  const mine = (pid: number): boolean => {
    for (let at = byPid.get(pid); at; at = byPid.get(at.ppid)) {
      if (at.ppid === process.pid) return true
    }
    return false
  }
  const totals: Record<string, number> = {}
  const usage = process.cpuUsage()
  totals.main = (usage.user + usage.system) / 1_000
  for (const [pid, info] of byPid) {
    if (!mine(pid)) continue
    totals[info.role] = (totals[info.role] ?? 0) + info.ms
  }
  return totals
}

function roleOf(cmdline: string): string {
  if (cmdline.includes('runtime.js')) return 'runtime'
  const type = /--type=([a-z-]+)/.exec(cmdline)?.[1]
  if (type === 'renderer') return 'chromium renderers'
  if (type) return `chromium ${type}`
  return 'chromium browser'
}

/** The built pages from another build's renderer folder, with this
 *  build's preloads. */
function pagesFrom(rendererRoot: string) {
  return {
    ...builtAssets(),
    rendererRoot,
    workbenchPage: join(rendererRoot, 'workbench', 'index.html'),
    consentPage: join(rendererRoot, 'consent', 'index.html'),
  }
}

/** A trace of every Chromium process from the host's start on (it slows
 *  what it watches: its times are not the figure's); returns its stop. */
async function startTracing(host: CdpHost): Promise<() => Promise<TraceEvent[]>> {
  const cdp = await host.browser.newBrowserCDPSession()
  const events: TraceEvent[] = []
  cdp.on('Tracing.dataCollected', ({ value }) => events.push(...(value as unknown as TraceEvent[])))
  await cdp.send('Tracing.start', {
    transferMode: 'ReportEvents',
    traceConfig: {
      includedCategories: [
        'devtools.timeline',
        'v8.execute',
        'disabled-by-default-devtools.timeline',
        'disabled-by-default-v8.cpu_profiler',
      ],
    },
  })
  return async () => {
    const complete = new Promise<void>((resolve) =>
      cdp.once('Tracing.tracingComplete', () => resolve()),
    )
    await cdp.send('Tracing.end')
    await complete
    return events
  }
}

const root = await mkdtemp(join(tmpdir(), 'assent-profile-first-room-'))
const workspace = join(root, 'workspace')
const dataDir = join(root, 'data')
await mkdir(workspace, { recursive: true })
ensureBuilt(log)
const startHost = firstRoomHost(
  dataDir,
  workspace,
  flags.renderer === undefined ? undefined : pagesFrom(flags.renderer),
)
try {
  const roomId = await roomMadeOnce(startHost, workspace)
  for (let start = 1; start <= starts; start += 1) {
    marks = []
    const cpuBefore = cpuByRole()
    began = performance.now()
    const beganEpoch = epochNow()
    const host = await startHost()
    mark('host started')
    const tracing = flags.trace ? await startTracing(host) : undefined
    try {
      const { page } = await host.workbench()
      mark('workbench() returned')
      await page.waitForSelector(`[data-testid="room-link"][data-room-id="${roomId}"]`, {
        timeout: BENCH_TIMEOUT_MS,
      })
      mark('room link in the page')
      await page.click(`[data-testid="room-link"][data-room-id="${roomId}"]`, {
        timeout: BENCH_TIMEOUT_MS,
      })
      mark('clicked')
      await page.waitForSelector(`[data-testid="room-view"][data-room-id="${roomId}"]`, {
        timeout: BENCH_TIMEOUT_MS,
      })
      mark('room view in the page')
      await page.evaluate(nextFrame)
      mark('next frame (the figure)')
      const pageTimes = await page.evaluate(() => {
        // The bench compiles without the DOM library: the page's timings, narrowly.
        type Entry = { name: string; startTime: number; responseEnd: number }
        const timings = performance as unknown as {
          timeOrigin: number
          getEntriesByType(type: string): Entry[]
        }
        const nav = timings.getEntriesByType('navigation')[0] as unknown as Record<string, number>
        const origin = timings.timeOrigin
        const at = (ms: number) => origin + ms
        const resources = timings.getEntriesByType('resource').map((entry) => ({
          name: entry.name.replace(/^.*\//, ''),
          start: at(entry.startTime),
          end: at(entry.responseEnd),
        }))
        return {
          navigationStart: origin,
          responseEnd: at(nav.responseEnd!),
          domInteractive: at(nav.domInteractive!),
          domContentLoaded: at(nav.domContentLoadedEventEnd!),
          load: at(nav.loadEventEnd!),
          resources,
        }
      })
      const cpuAfter = cpuByRole()
      const pageMark = (name: string, epoch: number) =>
        marks.push({ name: `page: ${name}`, at: epoch - beganEpoch })
      pageMark('navigation start', pageTimes.navigationStart)
      pageMark('html received', pageTimes.responseEnd)
      pageMark('dom interactive', pageTimes.domInteractive)
      pageMark('DOMContentLoaded end', pageTimes.domContentLoaded)
      pageMark('load end', pageTimes.load)
      for (const resource of pageTimes.resources) {
        pageMark(`${resource.name} requested`, resource.start)
        pageMark(`${resource.name} received`, resource.end)
      }
      log(`\nstart ${start}:`)
      for (const { name, at } of marks.sort((a, b) => a.at - b.at)) {
        log(`  ${String(Math.round(at)).padStart(6)} ms  ${name}`)
      }
      const cpu = Object.entries(cpuAfter).map(
        ([role, ms]) => `${role} ${Math.round(ms - (cpuBefore[role] ?? 0))}`,
      )
      log(`  CPU ms by process (since the start): ${cpu.join(', ')}`)
      if (tracing) log(formatBreakdown(traceBreakdown(await tracing())))
    } finally {
      await host.close()
    }
  }
} finally {
  await rm(root, { recursive: true, force: true })
}
