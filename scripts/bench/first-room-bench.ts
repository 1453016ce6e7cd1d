// The workbench's start as a person meets it: from the CDP host's start
// (main's core, the built runtime child, Chromium) to a room drawn in the
// workbench, on a data folder that already holds that room.

import { randomBytes } from 'node:crypto'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { FileSecretStore } from '../../src/main/core/file-secret-store.ts'
import { RollbackAnchorKeeper } from '../../src/main/core/rollback-anchor-keeper.ts'
import { CdpHost } from '../../src/main/cdp/cdp-host.ts'
import { BENCH_THEME, BENCH_TIMEOUT_MS, openRoom } from './bench-host.ts'
import { BUILT_RUNTIME_ENTRY } from './footprint-bench.ts'
import { nextFrame } from './page-probes.ts'

export interface FirstRoomOptions {
  /** Timed starts (each a sample). */
  starts: number
  log: (line: string) => void
}

/** ms from `CdpHost.start` to the room opened from the room list and on
 *  screen (its view in the page, the next animation frame), per start. */
export async function measureFirstRoom(options: FirstRoomOptions): Promise<number[]> {
  const root = await mkdtemp(join(tmpdir(), 'assent-bench-first-room-'))
  const workspace = join(root, 'workspace')
  const dataDir = join(root, 'data')
  await mkdir(workspace, { recursive: true })
  const integrityKey = randomBytes(32)
  const rollbackAnchor = new RollbackAnchorKeeper(new FileSecretStore(), dataDir)
  const startHost = () =>
    CdpHost.start({
      dataDir,
      secrets: { integrityKey, rollbackAnchor },
      scopedRoots: [workspace],
      // What the app forks, not the TypeScript source the CDP host runs
      // by default (stripping its types is a start of its own).
      runtimeEntry: BUILT_RUNTIME_ENTRY,
      approvalTtlMs: 60 * 60 * 1_000,
      preferences: () => ({ lang: 'en', theme: BENCH_THEME }),
    })
  try {
    const first = await startHost()
    let roomId: string
    try {
      roomId = await openRoom((await first.workbench()).page, workspace, 'First room')
    } finally {
      await first.close()
    }
    const samples: number[] = []
    for (let start = 1; start <= options.starts; start += 1) {
      const began = performance.now()
      const host = await startHost()
      try {
        const { page } = await host.workbench()
        await page.click(`[data-testid="room-link"][data-room-id="${roomId}"]`, {
          timeout: BENCH_TIMEOUT_MS,
        })
        await page.waitForSelector(`[data-testid="room-view"][data-room-id="${roomId}"]`, {
          timeout: BENCH_TIMEOUT_MS,
        })
        await page.evaluate(nextFrame)
        samples.push(performance.now() - began)
      } finally {
        await host.close()
      }
      options.log(`startup: host start → room drawn in ${Math.round(samples.at(-1)!)} ms`)
    }
    return samples
  } finally {
    await rm(root, { recursive: true, force: true })
  }
}
