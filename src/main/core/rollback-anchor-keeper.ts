import {
  AnchorAdvanceRequestSchema,
  type AnchorAdvanceAnswer,
} from '../../contracts/rollback-anchor.ts'
import type { RuntimeProcess } from './runtime-launcher.ts'
import type { SecretStore } from './secret-store.ts'

/** How much of a failure's text goes back to the runtime (for its log). */
const MAX_ERROR_CHARS = 2_000

/**
 * Main's side of the rollback anchor (docs/integrity.md#rollback): the
 * highest rollback counter the data dir's database reached, kept in the
 * same SecretStore as its integrity key, outside the database it guards.
 *
 * The anchor only moves forward: `advance` refuses a lower counter (a
 * runtime asking for one is wrong about the database, and lowering the
 * anchor would make an older copy pass), writes a higher one and reads it
 * back, and runs one request at a time, so two requests can never
 * interleave a read and a write and lower it between them.
 */
export class RollbackAnchorKeeper {
  private readonly store: SecretStore
  private readonly account: string
  private queue: Promise<unknown> = Promise.resolve()

  constructor(store: SecretStore, account: string) {
    this.store = store
    this.account = account
  }

  /** The stored anchor, or undefined when none was ever stored. */
  read(): Promise<number | undefined> {
    return this.serially(() => this.store.readAnchor(this.account))
  }

  /** Stores `counter` unless the anchor already holds it; resolves with the
   *  anchor as read back, rejects when it would be lowered or could not be
   *  written. */
  advance(counter: number): Promise<number> {
    return this.serially(async () => {
      if (!Number.isSafeInteger(counter) || counter < 0) {
        throw new Error(`a rollback counter is a non-negative safe integer, not ${counter}`)
      }
      const current = await this.store.readAnchor(this.account)
      if (current !== undefined && counter < current) {
        throw new Error(
          `refused to lower the rollback anchor in ${this.store.description} from ${current} to ${counter}`,
        )
      }
      if (current === counter) return counter
      await this.store.writeAnchor(this.account, counter)
      const stored = await this.store.readAnchor(this.account)
      if (stored !== counter) {
        throw new Error(
          `the rollback anchor ${counter} was written to ${this.store.description} but read back as ${stored ?? 'nothing'}`,
        )
      }
      return counter
    })
  }

  private serially<T>(work: () => Promise<T>): Promise<T> {
    const result = this.queue.then(work)
    // The next request waits for this one whatever its outcome.
    this.queue = result.catch(() => undefined)
    return result
  }
}

/**
 * Answers one runtime process's `anchor-advance` requests, for as long as
 * it runs (its clean shutdown sends the last one). Requests are parsed
 * strictly; one that does not parse is reported and left unanswered, so
 * the runtime's wait for it times out and it records the anchor as lagging.
 */
export function serveAnchorRequests(
  child: RuntimeProcess,
  keeper: RollbackAnchorKeeper,
  onDiagnostic: (message: string) => void = () => undefined,
): void {
  child.onMessage((message) => {
    if ((message as { type?: unknown } | null)?.type !== 'anchor-advance') return
    const request = AnchorAdvanceRequestSchema.safeParse(message)
    if (!request.success) {
      onDiagnostic(
        `refused a malformed anchor-advance request: ${request.error.issues[0]?.message}`,
      )
      return
    }
    const { requestId, counter } = request.data
    keeper.advance(counter).then(
      (stored) => answer(child, { type: 'anchor-advanced', requestId, counter: stored }),
      (error: unknown) => {
        const text = error instanceof Error ? error.message : String(error)
        onDiagnostic(`the rollback anchor was not advanced to ${counter}: ${text}`)
        answer(child, {
          type: 'anchor-refused',
          requestId,
          error: text.slice(0, MAX_ERROR_CHARS),
        })
      },
    )
  })
}

function answer(child: RuntimeProcess, message: AnchorAdvanceAnswer): void {
  child.send(message)
}
