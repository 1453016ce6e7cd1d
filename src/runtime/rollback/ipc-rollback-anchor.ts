import { AnchorAdvanceAnswerSchema } from '../../contracts/rollback-anchor.ts'
import type { RollbackAnchor } from '../ports/rollback-anchor.ts'

/** How long the runtime waits for main to store the anchor: a keychain that
 *  asks the person to unlock it may take a while; past this the write
 *  counts as failed (and is tried again with the next change). */
export const ANCHOR_ADVANCE_TIMEOUT_MS = 10_000

export interface IpcRollbackAnchorOptions {
  /** Sends one message to main; throws when the channel is closed. */
  send: (message: unknown) => void
  timeoutMs?: number
}

interface Pending {
  counter: number
  resolve: () => void
  reject: (error: Error) => void
  timer: ReturnType<typeof setTimeout>
}

/**
 * The anchor as the runtime reaches it: a request over the runtime's IPC
 * channel that main answers once the SecretStore holds the counter (the
 * runtime loads no native module, so it cannot write the keychain itself).
 * Answers are parsed strictly and matched by request id; an answer for
 * another counter than asked, or for no request, proves nothing and is
 * dropped, and the wait ends at the timeout as a failure.
 */
export class IpcRollbackAnchor implements RollbackAnchor {
  private readonly options: IpcRollbackAnchorOptions
  private readonly pending = new Map<number, Pending>()
  private nextId = 1

  constructor(options: IpcRollbackAnchorOptions) {
    this.options = options
  }

  advance(counter: number): Promise<void> {
    const requestId = this.nextId++
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(requestId)
        reject(new Error(`main did not confirm the rollback anchor ${counter} in time`))
      }, this.options.timeoutMs ?? ANCHOR_ADVANCE_TIMEOUT_MS)
      timer.unref()
      this.pending.set(requestId, { counter, resolve, reject, timer })
      try {
        this.options.send({ type: 'anchor-advance', requestId, counter })
      } catch (error) {
        clearTimeout(timer)
        this.pending.delete(requestId)
        reject(new Error(`the channel to main is closed: ${(error as Error).message}`))
      }
    })
  }

  /** Takes one message from main; true when it was an anchor answer. */
  receive(message: unknown): boolean {
    const parsed = AnchorAdvanceAnswerSchema.safeParse(message)
    if (!parsed.success) return false
    const answer = parsed.data
    const waiting = this.pending.get(answer.requestId)
    if (!waiting) return true
    if (answer.type === 'anchor-advanced' && answer.counter !== waiting.counter) return true
    this.pending.delete(answer.requestId)
    clearTimeout(waiting.timer)
    if (answer.type === 'anchor-advanced') waiting.resolve()
    else waiting.reject(new Error(`main could not advance the rollback anchor: ${answer.error}`))
    return true
  }

  /** The channel closed: nothing pending will be answered. */
  closeAll(reason: string): void {
    for (const [requestId, waiting] of this.pending) {
      clearTimeout(waiting.timer)
      this.pending.delete(requestId)
      waiting.reject(new Error(reason))
    }
  }
}
