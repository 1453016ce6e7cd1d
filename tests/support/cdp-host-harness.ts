import { randomBytes } from 'node:crypto'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { CdpHost, type CdpHostOptions } from '../../src/main/cdp/cdp-host.ts'
import type { CdpProtectedWindow } from '../../src/main/cdp/protected-windows.ts'
import { CHROMIUM_MISSING, findChromium } from '../../src/main/cdp/chromium.ts'
import { RUNTIME_READY_TIMEOUT_MS, WAIT_TIMEOUT_MS } from '../../scripts/test-timing.ts'
import { eventually } from './runtime-harness.ts'
import { requireOrSkip } from './require-or-skip.ts'
import { testSecrets } from './test-secrets.ts'

/** True when Chromium is there; fails under ASSENT_REQUIRE_ALL=1 otherwise. */
export function chromiumAvailable(): boolean {
  return requireOrSkip(
    'Chromium',
    findChromium() ? undefined : 'no system Chromium',
    CHROMIUM_MISSING,
  )
}

export interface HostHarness {
  host: CdpHost
  root: string
  workspace: string
  page: Page
  gui<T = unknown>(method: string, ...args: unknown[]): Promise<T>
  createRoom(fields?: { agentId?: string; title?: string }): Promise<string>
  pendingApproval(roomId: string, text: string): Promise<string>
  nextWindow(): Promise<CdpProtectedWindow>
  close(): Promise<void>
}

/** A CDP host with a throwaway data folder and workspace, workbench open. */
export async function startHostHarness(
  options: Partial<CdpHostOptions> = {},
): Promise<HostHarness> {
  const root = await mkdtemp(join(tmpdir(), 'assent-cdp-'))
  const workspace = join(root, 'workspace')
  await mkdir(workspace, { recursive: true })
  const host = await CdpHost.start({
    dataDir: join(root, 'data'),
    // The keychain has its own tests (tests/keychain.test.ts); here a fixed
    // random key and the file store's anchor keep the browser tests
    // independent of a Secret Service.
    secrets: testSecrets(join(root, 'data'), randomBytes(32)),
    scopedRoots: [workspace],
    runtimeReadyTimeoutMs: RUNTIME_READY_TIMEOUT_MS,
    ...options,
  })
  const { page } = await host.workbench()
  let seenWindows = 0
  let messages = 0
  const gui = <T>(method: string, ...args: unknown[]) =>
    page.evaluate(
      ([name, list]) =>
        (window as unknown as Record<string, Record<string, (...a: unknown[]) => Promise<unknown>>>)
          .assentGui![name as string]!(...(list as unknown[])),
      [method, args] as const,
    ) as Promise<T>
  return {
    host,
    root,
    workspace,
    page,
    gui,
    async createRoom(fields = {}) {
      const response = await gui<{ status: number; body: { room: { id: string } } }>('createRoom', {
        kind: 'direct',
        agentId: fields.agentId ?? 'assistant',
        workspace,
        title: fields.title ?? 'Room',
      })
      if (response.status !== 201) throw new Error(`createRoom answered ${response.status}`)
      return response.body.room.id
    },
    async pendingApproval(roomId, text) {
      messages += 1
      await gui('sendMessage', roomId, { clientRequestId: `m-${messages}-${Date.now()}`, text })
      return eventually(async () => {
        const response = await gui<{
          body: { approvals: Array<{ id: string; status: string; summary: string }> }
        }>('approvals', roomId)
        return response.body.approvals.find((approval) => approval.status === 'pending')?.id
      }, `an approval for "${text}"`)
    },
    async nextWindow() {
      const index = seenWindows
      const window = await eventually(() => host.windows.opened[index], 'a protected window')
      seenWindows += 1
      return window
    },
    async close() {
      await host.close()
      await rm(root, { recursive: true, force: true })
    },
  }
}

/** Waits until the consent buttons are enabled (the 600 ms delay passed). */
export async function buttonsEnabled(
  window: CdpProtectedWindow,
  id = 'assent-allow-once',
  timeoutMs = WAIT_TIMEOUT_MS,
) {
  await window.page.waitForSelector(`#${id}:not([disabled])`, { timeout: timeoutMs })
}
