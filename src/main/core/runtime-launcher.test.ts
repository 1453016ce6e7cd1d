import { describe, expect, it } from 'vitest'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ChildProcessLauncher, nodeFlagsFor } from './runtime-launcher.ts'

describe('nodeFlagsFor', () => {
  it('asks for type stripping and node:sqlite on Node versions that need the flags', () => {
    expect(nodeFlagsFor('/app/main.ts', 'v22.12.0')).toEqual([
      '--experimental-strip-types',
      '--experimental-sqlite',
    ])
    expect(nodeFlagsFor('/app/main.ts', 'v22.17.1')).toEqual(['--experimental-strip-types'])
    expect(nodeFlagsFor('/app/main.ts', 'v23.5.0')).toEqual(['--experimental-strip-types'])
  })

  it('adds nothing where Node strips types by default', () => {
    expect(nodeFlagsFor('/app/main.ts', 'v22.18.0')).toEqual([])
    expect(nodeFlagsFor('/app/main.ts', 'v23.6.0')).toEqual([])
    expect(nodeFlagsFor('/app/main.ts', 'v24.21.0')).toEqual([])
  })

  it('never asks for type stripping for a built JavaScript entry', () => {
    expect(nodeFlagsFor('/app/main.js', 'v22.12.0')).toEqual(['--experimental-sqlite'])
  })
})

describe('ChildProcessLauncher', () => {
  it('drops a message written after the runtime died but before main heard of it, instead of crashing main', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'assent-launcher-'))
    const entry = join(folder, 'child.mjs')
    // The child says it is up, then waits: the test kills it.
    writeFileSync(entry, "process.send('up'); setInterval(() => {}, 1000)\n")
    const uncaught: unknown[] = []
    const record = (error: unknown) => uncaught.push(error)
    process.on('uncaughtException', record)
    try {
      const runtime = new ChildProcessLauncher(entry).launch()
      const exited = new Promise<void>((resolve) => runtime.onExit(() => resolve()))
      await new Promise<void>((resolve) => runtime.onMessage(() => resolve()))
      runtime.kill('SIGKILL')
      // Blocks this thread (so no 'disconnect' event can be handled) until
      // the kernel has closed the child's end of the channel: a zombie has
      // released its sockets. The write below then fails with EPIPE.
      waitUntilZombie(runtime.pid!)
      expect(() => runtime.send({ type: 'anchor-refused', requestId: 1, error: 'x' })).not.toThrow()
      await exited
      await new Promise((resolve) => setImmediate(resolve))
      expect(uncaught).toEqual([])
    } finally {
      process.off('uncaughtException', record)
      rmSync(folder, { recursive: true, force: true })
    }
  })
})

function waitUntilZombie(pid: number): void {
  const deadline = Date.now() + 30_000
  const pause = new Int32Array(new SharedArrayBuffer(4))
  while (Date.now() < deadline) {
    const state = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0]
    if (state === 'Z') return
    Atomics.wait(pause, 0, 0, 5)
  }
  throw new Error(`process ${pid} did not die within 30 s`)
}
