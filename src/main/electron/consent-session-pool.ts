/**
 * Protected windows reuse a few sessions instead of making one per prompt.
 *
 * Electron keeps every session it ever made, in-memory ones included, until
 * the app quits: `session.fromPartition` files each partition in a static
 * map that only `ElectronBrowserContext::DestroyAllContexts` empties, at
 * shutdown (shell/browser/electron_browser_context.cc). A new random
 * partition per prompt would therefore grow memory with every approval.
 *
 * What keeps reuse safe:
 * - a session is leased to one window at a time, never to two live ones;
 * - a released session is cleared (storage, caches, auth) before anyone can
 *   lease it again, and one whose clearing failed is never leased again;
 * - there are at most `maxSessions`; a lease beyond that is refused rather
 *   than served from a session another prompt still holds.
 */

export interface ConsentSessionPoolOptions<S> {
  /** A new session, already locked down (handlers, scheme, filters). */
  create: () => S
  /** Wipes everything a page may have left in the session. */
  clear: (session: S) => Promise<void>
  /** How many sessions may exist at once, leased, idle or being cleared. */
  maxSessions: number
  onDiagnostic?: (message: string) => void
}

/** One window's hold on a session; `release` once its page is gone. */
export interface SessionLease<S> {
  readonly session: S
  /** Idempotent: only the first call returns the session to the pool. */
  release(): void
}

export interface ConsentSessionPoolStats {
  created: number
  idle: number
  leased: number
  clearing: number
  retired: number
}

/** Enough for the prepared spare plus more reviews than a person can hold
 *  open and read at once. */
export const MAX_CONSENT_SESSIONS = 8

export class ConsentSessionPool<S> {
  private readonly options: ConsentSessionPoolOptions<S>
  private readonly idle: S[] = []
  private readonly leased = new Set<S>()
  private readonly clearing = new Map<S, Promise<void>>()
  private created = 0
  private retired = 0

  constructor(options: ConsentSessionPoolOptions<S>) {
    if (!Number.isInteger(options.maxSessions) || options.maxSessions < 1) {
      throw new Error('the consent session pool needs room for at least one session')
    }
    this.options = options
  }

  /** A cleared or new session for one window. Waits for a session being
   *  cleared when the pool is full; refuses when every session is leased. */
  async lease(): Promise<SessionLease<S>> {
    for (;;) {
      const idle = this.idle.shift()
      if (idle !== undefined) return this.hand(idle)
      if (this.created < this.options.maxSessions) {
        const created = this.options.create()
        this.created += 1
        return this.hand(created)
      }
      if (this.clearing.size === 0) {
        throw new Error(
          `no consent session is free: ${this.leased.size} protected windows are open at once`,
        )
      }
      await Promise.race(this.clearing.values())
    }
  }

  stats(): ConsentSessionPoolStats {
    return {
      created: this.created,
      idle: this.idle.length,
      leased: this.leased.size,
      clearing: this.clearing.size,
      retired: this.retired,
    }
  }

  private hand(session: S): SessionLease<S> {
    this.leased.add(session)
    let released = false
    return {
      session,
      release: () => {
        if (released) return
        released = true
        this.release(session)
      },
    }
  }

  private release(session: S): void {
    this.leased.delete(session)
    let cleared: Promise<void>
    try {
      cleared = this.options.clear(session)
    } catch (error) {
      cleared = Promise.reject(error)
    }
    const settled = cleared.then(
      () => {
        this.idle.push(session)
      },
      (error: unknown) => {
        // Whatever the last page left may still be there: never lease it
        // again. Its slot stays taken, so repeated failures end in refusals,
        // not in unbounded sessions.
        this.retired += 1
        this.options.onDiagnostic?.(`a consent session could not be cleared: ${String(error)}`)
      },
    )
    const tracked = settled.finally(() => this.clearing.delete(session))
    this.clearing.set(session, tracked)
  }
}
