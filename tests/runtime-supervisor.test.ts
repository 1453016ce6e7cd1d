import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { ChildProcessLauncher } from '../src/main/core/runtime-launcher.ts'
import { RuntimeSupervisor, type RuntimeConnection } from '../src/main/core/runtime-supervisor.ts'
import { RUNTIME_ENTRY, eventually } from './support/runtime-harness.ts'
import { RUNTIME_READY_TIMEOUT_MS } from '../scripts/test-timing.ts'
import { fileRollbackAnchor } from './support/test-secrets.ts'

const cleanups: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup()
})

describe('the runtime supervisor', () => {
  it('restarts a crashed runtime with fresh secrets and says it went down and came back', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'assent-supervisor-'))
    const ups: RuntimeConnection[] = []
    const downs: string[] = []
    const supervisor = new RuntimeSupervisor({
      launcher: new ChildProcessLauncher(RUNTIME_ENTRY),
      dataDir: join(dir, 'data'),
      integrityKey: randomBytes(32),
      rollbackAnchor: fileRollbackAnchor(join(dir, 'data')),
      readyTimeoutMs: RUNTIME_READY_TIMEOUT_MS,
      onUp: (connection) => ups.push(connection),
      onDown: (reason) => downs.push(reason),
    })
    cleanups.push(async () => {
      await supervisor.stop()
      rmSync(dir, { recursive: true, force: true })
    })
    const first = await supervisor.start()
    process.kill(supervisor.pid!, 'SIGKILL')
    const second = await eventually(() => ups[1], 'the restarted runtime')
    expect(downs[0]).toMatch(/SIGKILL/)
    expect(second.instanceId).not.toBe(first.instanceId)
    expect(second.bearerToken).not.toBe(first.bearerToken)
    expect(second.consentKey.equals(first.consentKey)).toBe(false)
    const health = await fetch(`http://127.0.0.1:${second.port}/v1/health`, {
      headers: { authorization: `Bearer ${second.bearerToken}` },
    })
    expect(await health.json()).toEqual({ ok: true, instanceId: second.instanceId })
  })

  it('does not restart a runtime it was asked to stop', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'assent-supervisor-'))
    const ups: RuntimeConnection[] = []
    // Real timers that note every delay the supervisor asks for: a restart
    // is only ever a timer it schedules.
    const scheduled: number[] = []
    const supervisor = new RuntimeSupervisor({
      launcher: new ChildProcessLauncher(RUNTIME_ENTRY),
      dataDir: join(dir, 'data'),
      integrityKey: randomBytes(32),
      rollbackAnchor: fileRollbackAnchor(join(dir, 'data')),
      readyTimeoutMs: RUNTIME_READY_TIMEOUT_MS,
      onUp: (connection) => ups.push(connection),
      timers: {
        now: () => Date.now(),
        setTimeout: (callback, ms) => {
          scheduled.push(ms)
          return setTimeout(callback, ms)
        },
        clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
      },
    })
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }))
    await supervisor.start()
    const beforeStop = scheduled.length
    // stop() resolves on the runtime's exit, the same event the supervisor's
    // own exit handler sees first: by then it has decided, with no wait.
    await supervisor.stop()
    expect(scheduled.slice(beforeStop)).toEqual([])
    expect(ups).toHaveLength(1)
    expect(supervisor.current).toBeUndefined()
  })
})
