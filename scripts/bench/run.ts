// `npm run bench [-- --quick] [-- --json <file>] [-- --only <section>]`:
// how fast consent is, next
// to the limits it cannot beat, in one process run per figure. Prints a
// table and writes bench-results.json (schema: results-schema.ts). Reports
// only: no figure fails the run; a measurement that breaks does.
//
// Figures from a loaded machine are not the product's numbers: the load
// average at start and end is recorded, and every figure carries the load
// its section ran under, with the demand other processes put on the cores
// meanwhile (others-load.ts); one taken while that exceeded the core count
// is marked unreliable and its goal is not judged.

import { writeFileSync } from 'node:fs'
import { availableParallelism, cpus, loadavg, totalmem } from 'node:os'
import { join, resolve } from 'node:path'
import { performance } from 'node:perf_hooks'
import { parseArgs } from 'node:util'
import { MAX_USED_NONCES } from '../../src/consent/consent-token.ts'
import { CHROMIUM_MISSING, findChromium } from '../../src/main/cdp/chromium.ts'
import { PROJECT_ROOT } from '../../src/main/cdp/built-assets.ts'
import {
  commandFigures,
  consentFigures,
  gatewayFigures,
  decisionFigures,
  ledgerFigures,
  tokenFigures,
  verifyPauseFigures,
  workbenchFigures,
} from './bench-figures.ts'
import { measureUnderLoad, othersLoadMeasurable } from './others-load.ts'
import { startBenchHost } from './bench-host.ts'
import { measureCommandSandbox } from './command-sandbox-bench.ts'
import { measureGatewayOverhead } from './gateway-bench.ts'
import { measureConsentLatency } from './consent-latency-bench.ts'
import { probeSandbox } from '../../src/runtime/sandbox/sandbox-probe.ts'
import { measureDecisionThroughput } from './decision-bench.ts'
import { measureFootprint } from './footprint-bench.ts'
import { firstRoomFigures, footprintFigures } from './footprint-figures.ts'
import { measureFirstRoom } from './first-room-bench.ts'
import { ensureBuilt } from '../build-freshness.ts'
import {
  BENCH_RESULTS_SCHEMA_ID,
  BenchResultsSchema,
  SECTIONS,
  type Section,
  type BenchResults,
  type Figure,
  type MeasuredFigure,
} from './results-schema.ts'
import { formatTable } from './table.ts'
import { measureLedgerMemory, measureTokenThroughput, measureVerifyPause } from './token-bench.ts'
import { measureWorkbench } from './workbench-bench.ts'

const FULL = {
  tokens: { rounds: 9, roundMs: 700, warmupMs: 300 },
  pauseRepeats: 3,
  ledgerRepeats: 3,
  decisions: {
    rooms: 10,
    rounds: 3,
    targetRoundMs: 1_000,
    minPerRound: 50,
    maxPerRound: 1_000,
    bareInsertMs: 1_000,
  },
  memory: { approvals: 10_000, rooms: 10, perRound: 1_000, starts: 5 },
  consentRuns: 30,
  workbench: { decided: 500, pending: 20, loads: 3 },
  commands: { rounds: 3, pairsPerRound: 30 },
  gateway: { rounds: 3, callsPerRound: 100, warmupCalls: 200 },
}

const QUICK: typeof FULL = {
  tokens: { rounds: 3, roundMs: 200, warmupMs: 100 },
  pauseRepeats: 1,
  ledgerRepeats: 2,
  decisions: {
    rooms: 4,
    rounds: 2,
    targetRoundMs: 300,
    minPerRound: 15,
    maxPerRound: 200,
    bareInsertMs: 250,
  },
  memory: { approvals: 2_000, rooms: 10, perRound: 500, starts: 2 },
  consentRuns: 5,
  workbench: { decided: 100, pending: 10, loads: 2 },
  commands: { rounds: 2, pairsPerRound: 8 },
  gateway: { rounds: 2, callsPerRound: 20, warmupCalls: 10 },
}

// The room UI is final (rooms, cards, picker); set to false while it is
// rewritten, so its figures are marked provisional.
const WORKBENCH_UI_FINAL = true

const { values: flags } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    json: { type: 'string' },
    // Repeatable: measure these sections alone (results-schema.ts SECTIONS).
    only: { type: 'string', multiple: true },
  },
  strict: true,
})
const only = new Set(flags.only ?? SECTIONS)
const unknown = [...only].filter((name) => !(SECTIONS as readonly string[]).includes(name))
if (unknown.length > 0) {
  throw new Error(`--only: unknown section ${unknown.join(', ')} (one of ${SECTIONS.join(', ')})`)
}
const wanted = (section: Section) => only.has(section)
const plan = flags.quick ? QUICK : FULL
const output = resolve(flags.json ?? join(PROJECT_ROOT, 'bench-results.json'))
const benchStarted = performance.now()
const log = (line: string) =>
  console.log(`[${((performance.now() - benchStarted) / 1_000).toFixed(1).padStart(5)} s] ${line}`)

const loadAtStart = loadavg() as [number, number, number]
const startedAt = new Date()
const figures: Figure[] = []
const skipped: BenchResults['skipped'] = []
let chromium: string | null = null

