// Consent-token throughput: fresh mint + verify pairs per second, against raw
// HMAC-SHA256 over an input the size of a token's signed string, in one run.
//
//   node scripts/bench/tokens.ts [--json <file>]
//
// The verifier keeps its default capacity (MAX_USED_NONCES) for the whole run.
// Its injected clock advances 1 ms per pair (a virtual 1 000 decisions/s), so
// the ledger reaches capacity after 65 536 pairs and from then on evicts
// expired nonces as a real one would; no verifier is ever recreated, and the
// figure includes that eviction cost. No timed assertions: this only reports.

import { createHmac, randomBytes } from 'node:crypto'
import { mkdirSync, writeFileSync } from 'node:fs'
import { availableParallelism, cpus } from 'node:os'
import { dirname } from 'node:path'
import { performance } from 'node:perf_hooks'
import { parseArgs } from 'node:util'
import type { ConsentGrant } from '../../src/runtime/contracts/consent.ts'
import {
  CONSENT_LIFETIME_MS,
  ConsentTokenVerifier,
  MAX_USED_NONCES,
  consentSigningInput,
  mintConsentToken,
  parseConsentToken,
} from '../../src/runtime/consent/consent-token.ts'

const ROUNDS = 5
const ROUND_MS = 1_000
const WARMUP_MS = 300
const BATCH = 256

const { values: flags } = parseArgs({ options: { json: { type: 'string' } }, strict: true })

const key = randomBytes(32)
const grant: ConsentGrant = {
  kind: 'approval',
  subject: {
    approvalId: 'appr_01J8ZK4Q9V6M3T2R7X5N0B1C4D',
    decision: 'allow-once',
    actionDigest: randomBytes(32).toString('hex'),
    instanceId: 'inst_01J8ZK2F7H4P6W9Y3S1A5E8G0K',
  },
}

let clock = Date.now()
const verifier = new ConsentTokenVerifier({ key, now: () => clock })
let refused = 0

function tokenPair(): void {
  clock += 1
  const token = mintConsentToken({ key, grant, now: clock })
  if (!verifier.verify(token, grant)) refused += 1
}

const sample = parseConsentToken(mintConsentToken({ key, grant, now: clock }))
if (sample === null) throw new Error('minted token does not parse')
const signedBytes = Buffer.byteLength(
  consentSigningInput(grant, sample.expiresAtMs, sample.nonce),
  'utf8',
)
const hmacInput = randomBytes(signedBytes)

function rawHmac(): void {
  createHmac('sha256', key).update(hmacInput).digest()
}

/** Runs `operation` in batches until `durationMs` has passed; returns ops/s. */
function measure(operation: () => void, durationMs: number): number {
  let operations = 0
  const start = performance.now()
  for (;;) {
    for (let index = 0; index < BATCH; index += 1) operation()
    operations += BATCH
    const elapsed = performance.now() - start
    if (elapsed >= durationMs) return operations / (elapsed / 1_000)
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

const cores = availableParallelism()
const cpuModel = cpus()[0]?.model.trim() ?? 'unknown'
console.log(
  `node ${process.version} on ${process.platform}/${process.arch}, ${cores} cores (${cpuModel})`,
)
console.log(
  `${ROUNDS} rounds of ${ROUND_MS} ms each, interleaved, after ${WARMUP_MS} ms warm-up; ` +
    `signed string ${signedBytes} bytes; ledger capacity ${MAX_USED_NONCES}, ` +
    `lifetime ${CONSENT_LIFETIME_MS} ms, clock +1 ms per pair`,
)

measure(tokenPair, WARMUP_MS)
measure(rawHmac, WARMUP_MS)

const tokenRounds: number[] = []
const hmacRounds: number[] = []
for (let round = 1; round <= ROUNDS; round += 1) {
  tokenRounds.push(measure(tokenPair, ROUND_MS))
  hmacRounds.push(measure(rawHmac, ROUND_MS))
  console.log(
    `round ${round}: ${Math.round(tokenRounds.at(-1)!)} mint+verify/s, ` +
      `${Math.round(hmacRounds.at(-1)!)} HMAC/s`,
  )
}

// A pair that failed to verify took a shorter path; its timing would flatter
// the figure, so the run is void rather than reported.
if (refused > 0) throw new Error(`${refused} freshly minted tokens were refused`)

const tokenPairsPerSec = median(tokenRounds)
const hmacOpsPerSec = median(hmacRounds)
const ratio = hmacOpsPerSec / tokenPairsPerSec
console.log(`median: ${Math.round(tokenPairsPerSec)} mint+verify pairs/s`)
console.log(`median: ${Math.round(hmacOpsPerSec)} raw HMAC-SHA256/s over ${signedBytes} bytes`)
console.log(
  `mint+verify costs ${ratio.toFixed(1)} raw HMACs (two of them are the HMACs themselves)`,
)
console.log(`ledger held ${verifier.ledgerSize} nonces at the end`)

if (flags.json !== undefined) {
  const report = {
    date: new Date().toISOString(),
    node: process.version,
    platform: `${process.platform}/${process.arch}`,
    cores,
    cpuModel,
    rounds: ROUNDS,
    roundMs: ROUND_MS,
    signedStringBytes: signedBytes,
    ledger: {
      capacity: MAX_USED_NONCES,
      strategy:
        'one verifier for the whole run; injected clock +1 ms per pair so expired nonces are evicted',
      finalSize: verifier.ledgerSize,
    },
    tokenPairsPerSec: { median: tokenPairsPerSec, rounds: tokenRounds },
    hmacOpsPerSec: { median: hmacOpsPerSec, rounds: hmacRounds },
    mintVerifyCostInRawHmacs: ratio,
  }
  mkdirSync(dirname(flags.json), { recursive: true })
  writeFileSync(flags.json, `${JSON.stringify(report, null, 2)}\n`)
  console.log(`wrote ${flags.json}`)
}
