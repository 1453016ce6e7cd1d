import {
  askSafely,
  type ExternalActionRequest,
  type ExternalAgentEventSink,
  type ExternalApprovalAsker,
  type ExternalDecision,
} from './external-agent-port.ts'

/**
 * The approvals an agent is waiting on, keyed by the agent's request id.
 * Each is asked through the asker once; withdrawing one (the agent resolved
 * it itself, the turn or the process ended) settles it as `cancelled` at
 * once, without waiting for the asker, so the adapter can still answer the
 * agent before it goes away.
 */
export class PendingApprovals {
  private readonly pending = new Map<string, AbortController>()
  private readonly asker: ExternalApprovalAsker
  private readonly onEvent: ExternalAgentEventSink

  constructor(asker: ExternalApprovalAsker, onEvent: ExternalAgentEventSink) {
    this.asker = asker
    this.onEvent = onEvent
  }

  get size(): number {
    return this.pending.size
  }

  /** Asks for `request` and resolves with the decision, or `cancelled` if
   *  the request is withdrawn first. */
  async decide(key: string, request: ExternalActionRequest): Promise<ExternalDecision> {
    // Two requests under one id: an answer to that id could not say which
    // it allows, and withdrawing it by id could reach only one. Both are
    // answered cancelled; neither is asked (fails closed).
    const earlier = this.pending.get(key)
    if (earlier !== undefined) {
      earlier.abort()
      return 'cancelled'
    }
    const controller = new AbortController()
    this.pending.set(key, controller)
    this.onEvent({ type: 'approval-requested', request })
    const withdrawn = new Promise<ExternalDecision>((resolve) => {
      controller.signal.addEventListener('abort', () => resolve('cancelled'), { once: true })
    })
    try {
      const decision = await Promise.race([
        askSafely(this.asker, request, controller.signal),
        withdrawn,
      ])
      // An answer that arrives after the request was withdrawn is not sent:
      // the agent no longer waits for it, and it must not allow anything.
      return controller.signal.aborted ? 'cancelled' : decision
    } finally {
      if (this.pending.get(key) === controller) this.pending.delete(key)
    }
  }

  withdraw(key: string): void {
    this.pending.get(key)?.abort()
  }

  withdrawAll(): void {
    for (const controller of this.pending.values()) controller.abort()
  }
}

/** Rejects with `what` named if `promise` has not settled in `timeoutMs`. */
export function withTimeout<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what} took longer than ${timeoutMs} ms`)),
      timeoutMs,
    )
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}
