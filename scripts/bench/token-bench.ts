// Consent-token cost next to raw HMAC-SHA256, how flat it stays as the
// ledger fills, the longest single verify while a full ledger expires at
// once, and the ledger's memory at capacity. Used by `npm run bench` and
// `npm run bench:tokens`.
//
// Throughput: within each round every timed operation takes turns in slices
// of a few milliseconds (interleavedRates), so a change in machine load hits
// them alike, and each figure is a ratio within a round.
// - The main verifier keeps its default capacity (MAX_USED_NONCES) for the
//   whole run. Its injected clock advances 1 ms per pair (a virtual 1 000
//   decisions/s), so about 30 000 nonces are live and one expires per pair.
// - Flatness compares two verifiers of the same capacity (2 × 65 536), one
//   holding 5 live nonces (lifetime 5 ms, clock +1 ms per pair) and one
//   holding 65 536 (lifetime 32 768 ms, clock +1 ms every two pairs), each
//   filled before the first round.

import { createHmac, createSecretKey, randomBytes } from 'node:crypto'
import { performance } from 'node:perf_hooks'
import type { ConsentBinding } from '../../src/contracts/consent.ts'
import { NONCE_BYTES } from '../../src/consent/consent-nonces.ts'
import {
  ConsentTokenVerifier,
  MAX_USED_NONCES,
  consentSigningInput,
  mintConsentToken,
  parseConsentToken,
} from '../../src/consent/consent-token.ts'

const BATCH = 256
/** Live nonces in the large flatness ledger, and in the pause measurement. */
export const LARGE_LEDGER_NONCES = 65_536
export const SMALL_LEDGER_NONCES = 5

export interface TokenBenchOptions {
  rounds: number
  roundMs: number
  warmupMs: number
  onRound?: (round: TokenRound) => void
}

export interface TokenRound {
  round: number
  tokenPairsPerSec: number
  /** createHmac with a KeyObject imported once, digest as a Buffer: the
   *  raw HMAC the goal is stated in. */
  hmacOpsPerSec: number
  /** The same with the digest as base64url text (what tokens take). */
  hmacBase64urlOpsPerSec: number
  /** createHmac with a Buffer key, which Node imports again on every call. */
  hmacBufferKeyOpsPerSec: number
  /** Pairs/s against a ledger holding SMALL_LEDGER_NONCES live nonces. */
  smallLedgerPairsPerSec: number
  /** Pairs/s against a ledger holding LARGE_LEDGER_NONCES live nonces. */
  largeLedgerPairsPerSec: number
}

