import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startBenchRuntime, type BenchRuntime } from '../scripts/bench/bench-runtime.ts'
import { createRooms, decideConcurrently, toolsFinished } from '../scripts/bench/decision-bench.ts'
import { freeLoopbackPort, heapAfterGc } from '../scripts/bench/footprint-bench.ts'
import { createPendingApprovals } from '../scripts/bench/runtime-fixtures.ts'
import { turnsDone } from '../scripts/bench/same-rows-limit.ts'
import { scaledMs } from '../scripts/test-timing.ts'

// A runtime left running for a week must be as light on the last day as on
// the first: whatever a decided approval leaves in memory, it leaves once.
// 50 000 allow-once decisions (each a turn whose write runs), in batches of
// 5 000; after each batch the runtime child's heap is read after two full
// garbage collections (through its inspector, on loopback). The heap's
// growth per decision over the batches must be indistinguishable from
// nothing: the least-squares slope may not exceed three standard errors of
// itself (the samples' own noise) plus 32 bytes a decision (1.5 MiB over
// the whole soak). A map keyed by approval id that is never emptied costs
// far more than that per decision. The first batch is left out of the fit:
// caches that fill once (compiled statements, JIT code) fill there.
//
// It runs in `npm run test:stress` only (ASSENT_STRESS=1): at about 100
// decisions a second on a busy two-core machine it takes 15 to 30 minutes.

const BATCHES = 10
const PER_BATCH = 5_000
const ROOMS = 10
const CLIENTS = 10
/** Per decision, what the slope may show beyond its own noise. */
const ALLOWED_BYTES_PER_DECISION = 32

let runtime: BenchRuntime
let root: string
let inspectorPort: number

/** Least-squares slope of y over x, with its standard error. */
function slopeOf(points: readonly { x: number; y: number }[]): { slope: number; error: number } {
  const n = points.length
  const meanX = points.reduce((sum, point) => sum + point.x, 0) / n
  const meanY = points.reduce((sum, point) => sum + point.y, 0) / n
  const sxx = points.reduce((sum, point) => sum + (point.x - meanX) ** 2, 0)
  const sxy = points.reduce((sum, point) => sum + (point.x - meanX) * (point.y - meanY), 0)
  const slope = sxy / sxx
  const intercept = meanY - slope * meanX
  const residuals = points.reduce(
    (sum, point) => sum + (point.y - (intercept + slope * point.x)) ** 2,
    0,
  )
  return { slope, error: Math.sqrt(residuals / (n - 2) / sxx) }
}

describe('a runtime deciding 50 000 approvals', () => {
  beforeAll(async () => {
    // tmpfs where there is one: the soak is about memory, not fsync.
    root = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'assent-soak-'))
    inspectorPort = await freeLoopbackPort()
    runtime = await startBenchRuntime({
      approvalTtlMs: 86_400_000,
      root,
      nodeFlags: [`--inspect=127.0.0.1:${inspectorPort}`],
    })
  })

  afterAll(async () => {
    await runtime?.close()
    if (root) rmSync(root, { recursive: true, force: true })
  })

  it(
    'keeps nothing per decided approval: the heap after GC does not grow with the decisions',
    async () => {
      const roomIds = await createRooms(runtime, runtime.workspace, ROOMS)
      const pid = runtime.pid()
      if (pid === undefined) throw new Error('the runtime has no pid')
      const samples: { x: number; y: number }[] = []
      for (let batch = 1; batch <= BATCHES; batch += 1) {
        const queue = await createPendingApprovals(runtime, roomIds, PER_BATCH, `b${batch}-`)
        for (let taken = 0; taken < queue.length; taken += 1_000) {
          await decideConcurrently(runtime, queue.slice(taken, taken + 1_000), CLIENTS)
        }
        await toolsFinished(runtime.workspace, batch * PER_BATCH)
        await turnsDone(
          runtime.dataDir,
          queue.map((approval) => approval.id),
          scaledMs(600_000),
        )
        const heap = await heapAfterGc(inspectorPort, pid)
        samples.push({ x: batch * PER_BATCH, y: heap.bytes })
        console.log(
          `soak: ${batch * PER_BATCH} decisions, heap after GC ${(heap.bytes / 2 ** 20).toFixed(2)} MiB, resident ${(heap.rss / 2 ** 20).toFixed(0)} MiB`,
        )
      }
      const { slope, error } = slopeOf(samples.slice(1))
      console.log(
        `soak: heap slope ${slope.toFixed(1)} B per decision (standard error ${error.toFixed(1)}), ` +
          `${((slope * BATCHES * PER_BATCH) / 2 ** 20).toFixed(2)} MiB over ${BATCHES * PER_BATCH} decisions`,
      )
      expect(slope).toBeLessThanOrEqual(3 * error + ALLOWED_BYTES_PER_DECISION)
    },
    scaledMs(3 * 60 * 60 * 1_000),
  )
})
