import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { RollbackAnchorKeeper } from './rollback-anchor-keeper.ts'
import type { RuntimeLauncher, RuntimeProcess } from './runtime-launcher.ts'
import type { SecretStore } from './secret-store.ts'
import {
  RESTART_BACKOFF_MS,
  STABLE_UPTIME_MS,
  RuntimeSupervisor,
  type RuntimeConnection,
  type SupervisorTimers,
} from './runtime-supervisor.ts'

// Backoff is about time and crash patterns, so a scripted launcher and a
// hand-driven clock stand in for the runtime process here; the real process
// is restarted in tests/runtime-supervisor.test.ts.

/** What a launched runtime does once it receives its init message. */
type Behaviour = 'ready' | 'exit-before-ready' | 'hang'

class FakeRuntime implements RuntimeProcess {
  readonly pid: number
  private readonly behaviour: Behaviour
  private readonly messageListeners: Array<(message: unknown) => void> = []
  private readonly exitListeners: Array<(code: number | null, signal: string | null) => void> = []
  exited = false

  constructor(pid: number, behaviour: Behaviour) {
    this.pid = pid
    this.behaviour = behaviour
  }
  send(message: unknown): void {
    const type = (message as { type?: unknown }).type
    if (type === 'shutdown') {
      this.exit(0, null)
      return
    }
    if (type !== 'init') return
    queueMicrotask(() => {
      if (this.behaviour === 'ready') {
        const ready = { type: 'ready', port: 40_000 + this.pid, instanceId: `instance-${this.pid}` }
        for (const listener of this.messageListeners) listener(ready)
      } else if (this.behaviour === 'exit-before-ready') {
        this.exit(1, null)
      }
    })
  }
  onMessage(listener: (message: unknown) => void): void {
    this.messageListeners.push(listener)
  }
  onExit(listener: (code: number | null, signal: string | null) => void): void {
    this.exitListeners.push(listener)
  }
  kill(signal: NodeJS.Signals = 'SIGTERM'): void {
    this.exit(null, signal)
  }
  /** A crash, as the OS would report it. */
  exit(code: number | null, signal: string | null): void {
    if (this.exited) return
    this.exited = true
    for (const listener of this.exitListeners) listener(code, signal)
  }
}

/** The anchor in memory: time here is driven by hand, and a real store's
 *  I/O would finish outside that clock. The real stores are exercised in
 *  secret-store.test.ts, tests/keychain.test.ts and the rollback tests. */
class MemoryAnchorStore implements SecretStore {
  readonly description = 'memory'
  private anchor: number | undefined
  read = async () => undefined
  create = async () => undefined
  readAnchor = async () => this.anchor
  writeAnchor = async (_account: string, counter: number) => {
    this.anchor = counter
  }
}

class ScriptedLauncher implements RuntimeLauncher {
  readonly launched: FakeRuntime[] = []
  /** Behaviour of the next launches, in order; `ready` once it runs out. */
  readonly script: Behaviour[] = []
  /** The clock time of each launch. */
  readonly launchedAt: number[] = []
  private readonly clock: FakeClock

  constructor(clock: FakeClock) {
    this.clock = clock
  }
  launch(): RuntimeProcess {
    const runtime = new FakeRuntime(this.launched.length + 1, this.script.shift() ?? 'ready')
    this.launched.push(runtime)
    this.launchedAt.push(this.clock.now())
    return runtime
  }
  get last(): FakeRuntime {
    const runtime = this.launched.at(-1)
    if (!runtime) throw new Error('nothing launched')
    return runtime
  }
}

/** Timers that fire only when the test moves the clock. */
class FakeClock implements SupervisorTimers {
  private time = 0
  private nextId = 1
  private readonly pending = new Map<number, { at: number; callback: () => void }>()

  now = () => this.time
  setTimeout = (callback: () => void, ms: number): unknown => {
    const id = this.nextId++
    this.pending.set(id, { at: this.time + ms, callback })
    return id
  }
  clearTimeout = (handle: unknown): void => {
    this.pending.delete(handle as number)
  }
  get pendingCount(): number {
    return this.pending.size
  }

  /** Moves time forward, firing due timers in order and letting the
   *  promises they start settle. */
  async advance(ms: number): Promise<void> {
    const until = this.time + ms
    for (;;) {
      await settle()
      const due = [...this.pending.entries()]
        .filter(([, timer]) => timer.at <= until)
        .sort(([, a], [, b]) => a.at - b.at)[0]
      if (!due) break
      const [id, timer] = due
      this.pending.delete(id)
      this.time = timer.at
      timer.callback()
    }
    this.time = until
    await settle()
  }
}

const settle = () => new Promise<void>((resolve) => setImmediate(resolve))

function supervised() {
  const clock = new FakeClock()
  const launcher = new ScriptedLauncher(clock)
  const ups: RuntimeConnection[] = []
  const downs: string[] = []
  const supervisor = new RuntimeSupervisor({
    launcher,
    dataDir: '/nonexistent',
    integrityKey: randomBytes(32),
    rollbackAnchor: new RollbackAnchorKeeper(new MemoryAnchorStore(), '/nonexistent'),
    readyTimeoutMs: 1_000,
    timers: clock,
    onUp: (connection) => ups.push(connection),
    onDown: (reason) => downs.push(reason),
  })
  return { clock, launcher, supervisor, ups, downs }
}

