// Consent-token throughput next to raw HMAC-SHA256, and the verifier ledger's
// memory at capacity. Used by `npm run bench` and `npm run bench:tokens`.
//
// Throughput: one verifier keeps its default capacity (MAX_USED_NONCES) for
// the whole run. Its injected clock advances 1 ms per pair (a virtual 1 000
// decisions/s), so the ledger reaches capacity after 65 536 pairs and from
// then on evicts expired nonces as a real one would; the figure includes that
// eviction cost. Rounds of token pairs and of raw HMACs are interleaved so a
// change in machine load hits both alike.

import { createHmac, createSecretKey, randomBytes } from 'node:crypto'
import { performance } from 'node:perf_hooks'
import type { ConsentBinding } from '../../src/contracts/consent.ts'
import {
  ConsentTokenVerifier,
  MAX_USED_NONCES,
  consentSigningInput,
  mintConsentToken,
  parseConsentToken,
} from '../../src/consent/consent-token.ts'

const BATCH = 256

export interface TokenBenchOptions {
  rounds: number
  roundMs: number
  warmupMs: number
  onRound?: (round: TokenRound) => void
}

export interface TokenRound {
  round: number
  tokenPairsPerSec: number
  /** createHmac with a KeyObject imported once: the cheapest HMAC Node has. */
  hmacOpsPerSec: number
  /** createHmac with a Buffer key, which Node imports again on every call. */
  hmacBufferKeyOpsPerSec: number
}

export interface TokenBenchResult {
  signedStringBytes: number
  rounds: TokenRound[]
  ledgerFinalSize: number
}

/** A realistic approval grant: ids of the app's length, a SHA-256 digest. */
export function sampleGrant(): ConsentBinding {
  return {
    kind: 'approval',
    subject: {
      approvalId: 'appr_01J8ZK4Q9V6M3T2R7X5N0B1C4D',
      decision: 'allow-once',
      actionDigest: randomBytes(32).toString('hex'),
      instanceId: 'inst_01J8ZK2F7H4P6W9Y3S1A5E8G0K',
    },
  }
}

/** Runs `operation` in batches until `durationMs` has passed; returns ops/s. */
export function opsPerSecond(operation: () => void, durationMs: number): number {
  let operations = 0
  const start = performance.now()
  for (;;) {
    for (let index = 0; index < BATCH; index += 1) operation()
    operations += BATCH
    const elapsed = performance.now() - start
    if (elapsed >= durationMs) return operations / (elapsed / 1_000)
  }
}

export function measureTokenThroughput(options: TokenBenchOptions): TokenBenchResult {
  const key = randomBytes(32)
  const keyObject = createSecretKey(key)
  const grant = sampleGrant()

  let clock = Date.now()
  const verifier = new ConsentTokenVerifier({ key, now: () => clock })
  let refused = 0
  const tokenPair = () => {
    clock += 1
    // A fresh grant object per pair, as each request rebuilds its subject:
    // nothing can be cached on the object between mint and verify.
    const token = mintConsentToken({ key, binding: { ...grant }, now: clock })
    if (!verifier.verify(token, { ...grant })) refused += 1
  }

  const sample = parseConsentToken(mintConsentToken({ key, binding: grant, now: clock }))
  if (sample === null) throw new Error('minted token does not parse')
  const signedString = consentSigningInput(grant, sample.expiresAtMs, sample.nonce)
  const signedStringBytes = Buffer.byteLength(signedString, 'utf8')
  // Same length and the same string-in, digest-out shape as the token's HMAC.
  const hmacInput = randomBytes(signedStringBytes).toString('latin1')
  const rawHmac = () => {
    createHmac('sha256', keyObject).update(hmacInput, 'latin1').digest()
  }
  const rawHmacBufferKey = () => {
    createHmac('sha256', key).update(hmacInput, 'latin1').digest()
  }

  opsPerSecond(tokenPair, options.warmupMs)
  opsPerSecond(rawHmac, options.warmupMs)
  opsPerSecond(rawHmacBufferKey, options.warmupMs)

  const rounds: TokenRound[] = []
  for (let round = 1; round <= options.rounds; round += 1) {
    const result: TokenRound = {
      round,
      tokenPairsPerSec: opsPerSecond(tokenPair, options.roundMs),
      hmacOpsPerSec: opsPerSecond(rawHmac, options.roundMs),
      hmacBufferKeyOpsPerSec: opsPerSecond(rawHmacBufferKey, options.roundMs),
    }
    rounds.push(result)
    options.onRound?.(result)
  }
  // A pair that failed to verify took a shorter path; its timing would
  // flatter the figure, so the run is void rather than reported.
  if (refused > 0) throw new Error(`${refused} freshly minted tokens were refused`)
  return { signedStringBytes, rounds, ledgerFinalSize: verifier.ledgerSize }
}

/**
 * Heap held by a verifier whose ledger is full: MAX_USED_NONCES unexpired
 * nonces (map entries and heap entries). Needs `--expose-gc`; each repeat
 * fills a fresh verifier. Returns the heap delta in bytes per repeat.
 */
export function measureLedgerHeap(repeats: number): number[] {
  const gc = (globalThis as { gc?: () => void }).gc
  if (!gc) throw new Error('the ledger heap figure needs node --expose-gc')
  const key = randomBytes(32)
  const grant = sampleGrant()
  const now = Date.now()
  const deltas: number[] = []
  for (let repeat = 0; repeat < repeats; repeat += 1) {
    const verifier = new ConsentTokenVerifier({ key, now: () => now })
    gc()
    gc()
    const before = process.memoryUsage().heapUsed
    // Each token is minted just before it is presented and is garbage after,
    // unless the verifier keeps part of it: that is counted, as it would be
    // for a token read from a request header.
    for (let index = 0; index < MAX_USED_NONCES; index += 1) {
      if (!verifier.verify(mintConsentToken({ key, binding: grant, now }), grant)) {
        throw new Error('a fresh token was refused')
      }
    }
    gc()
    gc()
    const after = process.memoryUsage().heapUsed
    if (verifier.ledgerSize !== MAX_USED_NONCES) throw new Error('the ledger is not full')
    deltas.push(after - before)
  }
  return deltas
}