export interface TokenBenchResult {
  signedStringBytes: number
  rounds: TokenRound[]
  ledgerFinalSize: number
  largeLedgerSize: number
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

/** A slice of one operation before the next takes its turn. */
const SLICE_MS = 5

/**
 * Ops/s of each operation over one round in which they take turns in slices
 * of SLICE_MS, each for about `durationMs` in all: a change in the
 * machine's load during the round falls on all of them alike, so the ratio
 * of two (mint + verify in raw HMACs) moves far less between runs than
 * when each runs for its whole span in turn.
 */
export function interleavedRates(
  operations: readonly (() => void)[],
  durationMs: number,
): number[] {
  const counts = operations.map(() => 0)
  const spent = operations.map(() => 0)
  while (spent.some((ms) => ms < durationMs)) {
    operations.forEach((operation, index) => {
      if (spent[index]! >= durationMs) return
      const start = performance.now()
      let elapsed = 0
      while (elapsed < SLICE_MS) {
        for (let repeat = 0; repeat < SLICE_BATCH; repeat += 1) operation()
        counts[index]! += SLICE_BATCH
        elapsed = performance.now() - start
      }
      spent[index]! += elapsed
    })
  }
  return counts.map((count, index) => count / (spent[index]! / 1_000))
}
const SLICE_BATCH = 32

/**
 * Mint + verify pairs against one verifier whose clock moves 1 ms every
 * `pairsPerMs` pairs, with tokens of `lifetimeMs`: in steady state it holds
 * lifetimeMs × pairsPerMs live nonces. A fresh grant object per pair, as each
 * request rebuilds its subject: nothing can be cached on the object between
 * mint and verify.
 */
function pairRunner(options: {
  key: Buffer
  grant: ConsentBinding
  lifetimeMs: number
  pairsPerMs: number
  maxUsedNonces?: number
}) {
  const { key, grant, lifetimeMs, pairsPerMs } = options
  let clock = Date.now()
  let pairs = 0
  let refused = 0
  const verifier = new ConsentTokenVerifier({
    key,
    now: () => clock,
    ...(options.maxUsedNonces === undefined ? {} : { maxUsedNonces: options.maxUsedNonces }),
  })
  const pair = () => {
    pairs += 1
    if (pairs % pairsPerMs === 0) clock += 1
    const token = mintConsentToken({ key, binding: { ...grant }, now: clock, lifetimeMs })
    if (!verifier.verify(token, { ...grant })) refused += 1
  }
  return { pair, verifier, refused: () => refused }
}

export function measureTokenThroughput(options: TokenBenchOptions): TokenBenchResult {
  const key = randomBytes(32)
  const keyObject = createSecretKey(key)
  const grant = sampleGrant()

  const main = pairRunner({ key, grant, lifetimeMs: 30_000, pairsPerMs: 1 })
  const flatCapacity = 2 * LARGE_LEDGER_NONCES
  const small = pairRunner({
    key,
    grant,
    lifetimeMs: SMALL_LEDGER_NONCES,
    pairsPerMs: 1,
    maxUsedNonces: flatCapacity,
  })
  const large = pairRunner({
    key,
    grant,
    lifetimeMs: LARGE_LEDGER_NONCES / 2,
    pairsPerMs: 2,
    maxUsedNonces: flatCapacity,
  })
  // Fill the large ledger to its steady state before anything is timed.
  for (let index = 0; index < LARGE_LEDGER_NONCES + BATCH; index += 1) large.pair()

  const sample = parseConsentToken(mintConsentToken({ key, binding: grant, now: Date.now() }))
  if (sample === null) throw new Error('minted token does not parse')
  const signedString = consentSigningInput(grant, sample.expiresAtMs, sample.nonce)
  const signedStringBytes = Buffer.byteLength(signedString, 'utf8')
  // Same length and the same string-in, digest-out shape as the token's HMAC.
  const hmacInput = randomBytes(signedStringBytes).toString('latin1')
  const rawHmac = () => {
    createHmac('sha256', keyObject).update(hmacInput, 'latin1').digest()
  }
  const rawHmacBase64url = () => {
    createHmac('sha256', keyObject).update(hmacInput, 'latin1').digest('base64url')
  }
  const rawHmacBufferKey = () => {
    createHmac('sha256', key).update(hmacInput, 'latin1').digest()
  }

  const operations = [
    main.pair,
    rawHmac,
    rawHmacBase64url,
    rawHmacBufferKey,
    small.pair,
    large.pair,
  ]
  for (const operation of operations) opsPerSecond(operation, options.warmupMs)

  const rounds: TokenRound[] = []
  for (let round = 1; round <= options.rounds; round += 1) {
    const [pairs, hmac, hmacBase64url, hmacBufferKey, smallPairs, largePairs] = interleavedRates(
      operations,
      options.roundMs,
    )
    const result: TokenRound = {
      round,
      tokenPairsPerSec: pairs!,
      hmacOpsPerSec: hmac!,
      hmacBase64urlOpsPerSec: hmacBase64url!,
      hmacBufferKeyOpsPerSec: hmacBufferKey!,
      smallLedgerPairsPerSec: smallPairs!,
      largeLedgerPairsPerSec: largePairs!,
    }
    rounds.push(result)
    options.onRound?.(result)
  }
  // A pair that failed to verify took a shorter path; its timing would
  // flatter the figure, so the run is void rather than reported.
  const refused = main.refused() + small.refused() + large.refused()
  if (refused > 0) throw new Error(`${refused} freshly minted tokens were refused`)
  // Two nonces expire with each millisecond the clock moves, and the pair
  // that moves it may see them before or after: ±2 of the steady state.
  const largeLedgerSize = large.verifier.ledgerSize
  if (Math.abs(largeLedgerSize - LARGE_LEDGER_NONCES) > 2) {
    throw new Error(`the large ledger held ${largeLedgerSize} nonces, not ${LARGE_LEDGER_NONCES}`)
  }
  return {
    signedStringBytes,
    rounds,
    ledgerFinalSize: main.verifier.ledgerSize,
    largeLedgerSize,
  }
}

export interface VerifyPauseResult {
  /** The longest single verify call, per repeat. */
  longestMs: number[]
  /** Verify calls timed per repeat: until the expired entries were gone. */
  calls: number[]
}

/**
 * The longest single `verify` while a full ledger expires all at once: a
 * verifier at its default capacity is filled with MAX_USED_NONCES tokens
 * sharing one expiry, its clock moves past it, and fresh tokens are verified
 * one by one, each timed, until every expired entry has been forgotten.
 * Every verify must accept: a refused token would take a shorter path.
 */
export function measureVerifyPause(repeats: number): VerifyPauseResult {
  const key = randomBytes(32)
  const grant = sampleGrant()
  const longestMs: number[] = []
  const calls: number[] = []
  for (let repeat = 0; repeat < repeats; repeat += 1) {
    let clock = Date.now()
    const verifier = new ConsentTokenVerifier({ key, now: () => clock })
    for (let index = 0; index < MAX_USED_NONCES; index += 1) {
      if (!verifier.verify(mintConsentToken({ key, binding: grant, now: clock }), grant)) {
        throw new Error('a fresh token was refused while filling the ledger')
      }
    }
    clock += 30_000
    let longest = 0
    let timed = 0
    // Each call adds one nonce, so the ledger is back to its fresh tokens
    // once its size equals the calls made.
    while (verifier.ledgerSize > timed) {
      const token = mintConsentToken({ key, binding: grant, now: clock })
      const start = performance.now()
      const accepted = verifier.verify(token, grant)
      const elapsed = performance.now() - start
      if (!accepted) throw new Error('a fresh token was refused while the ledger expired')
      timed += 1
      if (elapsed > longest) longest = elapsed
    }
    // performance.now() may tick coarser than one verify; never report 0.
    longestMs.push(Math.max(longest, 0.001))
    calls.push(timed)
  }
  return { longestMs, calls }
}

/**
 * Memory held by a verifier whose ledger is full: MAX_USED_NONCES unexpired
 * nonces. Heap and array buffers (the ledger's typed arrays live outside the
 * heap) after `gc()`, before the verifier is made and after it is full.
 * Needs `--expose-gc`. Returns bytes per repeat.
 */
export function measureLedgerMemory(repeats: number): number[] {
  const gc = (globalThis as { gc?: () => void }).gc
  if (!gc) throw new Error('the ledger memory figure needs node --expose-gc')
  const key = randomBytes(32)
  const grant = sampleGrant()
  const now = Date.now()
  const held = () => {
    gc()
    gc()
    const usage = process.memoryUsage()
    return usage.heapUsed + usage.arrayBuffers
  }
  // Each repeat's verifier lives only in that call's frame: one kept in a
  // slot of this loop's frame past its repeat was counted in the next
  // "before" and freed before its "after", and every other repeat came out
  // near 0 B per nonce.
  const filled = (before: number): number => {
    const verifier = new ConsentTokenVerifier({ key, now: () => now })
    // Each token is minted just before it is presented and is garbage after,
    // unless the verifier keeps part of it: that is counted, as it would be
    // for a token read from a request header.
    for (let index = 0; index < MAX_USED_NONCES; index += 1) {
      if (!verifier.verify(mintConsentToken({ key, binding: grant, now }), grant)) {
        throw new Error('a fresh token was refused')
      }
    }
    const after = held()
    if (verifier.ledgerSize !== MAX_USED_NONCES) throw new Error('the ledger is not full')
    return after - before
  }
  const deltas: number[] = []
  for (let repeat = 0; repeat < repeats; repeat += 1) {
    const delta = filled(held())
    // 16 bytes of nonce each is the least any ledger can keep them in: a
    // smaller figure means the reading missed the ledger, not that it is small.
    if (delta < MAX_USED_NONCES * NONCE_BYTES) {
      throw new Error(`the ledger's memory was not seen (${delta} bytes)`)
    }
    deltas.push(delta)
  }
  return deltas
}
