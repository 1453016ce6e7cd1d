import { randomBytes } from 'node:crypto'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { MainServices } from '../../src/main/core/main-services.ts'
import { ChildProcessLauncher } from '../../src/main/core/runtime-launcher.ts'
import { RUNTIME_READY_TIMEOUT_MS } from '../../scripts/test-timing.ts'
import { FakeWindows } from './fake-protected-windows.ts'
import { RUNTIME_ENTRY, type RuntimeHarness } from './runtime-harness.ts'
import { fileRollbackAnchor } from './test-secrets.ts'

// MainServices wired as a host wires it, with a real runtime child process.
// Only the windows and the workbench are fakes (no window system here);
// they record what main does to them.

export interface Notice {
  type: string
  data: unknown
  /** Whether every window opened so far was already closed when it arrived. */
  windowsClosed: boolean
}

/** Started services on a throwaway data folder; `cleanups` gets what stops
 *  them and removes the folder. */
export async function startServices(cleanups: Array<() => Promise<void>>) {
  const root = await mkdtemp(join(tmpdir(), 'assent-main-services-'))
  const workspace = join(root, 'workspace')
  await mkdir(workspace, { recursive: true })
  const windows = new FakeWindows()
  const notices: Notice[] = []
  const dataDir = join(root, 'data')
  const main = new MainServices({
    launcher: new ChildProcessLauncher(RUNTIME_ENTRY),
    dataDir,
    integrityKey: randomBytes(32),
    rollbackAnchor: fileRollbackAnchor(dataDir),
    scopedRoots: [workspace],
    windows,
    notifier: {
      send: (event) =>
        notices.push({ ...event, windowsClosed: windows.opened.every((window) => window.closed) }),
    },
    preferences: () => ({ lang: 'en', theme: 'light' }),
    enableDelayMs: 0,
    runtimeReadyTimeoutMs: RUNTIME_READY_TIMEOUT_MS,
  })
  cleanups.push(async () => {
    await main.stop()
    await rm(root, { recursive: true, force: true })
  })
  const first = await main.start()
  // The room helpers need only a client and a workspace.
  const runtime = { client: main.client, workspace } as unknown as RuntimeHarness
  return { main, windows, notices, workspace, dataDir, runtime, first }
}
