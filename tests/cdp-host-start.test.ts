import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium } from 'playwright-core'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { CdpHost } from '../src/main/cdp/cdp-host.ts'
import { ChildProcessLauncher } from '../src/main/core/runtime-launcher.ts'
import { RUNTIME_READY_TIMEOUT_MS } from '../scripts/test-timing.ts'
import { chromiumAvailable } from './support/cdp-host-harness.ts'
import { eventually } from './support/runtime-harness.ts'
import { testSecrets } from './support/test-secrets.ts'

// How the CDP host starts: Chromium's launch and the runtime's start run at
// once, and a start that fails halfway leaves neither behind.

const run = chromiumAvailable()
const roots: string[] = []

afterEach(async () => {
  vi.restoreAllMocks()
  for (const root of roots.splice(0)) await rm(root, { recursive: true, force: true })
})

async function hostOptions() {
  const root = await mkdtemp(join(tmpdir(), 'assent-cdp-start-'))
  roots.push(root)
  const dataDir = join(root, 'data')
  return {
    dataDir,
    secrets: testSecrets(dataDir),
    runtimeReadyTimeoutMs: RUNTIME_READY_TIMEOUT_MS,
  }
}

/** Records the runtime's fork, and the pid it got, as they happen. */
function watchRuntimeFork(steps: string[]): { pid: number | undefined } {
  const forked: { pid: number | undefined } = { pid: undefined }
  const launch = ChildProcessLauncher.prototype.launch
  vi.spyOn(ChildProcessLauncher.prototype, 'launch').mockImplementation(function (
    this: ChildProcessLauncher,
  ) {
    steps.push('runtime forked')
    const runtime = launch.call(this)
    forked.pid = runtime.pid
    return runtime
  })
  return forked
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

describe.runIf(run)('the CDP host start (real Chromium, the runtime child)', () => {
  it('forks the runtime before Chromium has finished launching', async () => {
    const steps: string[] = []
    watchRuntimeFork(steps)
    const launch = chromium.launch.bind(chromium)
    vi.spyOn(chromium, 'launch').mockImplementation(async (options) => {
      const browser = await launch(options)
      steps.push('chromium launched')
      return browser
    })
    const host = await CdpHost.start(await hostOptions())
    try {
      expect(steps).toEqual(['runtime forked', 'chromium launched'])
      // The workbench still opens on the browser the launch gave.
      const { page } = await host.workbench()
      expect(page.context().browser()).toBe(host.browser)
    } finally {
      await host.close()
    }
  })

  it('stops the runtime and frees the data folder when Chromium fails to launch', async () => {
    const forked = watchRuntimeFork([])
    vi.spyOn(chromium, 'launch').mockRejectedValueOnce(new Error('no display for Chromium'))
    const options = await hostOptions()
    await expect(CdpHost.start(options)).rejects.toThrow('no display for Chromium')
    expect(forked.pid).toBeTypeOf('number')
    await eventually(() => !alive(forked.pid!) || undefined, 'the runtime child to exit')
    // Nothing holds the data folder: the next start takes it.
    const host = await CdpHost.start(options)
    await host.close()
  })
})
