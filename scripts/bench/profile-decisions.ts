// `node scripts/bench/profile-decisions.ts [--decisions N] [--clients N] [--keep]`:
// where the runtime's CPU goes per decision. Starts the runtime child under
// `--cpu-prof` with its data folder on tmpfs (so the disk never waits), creates
// N pending approvals, decides them from N concurrent clients, and charges
// the runtime's samples taken while deciding to the categories of
// profile-categories.ts. The allowed writes run meanwhile and are counted:
// they are part of what one allowed decision costs.

import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { startBenchRuntime } from './bench-runtime.ts'
import { createRooms, decideConcurrently, toolsFinished } from './decision-bench.ts'
import { breakdown, CATEGORIES, type CpuProfile } from './profile-categories.ts'
import { createPendingApprovals, type RuntimeAccess } from './runtime-fixtures.ts'

// USER_HZ: 100 on every Linux the runtime supports (sysconf(_SC_CLK_TCK)).
const CLOCK_TICKS_PER_SEC = 100

const { values: flags } = parseArgs({
  options: {
    decisions: { type: 'string', default: '3000' },
    clients: { type: 'string', default: '10' },
    // Leaves the data folder and the .cpuprofile (open it in Chrome DevTools).
    keep: { type: 'boolean', default: false },
    // Only the CPU per decision and its threads, without the profiler's
    // own cost (for before/after comparisons).
    'no-profile': { type: 'boolean', default: false },
  },
  strict: true,
})
const profiling = !flags['no-profile']
const decisions = Number(flags.decisions)
const clients = Number(flags.clients)
const root = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'assent-profile-'))
const profiles = join(root, 'profiles')
const bench = await startBenchRuntime({
  approvalTtlMs: 6 * 60 * 60 * 1_000,
  root,
  nodeFlags: profiling ? ['--cpu-prof', '--cpu-prof-dir', profiles] : [],
})
let window: { from: number; to: number; rate: number; cpuMs: number; threads: Map<string, number> }
let result: ReturnType<typeof breakdown> | undefined
try {
  try {
    const runtime: RuntimeAccess = bench
    const rooms = await createRooms(runtime, bench.workspace, 10)
    const queue = await createPendingApprovals(runtime, rooms, decisions, 'p')
    const pid = bench.pid()
    if (pid === undefined) throw new Error('the runtime has no pid')
    const cpuBefore = cpuMs(pid)
    const threadsBefore = threadCpuMs(pid)
    const from = microseconds()
    const rate = await decideConcurrently(runtime, queue, clients)
    await toolsFinished(bench.workspace, queue.length)
    const threads = new Map<string, number>()
    for (const [name, ms] of threadCpuMs(pid)) {
      threads.set(name, ms - (threadsBefore.get(name) ?? 0))
    }
    window = { from, to: microseconds(), rate, cpuMs: cpuMs(pid) - cpuBefore, threads }
  } finally {
    // The profile is written when the runtime exits.
    await bench.close()
  }
  if (profiling) {
    const file = readdirSync(profiles).find((name) => name.endsWith('.cpuprofile'))
    if (!file) throw new Error(`the runtime wrote no profile in ${profiles}`)
    const profile = JSON.parse(readFileSync(join(profiles, file), 'utf8')) as CpuProfile
    result = breakdown(profile, window.from, window.to)
    if (flags.keep) {
      console.log(
        `profile kept: ${join(profiles, file)} (deciding from ${window.from} to ${window.to} µs)`,
      )
    }
  }
} finally {
  if (!flags.keep) rmSync(root, { recursive: true, force: true })
}

// The profile's samples are wall-clock: on a busy machine a preempted
// thread's wait is charged to whatever it was running. The kernel's CPU
// time for the process (/proc) is the cost; the samples only split it.
const cpuPerDecisionMs = window.cpuMs / decisions
console.log(
  `${decisions} allow-once decisions at ${clients} clients, data folder on tmpfs: ` +
    `${Math.round(window.rate)}/s; runtime CPU ${cpuPerDecisionMs.toFixed(3)} ms per decision ` +
    `(user + system, all threads, /proc)`,
)
console.log(
  'by thread (ms CPU per decision): ' +
    [...window.threads]
      .filter(([, ms]) => ms > 0)
      .map(([name, ms]) => `${name} ${(ms / decisions).toFixed(3)}`)
      .join(', '),
)
if (result) {
  console.log('| part | ms CPU per decision | share of samples |')
  console.log('| --- | ---: | ---: |')
  for (const category of CATEGORIES) {
    const share = result.busyUs[category] / result.totalBusyUs
    console.log(
      `| ${category} | ${(share * cpuPerDecisionMs).toFixed(3)} | ${(100 * share).toFixed(1)} % |`,
    )
  }
}

/** User + system CPU of a process so far, all its threads (Linux /proc). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8')
    .replace(/^.*\) /s, '')
    .split(' ')
  // utime and stime are fields 14 and 15 of stat, 12 and 13 after the name.
  const ticks = Number(fields[11]) + Number(fields[12])
  return (ticks * 1_000) / CLOCK_TICKS_PER_SEC
}

/** User + system CPU per thread name (the main thread, V8's helpers,
 *  libuv's pool), summed over threads of one name. */
function threadCpuMs(pid: number): Map<string, number> {
  const byName = new Map<string, number>()
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    let stat: string
    try {
      stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8')
    } catch {
      continue
    }
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    const ms = ((Number(fields[11]) + Number(fields[12])) * 1_000) / CLOCK_TICKS_PER_SEC
    byName.set(name, (byName.get(name) ?? 0) + ms)
  }
  return byName
}

function microseconds(): number {
  return Number(process.hrtime.bigint() / 1_000n)
}
