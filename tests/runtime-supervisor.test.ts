import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { ChildProcessLauncher } from '../src/main/core/runtime-launcher.ts'
import { RuntimeSupervisor, type RuntimeConnection } from '../src/main/core/runtime-supervisor.ts'
import { RUNTIME_ENTRY, eventually } from './support/runtime-harness.ts'

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
      onUp: (connection) => ups.push(connection),
      onDown: (reason) => downs.push(reason),
    })
    cleanups.push(async () => {
      await supervisor.stop()
      rmSync(dir, { recursive: true, force: true })
    })
    const first = await supervisor.start()
    process.kill(supervisor.pid!, 'SIGKILL')
    const second = await eventually(() => ups[1], 'the restarted runtime', 20_000)
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
    const supervisor = new RuntimeSupervisor({
      launcher: new ChildProcessLauncher(RUNTIME_ENTRY),
      dataDir: join(dir, 'data'),
      integrityKey: randomBytes(32),
      onUp: (connection) => ups.push(connection),
    })
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }))
    await supervisor.start()
    await supervisor.stop()
    await new Promise((resolve) => setTimeout(resolve, 1_000))
    expect(ups).toHaveLength(1)
    expect(supervisor.current).toBeUndefined()
  })
})
