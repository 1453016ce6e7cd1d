// Consent-token throughput on its own: fresh mint + verify pairs per second,
// against raw HMAC-SHA256 over an input the size of a token's signed string,
// in one run. `npm run bench` runs the same measurement among the others.
//
//   node scripts/bench/tokens.ts [--json <file>]
//
// No timed assertions: this only reports.

import { mkdirSync, writeFileSync } from 'node:fs'
import { availableParallelism, cpus } from 'node:os'
import { dirname } from 'node:path'
import { parseArgs } from 'node:util'
import { CONSENT_LIFETIME_MS, MAX_USED_NONCES } from '../../src/consent/consent-token.ts'
import { median } from './stats.ts'
import { measureTokenThroughput } from './token-bench.ts'

const ROUNDS = 5
const ROUND_MS = 1_000
const WARMUP_MS = 300

const { values: flags } = parseArgs({ options: { json: { type: 'string' } }, strict: true })

const cores = availableParallelism()
const cpuModel = cpus()[0]?.model.trim() ?? 'unknown'
console.log(
  `node ${process.version} on ${process.platform}/${process.arch}, ${cores} cores (${cpuModel})`,
)
console.log(
  `${ROUNDS} rounds of ${ROUND_MS} ms each, interleaved, after ${WARMUP_MS} ms warm-up; ` +
    `ledger capacity ${MAX_USED_NONCES}, lifetime ${CONSENT_LIFETIME_MS} ms, clock +1 ms per pair`,
)

const result = measureTokenThroughput({
  rounds: ROUNDS,
  roundMs: ROUND_MS,
  warmupMs: WARMUP_MS,
  onRound: (round) =>
    console.log(
      `round ${round.round}: ${Math.round(round.tokenPairsPerSec)} mint+verify/s, ` +
        `${Math.round(round.hmacOpsPerSec)} HMAC/s (KeyObject), ` +
        `${Math.round(round.hmacBufferKeyOpsPerSec)} HMAC/s (Buffer key)`,
    ),
})

const tokenPairsPerSec = median(result.rounds.map((round) => round.tokenPairsPerSec))
const hmacOpsPerSec = median(result.rounds.map((round) => round.hmacOpsPerSec))
const hmacBufferKeyOpsPerSec = median(result.rounds.map((round) => round.hmacBufferKeyOpsPerSec))
const ratio = median(result.rounds.map((round) => round.hmacOpsPerSec / round.tokenPairsPerSec))
const bytes = result.signedStringBytes
console.log(`median: ${Math.round(tokenPairsPerSec)} mint+verify pairs/s`)
console.log(
  `median: ${Math.round(hmacOpsPerSec)} raw HMAC-SHA256/s over ${bytes} bytes (KeyObject)`,
)
console.log(`median: ${Math.round(hmacBufferKeyOpsPerSec)} raw HMAC-SHA256/s (Buffer key)`)
console.log(
  `mint+verify costs ${ratio.toFixed(1)} raw HMACs (two of them are the HMACs themselves)`,
)
console.log(`ledger held ${result.ledgerFinalSize} nonces at the end`)

if (flags.json !== undefined) {
  const report = {
    date: new Date().toISOString(),
    node: process.version,
    platform: `${process.platform}/${process.arch}`,
    cores,
    cpuModel,
    rounds: ROUNDS,
    roundMs: ROUND_MS,
    signedStringBytes: bytes,
    ledger: {
      capacity: MAX_USED_NONCES,
      strategy:
        'one verifier for the whole run; injected clock +1 ms per pair so expired nonces are evicted',
      finalSize: result.ledgerFinalSize,
    },
    tokenPairsPerSec: {
      median: tokenPairsPerSec,
      rounds: result.rounds.map((r) => r.tokenPairsPerSec),
    },
    hmacOpsPerSec: { median: hmacOpsPerSec, rounds: result.rounds.map((r) => r.hmacOpsPerSec) },
    hmacBufferKeyOpsPerSec: {
      median: hmacBufferKeyOpsPerSec,
      rounds: result.rounds.map((r) => r.hmacBufferKeyOpsPerSec),
    },
    mintVerifyCostInRawHmacs: ratio,
  }
  mkdirSync(dirname(flags.json), { recursive: true })
  writeFileSync(flags.json, `${JSON.stringify(report, null, 2)}\n`)
  console.log(`wrote ${flags.json}`)
}