log(
  `assent bench${flags.quick ? ' --quick' : ''}: node ${process.version}, ` +
    `${availableParallelism()} cores, load average ${loadAtStart.map((n) => n.toFixed(2)).join(' ')}`,
)

const cores = availableParallelism()
if (!othersLoadMeasurable()) {
  log(
    'load: /proc cannot be read here, so figures are judged by the load average, which counts the bench too',
  )
}
/** Measures one section and keeps its figures with the load it ran under. */
async function measure(run: () => MeasuredFigure[] | Promise<MeasuredFigure[]>): Promise<void> {
  const { figures: stamped, others } = await measureUnderLoad(run, cores)
  figures.push(...stamped)
  if (others) log(`load: other processes' mean ${others.mean.toFixed(2)}, max ${others.max}`)
}

if (wanted('tokens')) {
  log('tokens: mint + verify next to raw HMAC-SHA256, at 5 and 65 536 live nonces')
  await measure(() => tokenFigures(measureTokenThroughput(plan.tokens)))
  log('tokens: the longest verify while a full ledger expires at once')
  await measure(() => verifyPauseFigures(measureVerifyPause(plan.pauseRepeats)))
}
if (wanted('memory')) {
  log('memory: verifier ledger at capacity')
  await measure(() => ledgerFigures(measureLedgerMemory(plan.ledgerRepeats), MAX_USED_NONCES))
}
if (wanted('decisions')) {
  await measure(async () =>
    decisionFigures(await measureDecisionThroughput({ ...plan.decisions, log })),
  )
}
if (wanted('memory') || wanted('startup')) {
  // The built runtime, as main forks it.
  ensureBuilt((line) => log(`bench: ${line}`))
  await measure(async () =>
    footprintFigures(await measureFootprint({ ...plan.memory, log })).filter(
      (measured) => measured.section === 'decisions' || wanted(measured.section),
    ),
  )
}

if (wanted('commands')) {
  const sandbox = await probeSandbox()
  if (sandbox.available && sandbox.kind === 'bubblewrap') {
    log('commands: `true` in the sandbox and outside it, alternating')
    await measure(async () =>
      commandFigures(await measureCommandSandbox({ ...plan.commands, log })),
    )
  } else {
    const reason = sandbox.available
      ? `the figure is bubblewrap's, and this machine has ${sandbox.kind}`
      : `no command sandbox here: ${sandbox.missing}`
    log(`skipped the command figures: ${reason}`)
    skipped.push({ section: 'commands', reason })
  }
}

if (wanted('gateway')) {
  log('gateway: the same MCP calls direct and through assent-gateway, alternating')
  await measure(async () => gatewayFigures(await measureGatewayOverhead({ ...plan.gateway, log })))
}

if (!wanted('consent-latency') && !wanted('workbench') && !wanted('startup')) {
  // Neither browser section was asked for: no host to start.
} else if (findChromium()) {
  ensureBuilt((line) => log(`bench: ${line}`))
  if (wanted('startup')) {
    // Before the shared host starts, so no other host runs meanwhile.
    log('startup: the CDP host started afresh until a room is drawn')
    await measure(async () =>
      firstRoomFigures(await measureFirstRoom({ starts: plan.memory.starts, log })),
    )
  }
  if (wanted('consent-latency') || wanted('workbench')) {
    const bench = await startBenchHost()
    try {
      chromium = bench.host.chromiumVersion
      if (wanted('consent-latency')) {
        await measure(async () =>
          consentFigures(await measureConsentLatency(bench, { runs: plan.consentRuns, log })),
        )
      }
      if (wanted('workbench')) {
        try {
          await measure(async () =>
            workbenchFigures(
              await measureWorkbench(bench, { ...plan.workbench, log }),
              !WORKBENCH_UI_FINAL,
            ),
          )
        } catch (error) {
          // The UI is being written: a change in it must not void every other
          // figure. The reason is recorded and printed.
          const reason = `the workbench measurement failed: ${(error as Error).message}`
          log(reason)
          skipped.push({ section: 'workbench', reason })
        }
      }
    } finally {
      await bench.close()
    }
  }
} else {
  for (const section of ['consent-latency', 'workbench', 'startup'] as const) {
    if (wanted(section)) skipped.push({ section, reason: CHROMIUM_MISSING })
  }
  log(`skipped the browser figures: ${CHROMIUM_MISSING}`)
}

for (const section of SECTIONS) {
  if (!wanted(section)) skipped.push({ section, reason: 'not asked for (--only)' })
}

const results = BenchResultsSchema.parse({
  schema: BENCH_RESULTS_SCHEMA_ID,
  startedAt: startedAt.toISOString(),
  finishedAt: new Date().toISOString(),
  quick: flags.quick,
  machine: {
    cores: availableParallelism(),
    cpuModel: cpus()[0]?.model.trim() ?? 'unknown',
    platform: `${process.platform}/${process.arch}`,
    totalMemoryBytes: totalmem(),
  },
  versions: { node: process.version, chromium },
  loadAverage: { start: loadAtStart, end: loadavg() as [number, number, number] },
  figures,
  skipped,
} satisfies BenchResults)

console.log('')
console.log(formatTable(results))
writeFileSync(output, `${JSON.stringify(results, null, 2)}\n`)
log(`wrote ${output}`)
