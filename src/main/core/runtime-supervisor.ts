import { randomBytes as nodeRandomBytes } from 'node:crypto'
import {
  RuntimeFailedSchema,
  RuntimeReadySchema,
  type RuntimeInit,
} from '../../contracts/runtime-init.ts'
import { serveAnchorRequests, type RollbackAnchorKeeper } from './rollback-anchor-keeper.ts'
import type { RuntimeLauncher, RuntimeProcess } from './runtime-launcher.ts'

export const RUNTIME_READY_TIMEOUT_MS = 15_000
/** Delays before the 1st, 2nd, … consecutive restart; the last one repeats
 *  for as long as the runtime keeps failing. */
export const RESTART_BACKOFF_MS = [250, 500, 1_000, 2_000, 5_000, 10_000] as const
/** A runtime that ran this long before it exited was not crash-looping:
 *  its next restart starts again from the shortest delay. */
export const STABLE_UPTIME_MS = 30_000

/** The clock and timers the supervisor uses; tests pass fakes. */
export interface SupervisorTimers {
  now: () => number
  setTimeout: (callback: () => void, ms: number) => unknown
  clearTimeout: (handle: unknown) => void
}

const SYSTEM_TIMERS: SupervisorTimers = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => {
    const handle = setTimeout(callback, ms)
    // A pending restart alone must not keep the process alive.
    handle.unref()
    return handle
  },
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
}

/** Everything main needs to talk to one runtime instance. Held only in main. */
export interface RuntimeConnection {
  port: number
  instanceId: string
  bearerToken: string
  consentKey: Buffer
}

export interface RuntimeSupervisorOptions {
  launcher: RuntimeLauncher
  dataDir: string
  /** The data folder's integrity key, read from the SecretStore by whoever
   *  builds the supervisor: the same on every start, unlike the two secrets
   *  made here. */
  integrityKey: Buffer
  /** The data folder's rollback anchor, in the same SecretStore as the key:
   *  read before each launch and handed to the runtime, and advanced when
   *  the runtime asks over its IPC channel (docs/integrity.md#rollback). */
  rollbackAnchor: RollbackAnchorKeeper
  approvalTtlMs?: number
  questionPhaseMs?: number
  scopedRoots?: string[]
  /** mcp.json, when not the one in the data folder. */
  mcpConfigPath?: string
  randomBytes?: (size: number) => Buffer
  readyTimeoutMs?: number
  /** Restart a crashed runtime (on by default). */
  restart?: boolean
  timers?: SupervisorTimers
  onUp?: (connection: RuntimeConnection) => void
  onDown?: (reason: string) => void
  /** Where main's own problems go (an anchor the keychain refused). */
  onDiagnostic?: (message: string) => void
}

/**
 * Starts the runtime, hands it its secrets over IPC, and restarts it with
 * backoff when it crashes. Each start gets a fresh bearer token and consent
 * key, so nothing minted for a dead instance works on the next one.
 *
 * Backoff: consecutive failures (a crash soon after start, or a restart that
 * never became ready) wait longer each time, up to the last delay of
 * RESTART_BACKOFF_MS, and a failed restart is tried again rather than given
 * up on. Only a run of STABLE_UPTIME_MS resets the count. Every exit and
 * every failed restart is reported through `onDown`, every start through
 * `onUp`.
 */
export class RuntimeSupervisor {
  private options: RuntimeSupervisorOptions
  private process: RuntimeProcess | undefined
  private connection: RuntimeConnection | undefined
  private stopping = false
  /** Consecutive failures since the last stable run. */
  private failures = 0
  private upAt = 0
  private restartTimer: unknown
  private readonly timers: SupervisorTimers

  constructor(options: RuntimeSupervisorOptions) {
    this.options = options
    this.timers = options.timers ?? SYSTEM_TIMERS
  }

  get current(): RuntimeConnection | undefined {
    return this.connection
  }

  get pid(): number | undefined {
    return this.process?.pid
  }

  /** Stops the runtime and starts a fresh instance (new secrets), optionally
   *  with a different approval TTL (the smoke scenario's expiry case). */
  async restartWith(
    update: { approvalTtlMs?: number; questionPhaseMs?: number } = {},
  ): Promise<RuntimeConnection> {
    await this.stop()
    if (update.approvalTtlMs !== undefined) {
      this.options = { ...this.options, approvalTtlMs: update.approvalTtlMs }
    }
    if (update.questionPhaseMs !== undefined) {
      this.options = { ...this.options, questionPhaseMs: update.questionPhaseMs }
    }
    return this.start()
  }

