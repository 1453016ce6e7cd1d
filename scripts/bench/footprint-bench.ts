// The runtime's footprint: resident memory idle, heap held per pending
// approval, heap left behind once approvals are decided and only stored,
// and the time from spawning the runtime to its `ready` with a long history
// on disk.
//
// The runtime is started as main starts it: the built entry
// (`out/main/runtime.js`, what Electron's utilityProcess forks) in a Node
// child with an IPC channel, its init over that channel. Heap readings come
// from the child's own V8 through the inspector protocol (a loopback port
// given with `--inspect` for those readings only): two full garbage
// collections, then `process.memoryUsage()`. Resident memory is `VmRSS`
// from /proc, read from a child started without the inspector.

import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { setTimeout as sleep } from 'node:timers/promises'
import { FileSecretStore } from '../../src/main/core/file-secret-store.ts'
import { RollbackAnchorKeeper } from '../../src/main/core/rollback-anchor-keeper.ts'
import { RuntimeClient } from '../../src/main/core/runtime-client.ts'
import { ChildProcessLauncher } from '../../src/main/core/runtime-launcher.ts'
import { RuntimeSupervisor } from '../../src/main/core/runtime-supervisor.ts'
import { PROJECT_ROOT } from '../../src/main/cdp/built-assets.ts'
import { builtPath } from '../../src/main/electron/app-layout.ts'
import { createRooms, decideConcurrently, toolsFinished } from './decision-bench.ts'
import { turnsDone } from './same-rows-limit.ts'
import {
  createPendingApprovals,
  residentBytes,
  residentSamples,
  type RuntimeAccess,
} from './runtime-fixtures.ts'

/** What main forks in the app (src/main/electron/app-layout.ts). */
export const BUILT_RUNTIME_ENTRY = builtPath(PROJECT_ROOT, 'runtimeEntry')

// Long enough that nothing expires while thousands are created on a slow
// machine: an expired approval would take a shorter path.
const APPROVAL_TTL_MS = 6 * 60 * 60 * 1_000
// After `ready`, what the runtime does once (the first sweep, the lazy
// imports of idle timers) has happened by then.
const SETTLE_MS = 1_000

export interface FootprintOptions {
  /** Approvals created pending, then decided and stored (10 000). */
  approvals: number
  rooms: number
  /** Decisions per round while deciding them all at 10 clients. */
  perRound: number
  /** Starts timed with the full history on disk. */
  starts: number
  /** Node flags for the timed starts only, e.g. `--cpu-prof` to see where
   *  the start's time goes. */
  startNodeFlags?: readonly string[]
  log: (line: string) => void
}

export interface HeapReading {
  /** V8 heap in use plus memory outside it that V8 objects hold (buffers). */
  bytes: number
  rss: number
}

export interface FootprintResult {
  approvals: number
  dataDirOnTmpfs: boolean
  /** VmRSS of a fresh runtime, idle, several readings. */
  idleRss: number[]
  /** Heap after GC: idle, with every approval pending, with all decided. */
  heap: { idle: HeapReading; pending: HeapReading; stored: HeapReading }
  /** VmRSS with all pending, and with all decided (inspector attached). */
  memoryBackedDecisionsPerSec: number[]
  /** Spawn → `ready` with every approval decided and stored, per start. */
  readyMs: number[]
  /** The child's own CPU time (user + system) from spawn to `ready`: what
   *  the start costs whatever else the machine is doing. */
  readyCpuMs: number[]
  /** VmRSS after each of those starts, idle. */
  idleRssWithHistory: number[]
}

