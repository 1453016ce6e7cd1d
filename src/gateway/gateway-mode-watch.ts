import type { GatewayMode } from '../contracts/mcp-gateway.ts'
import { modeUnknown, notOfferedInPlan } from '../runtime/mcp/mcp-refusal.ts'

/** The first wait after an error; each next one doubles, up to
 *  `RETRY_MAX_MS`, so a runtime that restarts is found within a couple of
 *  seconds, and one that is not running is not asked in a busy loop. */
export const MODE_RETRY_MIN_MS = 100
export const MODE_RETRY_MAX_MS = 2_000
/** How long one poll may take: the runtime answers a poll with nothing
 *  seen at once, and any other within its long poll (20 s). */
const FIRST_POLL_TIMEOUT_MS = 10_000
const POLL_TIMEOUT_MS = 60_000

/** One long poll of the gateway room's mode (`POST /v1/gateway/mode`):
 *  at once when its state is not `seen`, else once it changes. */
export type ModePoll = (seen: string | null, signal: AbortSignal) => Promise<GatewayMode>

export interface GatewayModeWatchOptions {
  poll: ModePoll
  log: (line: string) => void
  /** The first wait after an error; `MODE_RETRY_MIN_MS` unless a test
   *  shortens it. */
  retryMinMs?: number
}

/**
 * What the gateway knows of its room's mode, kept by a loop of long polls
 * to the runtime, so that a call the gateway runs without asking anyone
 * (a read-only manifest's, a preview, a read, a sampling request) costs no
 * round trip to the runtime and still never runs in plan mode.
 *
 * The mode is unknown until the first answer, and again from any error
 * until the next answer: while it is, nothing runs (`mayRun` refuses,
 * saying why), since the room may be in plan mode. A call that comes
 * before the first poll settled waits for it rather than being refused
 * for being early. Between a mode change and the gateway learning it
 * there is the time the runtime's answer takes to arrive: milliseconds.
 */
export class GatewayModeWatch {
  private readonly options: GatewayModeWatchOptions
  private readonly stopped = new AbortController()
  private known: GatewayMode | undefined
  /** Why the mode is unknown, for the refusal and the log. */
  private why = 'the runtime has not answered yet'
  private first: Promise<void> | undefined
  private firstSettled = false

  constructor(options: GatewayModeWatchOptions) {
    this.options = options
  }

  /** Starts the loop (once); `close` ends it. */
  start(): void {
    if (this.first !== undefined) return
    let settle: () => void = () => undefined
    this.first = new Promise<void>((resolve) => (settle = resolve))
    void this.loop(() => {
      if (this.firstSettled) return
      this.firstSettled = true
      settle()
    })
  }

  /**
   * Refuses the call `name` unless the runtime confirmed a mode that asks
   * (not plan): the mode unknown (`mode_unknown`), or one that never asks
   * (`not_offered_in_plan`). Before the first answer it waits for it;
   * after, it answers at once from what the watch holds.
   */
  mayRun(name: string): Promise<void> | void {
    this.start()
    if (!this.firstSettled) return this.first?.then(() => this.check(name))
    this.check(name)
  }

  /** Ends the loop and the poll under way. */
  close(): void {
    this.stopped.abort()
    this.known = undefined
    this.why = 'the gateway is closing'
  }

  private check(name: string): void {
    const known = this.known
    if (known === undefined) throw modeUnknown(name, this.why)
    if (known.neverAsks) throw notOfferedInPlan(name)
  }

  private async loop(settled: () => void): Promise<void> {
    const minMs = this.options.retryMinMs ?? MODE_RETRY_MIN_MS
    let retryMs = minMs
    while (!this.stopped.signal.aborted) {
      const seen = this.known?.revision ?? null
      const timeout = seen === null ? FIRST_POLL_TIMEOUT_MS : POLL_TIMEOUT_MS
      try {
        const mode = await this.options.poll(
          seen,
          AbortSignal.any([this.stopped.signal, AbortSignal.timeout(timeout)]),
        )
        if (mode.neverAsks !== this.known?.neverAsks) this.logMode(mode)
        this.known = mode
        retryMs = minMs
      } catch (error) {
        if (this.stopped.signal.aborted) break
        const why = (error as Error).message
        if (this.known !== undefined || !this.firstSettled || why !== this.why) {
          this.options.log(
            `assent-gateway: the runtime cannot confirm the gateway room's mode (${why}); nothing runs without asking until it does, retrying`,
          )
        }
        this.known = undefined
        this.why = why
        settled()
        await sleep(retryMs, this.stopped.signal)
        retryMs = Math.min(retryMs * 2, MODE_RETRY_MAX_MS)
        continue
      }
      settled()
    }
    // Closed before any answer: what waited is refused, not left waiting.
    settled()
  }

  private logMode(mode: GatewayMode): void {
    this.options.log(
      mode.neverAsks
        ? 'assent-gateway: the gateway room is in plan mode (or must be confirmed again): every MCP call is refused'
        : 'assent-gateway: the gateway room asks the person: read-only servers run without asking',
    )
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms)
    function done() {
      clearTimeout(timer)
      signal.removeEventListener('abort', done)
      resolve()
    }
    signal.addEventListener('abort', done, { once: true })
  })
}