  async start(): Promise<RuntimeConnection> {
    this.stopping = false
    this.cancelRestart()
    const random = this.options.randomBytes ?? nodeRandomBytes
    const bearerToken = random(32).toString('base64url')
    const consentKey = random(32)
    const child = this.options.launcher.launch()
    this.process = child
    serveAnchorRequests(child, this.options.rollbackAnchor, this.options.onDiagnostic)
    let ready: { port: number; instanceId: string }
    try {
      // Read afresh for each launch: the previous instance's clean shutdown
      // advanced it. A store that cannot be read fails this start, as a
      // missing integrity key does.
      const rollbackAnchor = (await this.options.rollbackAnchor.read()) ?? null
      ready = await waitForReady(
        child,
        this.options.readyTimeoutMs ?? RUNTIME_READY_TIMEOUT_MS,
        this.timers,
        {
          type: 'init',
          bearerToken,
          consentKey: consentKey.toString('base64url'),
          integrityKey: this.options.integrityKey.toString('base64url'),
          dataDir: this.options.dataDir,
          rollbackAnchor,
          ...(this.options.approvalTtlMs === undefined
            ? {}
            : { approvalTtlMs: this.options.approvalTtlMs }),
          ...(this.options.questionPhaseMs === undefined
            ? {}
            : { questionPhaseMs: this.options.questionPhaseMs }),
          ...(this.options.scopedRoots === undefined
            ? {}
            : { scopedRoots: this.options.scopedRoots }),
          ...(this.options.mcpConfigPath === undefined
            ? {}
            : { mcpConfigPath: this.options.mcpConfigPath }),
        },
      )
    } catch (error) {
      // Whatever half-started must not linger next to the next attempt.
      child.kill('SIGKILL')
      if (this.process === child) this.process = undefined
      throw error
    }
    if (this.stopping || this.process !== child) {
      // Stopped (or replaced) while it was starting: this instance is not wanted.
      child.kill('SIGKILL')
      throw new Error('the runtime was stopped while it was starting')
    }
    const connection = { port: ready.port, instanceId: ready.instanceId, bearerToken, consentKey }
    this.connection = connection
    this.upAt = this.timers.now()
    child.onExit((code, signal) => this.handleExit(child, code, signal))
    this.options.onUp?.(connection)
    return connection
  }

  /** Asks the runtime to close cleanly, then kills it if it does not. */
  async stop(timeoutMs = 5_000): Promise<void> {
    this.stopping = true
    this.cancelRestart()
    const child = this.process
    this.connection = undefined
    this.process = undefined
    if (!child) return
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL')
        resolve()
      }, timeoutMs)
      child.onExit(() => {
        clearTimeout(timer)
        resolve()
      })
      child.send({ type: 'shutdown' })
    })
  }

  private handleExit(child: RuntimeProcess, code: number | null, signal: string | null): void {
    if (child !== this.process || this.stopping) return
    this.connection = undefined
    this.process = undefined
    if (this.timers.now() - this.upAt >= STABLE_UPTIME_MS) this.failures = 0
    this.options.onDown?.(`the runtime exited (${signal ?? `code ${code}`})`)
    if (this.options.restart === false) return
    this.scheduleRestart()
  }

  /** The next attempt, after a delay that grows with each consecutive
   *  failure. A failed attempt schedules the one after it: the workbench
   *  must not wait for a runtime nobody is starting any more. */
  private scheduleRestart(): void {
    const delay = restartDelayMs(this.failures)
    this.failures += 1
    this.cancelRestart()
    this.restartTimer = this.timers.setTimeout(() => {
      this.restartTimer = undefined
      if (this.stopping || this.process) return
      this.start().catch((error: unknown) => {
        // Stopped, or someone else started (or is starting) a runtime since:
        // this failed attempt is no longer the one to follow up.
        if (this.stopping || this.process !== undefined) return
        this.options.onDown?.(
          `restart failed: ${(error as Error).message}; trying again in ${restartDelayMs(this.failures)} ms`,
        )
        this.scheduleRestart()
      })
    }, delay)
  }

  private cancelRestart(): void {
    if (this.restartTimer === undefined) return
    this.timers.clearTimeout(this.restartTimer)
    this.restartTimer = undefined
  }
}

/** The delay before the restart that follows `failures` consecutive ones. */
export function restartDelayMs(failures: number): number {
  return RESTART_BACKOFF_MS[Math.min(failures, RESTART_BACKOFF_MS.length - 1)] ?? 10_000
}

function waitForReady(
  child: RuntimeProcess,
  timeoutMs: number,
  timers: SupervisorTimers,
  init: RuntimeInit,
) {
  return new Promise<{ port: number; instanceId: string }>((resolve, reject) => {
    const clearTimeout = (handle: unknown) => timers.clearTimeout(handle)
    const timer = timers.setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`the runtime did not become ready within ${timeoutMs} ms`))
    }, timeoutMs)
    child.onExit((code, signal) => {
      clearTimeout(timer)
      reject(new Error(`the runtime exited before it was ready (${signal ?? `code ${code}`})`))
    })
    child.onMessage((message) => {
      const ready = RuntimeReadySchema.safeParse(message)
      if (ready.success) {
        clearTimeout(timer)
        resolve({ port: ready.data.port, instanceId: ready.data.instanceId })
        return
      }
      const failed = RuntimeFailedSchema.safeParse(message)
      if (failed.success) {
        clearTimeout(timer)
        reject(new Error(`the runtime failed to start: ${failed.data.error}`))
      }
    })
    child.send(init)
  })
}
