import { randomBytes as nodeRandomBytes } from 'node:crypto'
import {
  RuntimeFailedSchema,
  RuntimeReadySchema,
  type RuntimeInit,
} from '../../runtime/contracts/runtime-init.ts'
import type { RuntimeLauncher, RuntimeProcess } from './runtime-launcher.ts'

export const RUNTIME_READY_TIMEOUT_MS = 15_000
export const RESTART_BACKOFF_MS = [250, 500, 1_000, 2_000, 5_000, 10_000] as const

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
  /** The data dir's integrity key, read from the SecretStore by whoever
   *  builds the supervisor: the same on every start, unlike the two secrets
   *  made here. */
  integrityKey: Buffer
  approvalTtlMs?: number
  questionPhaseMs?: number
  scopedRoots?: string[]
  /** mcp.json, when not the one in the data dir. */
  mcpConfigPath?: string
  randomBytes?: (size: number) => Buffer
  readyTimeoutMs?: number
  /** Restart a crashed runtime (on by default). */
  restart?: boolean
  onUp?: (connection: RuntimeConnection) => void
  onDown?: (reason: string) => void
}

/**
 * Starts the runtime, hands it its secrets over IPC, and restarts it with
 * backoff when it crashes. Each start gets a fresh bearer token and consent
 * key, so nothing minted for a dead instance works on the next one.
 */
export class RuntimeSupervisor {
  private options: RuntimeSupervisorOptions
  private process: RuntimeProcess | undefined
  private connection: RuntimeConnection | undefined
  private stopping = false
  private failures = 0

  constructor(options: RuntimeSupervisorOptions) {
    this.options = options
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
    const random = this.options.randomBytes ?? nodeRandomBytes
    const bearerToken = random(32).toString('base64url')
    const consentKey = random(32)
    const child = this.options.launcher.launch()
    this.process = child
    const ready = await waitForReady(
      child,
      this.options.readyTimeoutMs ?? RUNTIME_READY_TIMEOUT_MS,
      {
        type: 'init',
        bearerToken,
        consentKey: consentKey.toString('base64url'),
        integrityKey: this.options.integrityKey.toString('base64url'),
        dataDir: this.options.dataDir,
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
    const connection = { port: ready.port, instanceId: ready.instanceId, bearerToken, consentKey }
    this.connection = connection
    this.failures = 0
    child.onExit((code, signal) => this.handleExit(child, code, signal))
    this.options.onUp?.(connection)
    return connection
  }

  /** Asks the runtime to close cleanly, then kills it if it does not. */
  async stop(timeoutMs = 5_000): Promise<void> {
    this.stopping = true
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
    this.options.onDown?.(`the runtime exited (${signal ?? `code ${code}`})`)
    if (this.options.restart === false) return
    const delay =
      RESTART_BACKOFF_MS[Math.min(this.failures, RESTART_BACKOFF_MS.length - 1)] ?? 10_000
    this.failures += 1
    setTimeout(() => {
      if (this.stopping) return
      this.start().catch((error: unknown) => {
        this.options.onDown?.(`restart failed: ${(error as Error).message}`)
      })
    }, delay).unref()
  }
}

function waitForReady(child: RuntimeProcess, timeoutMs: number, init: RuntimeInit) {
  return new Promise<{ port: number; instanceId: string }>((resolve, reject) => {
    const timer = setTimeout(() => {
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
