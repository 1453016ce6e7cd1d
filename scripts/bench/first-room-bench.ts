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
import type { BuiltAssets } from '../../src/main/cdp/built-assets.ts'
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
  const startHost = firstRoomHost(dataDir, workspace)
  try {
    const roomId = await roomMadeOnce(startHost, workspace)
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

/** Starts the CDP host as these figures time it, each time on the same
 *  data folder: the built runtime (what the app forks, not the TypeScript
 *  source the CDP host runs by default, whose type stripping is a start of
 *  its own), and `assets` when another build's pages are profiled. */
export function firstRoomHost(
  dataDir: string,
  workspace: string,
  assets?: BuiltAssets,
): () => Promise<CdpHost> {
  const integrityKey = randomBytes(32)
  const rollbackAnchor = new RollbackAnchorKeeper(new FileSecretStore(), dataDir)
  return () =>
    CdpHost.start({
      dataDir,
      secrets: { integrityKey, rollbackAnchor },
      scopedRoots: [workspace],
      runtimeEntry: BUILT_RUNTIME_ENTRY,
      ...(assets === undefined ? {} : { assets }),
      approvalTtlMs: 60 * 60 * 1_000,
      preferences: () => ({ lang: 'en', theme: BENCH_THEME }),
    })
}

/** Makes the room every timed start opens, in an untimed first start. */
export async function roomMadeOnce(
  startHost: () => Promise<CdpHost>,
  workspace: string,
): Promise<string> {
  const first = await startHost()
  try {
    return await openRoom((await first.workbench()).page, workspace, 'First room')
  } finally {
    await first.close()
  }
}
