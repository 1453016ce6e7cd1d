// The runtime footprint's figures (footprint-bench.ts): resident memory,
// heap per pending approval, heap left once decided, and the start's time.

import { figure } from './figures.ts'
import type { FootprintResult } from './footprint-bench.ts'
import type { MeasuredFigure } from './results-schema.ts'

const MIB = 1024 * 1024
const KIB = 1024
/** A figure must be positive: a heap that ended at or below its idle
 *  reading is shown as this (and said so in the note). */
const AT_OR_BELOW_IDLE_MIB = 0.01

export function footprintFigures(result: FootprintResult): MeasuredFigure[] {
  const where = result.dataDirOnTmpfs ? 'data folder on tmpfs' : 'data folder on disk'
  const { idle, pending, stored } = result.heap
  const retainedMib = (stored.bytes - idle.bytes) / MIB
  return [
    figure({
      id: 'decisions.memory-backed-per-sec.10-clients',
      section: 'decisions',
      label: `allow-once decisions, 10 clients, ${where} (no fsync wait)`,
      unit: 'decisions/s',
      samples: result.memoryBackedDecisionsPerSec,
      goal: {
        comparison: 'at-least',
        target: 1_000,
        text: '≥ 1 000 decisions/s with no disk wait',
      },
      note: 'the built runtime’s own cost per decision: the ceiling a faster disk could approach',
    }),
    figure({
      id: 'memory.runtime-rss-idle-mib',
      section: 'memory',
      label: 'runtime resident memory, fresh and idle (the built runtime main forks)',
      unit: 'MiB',
      samples: result.idleRss.map((bytes) => bytes / MIB),
      goal: { comparison: 'at-most', target: 80, text: '≤ 80 MiB resident when idle' },
    }),
    figure({
      id: 'memory.runtime-rss-idle-with-history-mib',
      section: 'memory',
      label: `runtime resident memory, idle after a start with ${result.approvals} decided approvals stored`,
      unit: 'MiB',
      samples: result.idleRssWithHistory.map((bytes) => bytes / MIB),
      note: 'one reading per timed start; history on disk should cost nothing here',
    }),
    figure({
      id: 'memory.per-pending-approval-kib',
      section: 'memory',
      label: `heap after GC per pending approval (${result.approvals} pending − idle)`,
      unit: 'KiB',
      samples: [(pending.bytes - idle.bytes) / result.approvals / KIB],
      goal: { comparison: 'at-most', target: 4, text: '≤ 4 KiB per pending approval' },
      note: `V8 heap used + external; resident memory grew ${((pending.rss - idle.rss) / result.approvals / KIB).toFixed(1)} KiB per approval meanwhile (the heap's high-water mark included)`,
    }),
    figure({
      id: 'memory.retained-after-decided-mib',
      section: 'memory',
      label: `heap after GC with all ${result.approvals} approvals decided and stored − idle`,
      unit: 'MiB',
      samples: [Math.max(AT_OR_BELOW_IDLE_MIB, retainedMib)],
      goal: {
        comparison: 'at-most',
        target: 5,
        text: '≤ 5 MiB: what is on disk is not kept in memory',
      },
      note: `heap ${(idle.bytes / MIB).toFixed(1)} MiB idle, ${(stored.bytes / MIB).toFixed(1)} MiB after; resident ${(stored.rss / MIB).toFixed(0)} MiB (V8 keeps pages it grew into)${retainedMib < AT_OR_BELOW_IDLE_MIB ? '; at or below idle' : ''}`,
    }),
    figure({
      id: 'startup.runtime-ready-ms',
      section: 'startup',
      label: `runtime spawn → ready, ${result.approvals} decided approvals stored`,
      unit: 'ms',
      samples: result.readyMs,
      goal: { comparison: 'at-most', target: 300, text: 'ready ≤ 300 ms p50 with a long history' },
      note: 'the built runtime forked as main forks it, until its ready message; the data folder as the run above left it',
    }),
    figure({
      id: 'startup.runtime-ready-cpu-ms',
      section: 'startup',
      label: 'the runtime’s own CPU time (user + system) from spawn to ready, same starts',
      unit: 'ms',
      samples: result.readyCpuMs,
      note: 'what a start costs the machine; on a loaded machine the wall-clock figure above waits for the cores as well',
    }),
  ]
}

export function firstRoomFigures(samples: readonly number[]): MeasuredFigure[] {
  return [
    figure({
      id: 'startup.workbench-first-room-ms',
      section: 'startup',
      label: 'CDP host start (core, runtime, Chromium) → a room opened and drawn in the workbench',
      unit: 'ms',
      samples,
      goal: {
        comparison: 'at-most',
        target: 1_500,
        text: 'a room on screen ≤ 1 500 ms after start',
      },
    }),
  ]
}
