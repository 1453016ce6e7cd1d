// The consent-token figures on their own, as `npm run bench` measures them:
// mint + verify next to raw HMAC-SHA256 (and how flat that stays from 5 to
// 65 536 live nonces), the longest verify while a full ledger expires at
// once, and the ledger's memory at capacity.
//
//   node --expose-gc scripts/bench/tokens.ts [--json <file>]
//
// No timed assertions: this only reports.

import { mkdirSync, writeFileSync } from 'node:fs'
import { availableParallelism, cpus, loadavg } from 'node:os'
import { dirname } from 'node:path'
import { parseArgs } from 'node:util'
import { MAX_USED_NONCES } from '../../src/consent/consent-token.ts'
import { ledgerFigures, tokenFigures, verifyPauseFigures } from './bench-figures.ts'
import { measureUnderLoad } from './others-load.ts'
import type { Figure, MeasuredFigure } from './results-schema.ts'
import { formatNumber } from './table.ts'
import { measureLedgerMemory, measureTokenThroughput, measureVerifyPause } from './token-bench.ts'

const ROUNDS = 9
const ROUND_MS = 700
const WARMUP_MS = 300

const { values: flags } = parseArgs({ options: { json: { type: 'string' } }, strict: true })

const cores = availableParallelism()
const cpuModel = cpus()[0]?.model.trim() ?? 'unknown'
const loadAtStart = loadavg()
console.log(
  `node ${process.version} on ${process.platform}/${process.arch}, ${cores} cores (${cpuModel}), ` +
    `load average ${loadAtStart.map((value) => value.toFixed(2)).join(' ')}`,
)

const figures: Figure[] = []
async function measure(run: () => MeasuredFigure[]): Promise<void> {
  figures.push(...(await measureUnderLoad(run, cores)).figures)
}

await measure(() =>
  tokenFigures(
    measureTokenThroughput({
      rounds: ROUNDS,
      roundMs: ROUND_MS,
      warmupMs: WARMUP_MS,
      onRound: (round) =>
        console.log(
          `round ${round.round}: ${Math.round(round.tokenPairsPerSec)} mint+verify/s, ` +
            `${Math.round(round.hmacOpsPerSec)} HMAC/s; ` +
            `${Math.round(round.smallLedgerPairsPerSec)} / ${Math.round(round.largeLedgerPairsPerSec)} pairs/s at 5 / 65 536 live nonces`,
        ),
    }),
  ),
)
await measure(() => verifyPauseFigures(measureVerifyPause(3)))
await measure(() => ledgerFigures(measureLedgerMemory(3), MAX_USED_NONCES))

for (const figure of figures) {
  const goal = figure.goal
    ? figure.goal.met === null
      ? `  (unreliable: load over ${cores} cores) ${figure.goal.text}`
      : `  ${figure.goal.met ? 'met' : 'MISSED'}: ${figure.goal.text}`
    : ''
  console.log(`${figure.id}: ${formatNumber(figure.median)} ${figure.unit}${goal}`)
}
console.log(
  `load average at the end ${loadavg()
    .map((value) => value.toFixed(2))
    .join(' ')}`,
)

if (flags.json !== undefined) {
  const report = {
    date: new Date().toISOString(),
    node: process.version,
    platform: `${process.platform}/${process.arch}`,
    cores,
    cpuModel,
    loadAverage: { start: loadAtStart, end: loadavg() },
    figures,
  }
  mkdirSync(dirname(flags.json), { recursive: true })
  writeFileSync(flags.json, `${JSON.stringify(report, null, 2)}\n`)
  console.log(`wrote ${flags.json}`)
}
