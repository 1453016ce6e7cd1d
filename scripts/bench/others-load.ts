// How much other processes load the machine while a bench section runs.
//
// The load average cannot tell: the bench's own runtime and Chromium raise
// it past the core count of a small machine by themselves, and it decays
// over a minute, so it still carries the last section when the next one
// starts. So a worker thread samples, every half second, the threads the
// kernel counts as runnable or blocked on I/O (/proc/stat: procs_running,
// procs_blocked, what the load average averages) less those of the bench's
// own process tree (each thread's state in /proc/<pid>/task/<tid>/stat).
// What is left is the demand other processes put on the cores.

import { readdirSync, readFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads'
import { underLoad } from './figures.ts'
import type { Figure, MeasuredFigure } from './results-schema.ts'

export const SAMPLE_INTERVAL_MS = 500

export interface OthersLoad {
  /** Mean runnable + blocked threads outside the bench's processes. */
  mean: number
  max: number
  samples: number
}

/** Whether the kernel offers what the sampler reads (Linux /proc). */
export function othersLoadMeasurable(): boolean {
  try {
    return systemDemand() !== null && ownDemand(process.pid) > 0
  } catch {
    return false
  }
}

/**
 * Samples until `stop`, which resolves with the figures (null when this
 * machine has no /proc to read them from: the caller says so instead of
 * judging by a guess).
 */
export function sampleOthersLoad(): { stop(): Promise<OthersLoad | null> } {
  if (!othersLoadMeasurable()) return { stop: async () => null }
  const stopFlag = new Int32Array(new SharedArrayBuffer(4))
  const worker = new Worker(new URL(import.meta.url), {
    workerData: { rootPid: process.pid, stopFlag, intervalMs: SAMPLE_INTERVAL_MS },
  })
  const result = new Promise<OthersLoad>((resolve, reject) => {
    worker.once('message', (load: OthersLoad) => resolve(load))
    worker.once('error', reject)
    worker.once('exit', (code) => {
      if (code !== 0) reject(new Error(`the load sampler stopped with code ${code}`))
    })
  })
  return {
    async stop() {
      Atomics.store(stopFlag, 0, 1)
      Atomics.notify(stopFlag, 0)
      return result
    },
  }
}

/**
 * Measures one section and stamps its figures with the load it ran under:
 * the load average at its start and end, and the others' demand sampled
 * meanwhile (figures.ts `underLoad` judges them by it).
 */
export async function measureUnderLoad(
  run: () => MeasuredFigure[] | Promise<MeasuredFigure[]>,
  cores: number,
): Promise<{ figures: Figure[]; others: OthersLoad | null }> {
  const start = loadavg()[0]!
  const sampler = sampleOthersLoad()
  let measured: MeasuredFigure[]
  try {
    measured = await run()
  } catch (error) {
    await sampler.stop()
    throw error
  }
  const others = await sampler.stop()
  const load = { start, end: loadavg()[0]!, others: others?.mean ?? null }
  return { figures: underLoad(measured, load, cores), others }
}

/** Runnable plus blocked threads machine-wide, or null without /proc/stat. */
function systemDemand(): number | null {
  const stat = readFileSync('/proc/stat', 'utf8')
  const running = /^procs_running (\d+)$/m.exec(stat)?.[1]
  const blocked = /^procs_blocked (\d+)$/m.exec(stat)?.[1]
  if (running === undefined || blocked === undefined) return null
  return Number(running) + Number(blocked)
}

/** The fields of a /proc stat line after its command name, which may hold
 *  spaces and parentheses of its own. */
function statFields(text: string): string[] {
  return text.slice(text.lastIndexOf(')') + 2).split(' ')
}

/** Every process below `rootPid`, and itself. A process that ends while
 *  being read is simply left out. */
export function processTree(rootPid: number): number[] {
  const children = new Map<number, number[]>()
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    let fields: string[]
    try {
      fields = statFields(readFileSync(`/proc/${entry}/stat`, 'utf8'))
    } catch {
      continue
    }
    const parent = Number(fields[1])
    children.set(parent, [...(children.get(parent) ?? []), Number(entry)])
  }
  const tree = [rootPid]
  for (let index = 0; index < tree.length; index += 1) {
    tree.push(...(children.get(tree[index]!) ?? []))
  }
  return tree
}

/** Runnable or blocked threads of the bench's own processes. */
function ownDemand(rootPid: number): number {
  let demand = 0
  for (const pid of processTree(rootPid)) {
    let tasks: string[]
    try {
      tasks = readdirSync(`/proc/${pid}/task`)
    } catch {
      continue
    }
    for (const tid of tasks) {
      try {
        const state = statFields(readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8'))[0]
        if (state === 'R' || state === 'D') demand += 1
      } catch {
        continue
      }
    }
  }
  return demand
}

if (!isMainThread && parentPort) {
  const { rootPid, stopFlag, intervalMs } = workerData as {
    rootPid: number
    stopFlag: Int32Array
    intervalMs: number
  }
  let total = 0
  let max = 0
  let samples = 0
  do {
    // The machine's count is read before and after the bench's own, and
    // averaged: threads of the bench that start or stop running while it is
    // read (its garbage collector's) would otherwise count as others. This
    // thread is running throughout, in both counts, so it cancels out. A
    // sample may come out below zero; only the mean is clamped, so the
    // noise does not add up to a load nobody put there.
    const before = systemDemand() ?? 0
    const own = ownDemand(rootPid)
    const others = (before + (systemDemand() ?? 0)) / 2 - own
    total += others
    max = Math.max(max, others)
    samples += 1
  } while (Atomics.wait(stopFlag, 0, 0, intervalMs) === 'timed-out')
  parentPort.postMessage({
    mean: Math.max(0, total / samples),
    max: Math.max(0, max),
    samples,
  } satisfies OthersLoad)
}