export async function measureFootprint(options: FootprintOptions): Promise<FootprintResult> {
  if (!existsSync(BUILT_RUNTIME_ENTRY)) {
    throw new Error(`${BUILT_RUNTIME_ENTRY} is missing: run npm run build`)
  }
  const dataDirOnTmpfs = existsSync('/dev/shm')
  const root = mkdtempSync(join(dataDirOnTmpfs ? '/dev/shm' : tmpdir(), 'assent-footprint-'))
  const workspace = join(root, 'workspace')
  mkdirSync(workspace)
  const dataDir = join(root, 'data')
  const integrityKey = randomBytes(32)
  const rollbackAnchor = new RollbackAnchorKeeper(new FileSecretStore(), dataDir)
  const supervisorWith = (flags: readonly string[]) =>
    new RuntimeSupervisor({
      launcher: new ChildProcessLauncher(BUILT_RUNTIME_ENTRY, process.env, flags),
      dataDir,
      integrityKey,
      rollbackAnchor,
      restart: false,
      approvalTtlMs: APPROVAL_TTL_MS,
    })
  try {
    // 1. A fresh runtime, nothing attached: its resident memory idle.
    const fresh = supervisorWith([])
    await fresh.start()
    await sleep(SETTLE_MS)
    const idleRss = await residentSamples(pidOf(fresh))
    await fresh.stop()
    options.log(`footprint: fresh runtime idle at ${mib(idleRss[0]!)} MiB resident`)

    // 2. The same data folder under the inspector: heap after GC idle, with
    //    every approval pending, and once all of them are decided.
    const port = await freeLoopbackPort()
    const inspected = supervisorWith([`--inspect=127.0.0.1:${port}`])
    const connection = await inspected.start()
    const runtime: RuntimeAccess = {
      client: new RuntimeClient(() => inspected.current),
      connection: () => inspected.current ?? connection,
    }
    const heapOf = async () => heapAfterGc(port, pidOf(inspected))
    let heap: FootprintResult['heap']
    const memoryBackedDecisionsPerSec: number[] = []
    try {
      await sleep(SETTLE_MS)
      const idle = await heapOf()
      const roomIds = await createRooms(runtime, workspace, options.rooms)
      const created = performance.now()
      const queue = await createPendingApprovals(runtime, roomIds, options.approvals, 'm')
      options.log(
        `footprint: ${queue.length} approvals pending ` +
          `(${Math.round(performance.now() - created)} ms to create)`,
      )
      const pending = await heapOf()
      for (let taken = 0; taken < queue.length; taken += options.perRound) {
        const slice = queue.slice(taken, taken + options.perRound)
        memoryBackedDecisionsPerSec.push(await decideConcurrently(runtime, slice, 10))
        await toolsFinished(workspace, taken + slice.length)
      }
      await turnsDone(
        dataDir,
        queue.map((approval) => approval.id),
        60_000 + queue.length * 20,
      )
      const stored = await heapOf()
      heap = { idle, pending, stored }
      options.log(
        `footprint: heap after GC ${mib(idle.bytes)} MiB idle, ${mib(pending.bytes)} pending, ` +
          `${mib(stored.bytes)} with all ${queue.length} decided`,
      )
    } finally {
      await inspected.stop()
    }

    // 3. Starts with the whole history on disk, nothing attached.
    const readyMs: number[] = []
    const readyCpuMs: number[] = []
    const idleRssWithHistory: number[] = []
    for (let start = 0; start < options.starts; start += 1) {
      const supervisor = supervisorWith(options.startNodeFlags ?? [])
      const began = performance.now()
      await supervisor.start()
      readyMs.push(performance.now() - began)
      readyCpuMs.push(cpuMs(pidOf(supervisor)))
      await sleep(SETTLE_MS)
      idleRssWithHistory.push(residentBytes(pidOf(supervisor)))
      await supervisor.stop()
    }
    options.log(
      `footprint: ready in ${readyMs.map((ms) => Math.round(ms)).join(', ')} ms ` +
        `with ${options.approvals} decided approvals stored`,
    )
    return {
      approvals: options.approvals,
      dataDirOnTmpfs,
      idleRss,
      heap,
      memoryBackedDecisionsPerSec,
      readyMs,
      readyCpuMs,
      idleRssWithHistory,
    }
  } finally {
    rmSync(root, { recursive: true, force: true })
  }
}

function pidOf(supervisor: RuntimeSupervisor): number {
  const pid = supervisor.pid
  if (pid === undefined) throw new Error('the runtime has no pid')
  return pid
}

/** User + system CPU time a process has used so far, from /proc (Linux). */
function cpuMs(pid: number): number {
  // The fields after the command name, which is in parentheses and may hold
  // spaces: utime and stime are the 12th and 13th of them, in clock ticks.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return ((Number(fields[11]) + Number(fields[12])) * 1_000) / CLOCK_TICKS_PER_SECOND
}
// sysconf(_SC_CLK_TCK) on Linux.
const CLOCK_TICKS_PER_SECOND = 100

function mib(bytes: number): string {
  return (bytes / (1024 * 1024)).toFixed(1)
}

/** A free loopback TCP port, for the child's inspector. */
export async function freeLoopbackPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  await new Promise<void>((resolve) => server.close(() => resolve()))
  if (address === null || typeof address === 'string') throw new Error('no port')
  return address.port
}

/**
 * The child's heap after two full collections, through its inspector: the
 * heap V8 uses plus `external` (buffers and typed arrays V8 objects hold),
 * with its resident memory at that moment.
 */
export async function heapAfterGc(port: number, pid: number): Promise<HeapReading> {
  const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as {
    webSocketDebuggerUrl: string
  }[]
  const url = targets[0]?.webSocketDebuggerUrl
  if (!url) throw new Error('the runtime offers no inspector target')
  const socket = new WebSocket(url)
  await new Promise<void>((resolve, reject) => {
    socket.addEventListener('open', () => resolve(), { once: true })
    socket.addEventListener('error', () => reject(new Error('inspector refused')), { once: true })
  })
  let next = 0
  const call = (method: string, params: object = {}) =>
    new Promise<unknown>((resolve, reject) => {
      const id = (next += 1)
      const onMessage = (event: MessageEvent) => {
        const reply = JSON.parse(String(event.data)) as {
          id?: number
          result?: unknown
          error?: { message: string }
        }
        if (reply.id !== id) return
        socket.removeEventListener('message', onMessage)
        if (reply.error) reject(new Error(`${method}: ${reply.error.message}`))
        else resolve(reply.result)
      }
      socket.addEventListener('message', onMessage)
      socket.send(JSON.stringify({ id, method, params }))
    })
  try {
    await call('HeapProfiler.collectGarbage')
    await call('HeapProfiler.collectGarbage')
    const result = (await call('Runtime.evaluate', {
      expression: 'JSON.stringify(process.memoryUsage())',
      returnByValue: true,
    })) as { result: { value: string } }
    const usage = JSON.parse(result.result.value) as { heapUsed: number; external: number }
    return { bytes: usage.heapUsed + usage.external, rss: residentBytes(pid) }
  } finally {
    socket.close()
  }
}
