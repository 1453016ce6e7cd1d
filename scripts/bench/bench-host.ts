// The CDP host the browser benchmarks share (real Chromium, main's core,
// the runtime child process), with a throwaway data folder, and how a bench
// opens a room in its workbench.

import { randomBytes } from 'node:crypto'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { FileSecretStore } from '../../src/main/core/file-secret-store.ts'
import { RollbackAnchorKeeper } from '../../src/main/core/rollback-anchor-keeper.ts'
import { CdpHost } from '../../src/main/cdp/cdp-host.ts'

export const BENCH_THEME = 'light'
export const BENCH_TIMEOUT_MS = 20_000

export interface BenchHost {
  host: CdpHost
  /** The host's only scoped root; each measurement works in a folder of it. */
  workspace: string
  close(): Promise<void>
}

/** One CDP host for the browser measurements, with a throwaway data folder. */
export async function startBenchHost(): Promise<BenchHost> {
  const root = await mkdtemp(join(tmpdir(), 'assent-bench-cdp-'))
  const workspace = join(root, 'workspace')
  await mkdir(workspace, { recursive: true })
  try {
    const host = await CdpHost.start({
      dataDir: join(root, 'data'),
      secrets: {
        integrityKey: randomBytes(32),
        rollbackAnchor: new RollbackAnchorKeeper(new FileSecretStore(), join(root, 'data')),
      },
      scopedRoots: [workspace],
      approvalTtlMs: 60 * 60 * 1_000,
      preferences: () => ({ lang: 'en', theme: BENCH_THEME }),
    })
    return {
      host,
      workspace,
      async close() {
        await host.close()
        await rm(root, { recursive: true, force: true })
      },
    }
  } catch (error) {
    await rm(root, { recursive: true, force: true })
    throw error
  }
}

/** Creates a room through the bridge and opens it in the workbench UI. */
export async function openRoom(page: Page, workspace: string, title: string): Promise<string> {
  const roomId = await page.evaluate(
    async (input) => {
      const gui = (
        globalThis as unknown as {
          assentGui: Record<string, (...a: unknown[]) => Promise<unknown>>
        }
      ).assentGui
      const response = (await gui.createRoom!({
        kind: 'direct',
        agentId: 'assistant',
        workspace: input.workspace,
        title: input.title,
      })) as { status: number; body: { room: { id: string } } }
      if (response.status !== 201) throw new Error(`createRoom answered ${response.status}`)
      return response.body.room.id
    },
    { workspace, title },
  )
  await page.click(`[data-testid="room-link"][data-room-id="${roomId}"]`, {
    timeout: BENCH_TIMEOUT_MS,
  })
  await page.waitForSelector(`[data-testid="room-view"][data-room-id="${roomId}"]`, {
    timeout: BENCH_TIMEOUT_MS,
  })
  return roomId
}