/** Delays between each launch and the crash that preceded it. */
function gaps(launchedAt: number[], crashedAt: number[]): number[] {
  return crashedAt.map((at, index) => (launchedAt[index + 1] ?? NaN) - at)
}

describe('RuntimeSupervisor restart backoff (scripted launcher, fake clock)', () => {
  it('waits longer after each crash of a crash-looping runtime, up to the last delay', async () => {
    const { clock, launcher, supervisor } = supervised()
    await supervisor.start()
    const crashedAt: number[] = []
    for (let crash = 0; crash < RESTART_BACKOFF_MS.length + 2; crash += 1) {
      const launches = launcher.launched.length
      crashedAt.push(clock.now())
      launcher.last.exit(null, 'SIGSEGV')
      await clock.advance(20_000)
      expect(launcher.launched).toHaveLength(launches + 1)
      // Crashes again soon after it came up: still a crash loop.
      await clock.advance(1_000)
    }
    expect(gaps(launcher.launchedAt, crashedAt)).toEqual([...RESTART_BACKOFF_MS, 10_000, 10_000])
    await supervisor.stop()
  })

  it('keeps retrying a restart that fails, with growing delays, until one comes up', async () => {
    const { clock, launcher, supervisor, ups, downs } = supervised()
    await supervisor.start()
    launcher.script.push('exit-before-ready', 'hang', 'exit-before-ready', 'ready')
    const crashedAt = clock.now()
    launcher.last.exit(null, 'SIGKILL')
    await clock.advance(60_000)
    expect(launcher.launched).toHaveLength(5)
    // 250 ms to the first attempt; each failed attempt then waits the next
    // delay (the hung one only after its ready timeout of 1 s).
    expect(launcher.launchedAt.slice(1).map((at) => at - crashedAt)).toEqual([
      250,
      250 + 500,
      250 + 500 + 1_000 + 1_000,
      250 + 500 + 1_000 + 1_000 + 2_000,
    ])
    expect(ups.map((up) => up.instanceId)).toEqual(['instance-1', 'instance-5'])
    expect(supervisor.current?.instanceId).toBe('instance-5')
    // The workbench hears each step: down, each failed attempt, then up.
    expect(downs).toHaveLength(4)
    expect(downs[0]).toMatch(/SIGKILL/)
    expect(downs.slice(1).every((reason) => reason.startsWith('restart failed:'))).toBe(true)
    expect(launcher.launched.slice(1, 4).every((runtime) => runtime.exited)).toBe(true)
    await supervisor.stop()
  })

  it('starts again from the shortest delay after a stable run', async () => {
    const { clock, launcher, supervisor } = supervised()
    await supervisor.start()
    const crashedAt: number[] = []
    for (let crash = 0; crash < 3; crash += 1) {
      crashedAt.push(clock.now())
      launcher.last.exit(null, 'SIGSEGV')
      await clock.advance(5_000)
    }
    await clock.advance(STABLE_UPTIME_MS)
    crashedAt.push(clock.now())
    launcher.last.exit(null, 'SIGSEGV')
    await clock.advance(5_000)
    expect(gaps(launcher.launchedAt, crashedAt)).toEqual([250, 500, 1_000, 250])
    await supervisor.stop()
  })

  it('starts nothing after stop(), even with a restart pending', async () => {
    const { clock, launcher, supervisor, ups } = supervised()
    await supervisor.start()
    launcher.last.exit(null, 'SIGSEGV')
    await clock.advance(100)
    await supervisor.stop()
    expect(clock.pendingCount).toBe(0)
    await clock.advance(60_000)
    expect(launcher.launched).toHaveLength(1)
    expect(ups).toHaveLength(1)
    expect(supervisor.current).toBeUndefined()
  })

  it('gives up a failing restart loop once stopped', async () => {
    const { clock, launcher, supervisor } = supervised()
    await supervisor.start()
    launcher.script.push('exit-before-ready', 'exit-before-ready', 'exit-before-ready')
    launcher.last.exit(null, 'SIGSEGV')
    await clock.advance(250 + 500 + 100)
    expect(launcher.launched).toHaveLength(3)
    await supervisor.stop()
    await clock.advance(60_000)
    expect(launcher.launched).toHaveLength(3)
  })
  it('lets a deliberate restart replace an attempt still starting, without a second follow-up', async () => {
    const { clock, launcher, supervisor, ups, downs } = supervised()
    await supervisor.start()
    launcher.script.push('hang')
    launcher.last.exit(null, 'SIGSEGV')
    await clock.advance(250)
    expect(launcher.launched).toHaveLength(2)
    const restarted = await supervisor.restartWith({ approvalTtlMs: 5_000 })
    await clock.advance(60_000)
    expect(restarted.instanceId).toBe('instance-3')
    expect(launcher.launched).toHaveLength(3)
    expect(ups.map((up) => up.instanceId)).toEqual(['instance-1', 'instance-3'])
    expect(downs).toHaveLength(1)
    expect(supervisor.current?.instanceId).toBe('instance-3')
    await supervisor.stop()
  })
})
