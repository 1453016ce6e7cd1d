import { checkRollback, type RollbackVerdict } from '../domain/rollback-check.ts'
import { Refusal } from '../domain/refusal.ts'
import type { EventBus } from '../events/event-bus.ts'
import type { RollbackAnchor, RollbackAnchorSync } from '../ports/rollback-anchor.ts'
import type { RollbackRecord, RollbackStore } from '../ports/rollback-store.ts'

export interface RollbackGuardOptions {
  store: RollbackStore
  /** Main's copy of the anchor, over the runtime's IPC channel. */
  anchor: RollbackAnchor
  /** Resolves once every earlier commit is on disk (group commit). */
  durable: () => Promise<void>
  events: EventBus
  now: () => number
  onError: (error: unknown) => void
}

/** What the start check found, and what it changed. */
export type RollbackStart =
  | { verdict: Exclude<RollbackVerdict, { kind: 'rolled-back' }> }
  | { verdict: Extract<RollbackVerdict, { kind: 'rolled-back' }>; record: RollbackRecord }

/** A `runtime.integrity` report about the database as a whole, one
 *  notice per problem. */
export function databaseReport(problem: 'rolled_back' | 'anchor_lagging') {
  return { table: 'database', rowId: problem, roomId: null, problem }
}

/**
 * Keeps the rollback anchor (docs/integrity.md#rollback) in step with the
 * database's rollback counter:
 * - at start, compares the two before anything is served, and records a
 *   database older than the anchor as rolled back;
 * - after every commit that moved the counter, once it is on disk, asks
 *   main to advance the anchor to the committed value: never before, so
 *   the anchor is never ahead of a database that survived a crash;
 * - before a widening, makes sure the anchor is not behind, and refuses
 *   the widening when it cannot be brought up to date;
 * - at clean shutdown, advances the counter once more and the anchor with
 *   it, so any copy taken while this instance ran is older than the anchor.
 */
export class RollbackGuard implements RollbackAnchorSync {
  private readonly options: RollbackGuardOptions
  /** The highest value main confirmed it holds (null: none stored). */
  private anchored: number | null = null
  private syncing: Promise<void> | undefined
  private dirty = false
  /** A lag is reported once until the anchor catches up again. */
  private lagReported = false
  private closed = false

  constructor(options: RollbackGuardOptions) {
    this.options = options
    options.store.onAdvanced(() => this.changed())
  }

  /**
   * The check at start, with `stored` the anchor main read before the
   * launch. A new or upgraded data dir gets its anchor (0) before anything
   * counts; if that write fails the start fails, since every later start
   * would otherwise find a counter without an anchor.
   */
  async start(stored: number | null): Promise<RollbackStart> {
    this.anchored = stored
    const counter = this.options.store.readCounter()
    const verdict = checkRollback(
      counter,
      stored,
      counter.state !== 'sealed' || this.options.store.rowsMatchCounter(),
    )
    if (verdict.kind === 'initialise') {
      await this.options.anchor.advance(0)
      this.anchored = 0
      return { verdict }
    }
    if (verdict.kind === 'current') {
      this.options.store.countFrom(verdict.counter)
      this.changed() // catches up a database ahead of its anchor; a no-op when not
      await this.settled()
      return { verdict }
    }
    this.options.store.countFrom(verdict.next)
    const record = this.options.store.recordRollback({
      reason: verdict.reason,
      databaseCounter: verdict.databaseCounter,
      anchor: verdict.anchor,
      counter: verdict.next,
      at: this.options.now(),
    })
    this.options.events.emit('runtime.integrity', databaseReport('rolled_back'))
    await this.settled()
    return { verdict, record }
  }

  async beforeWidening(): Promise<void> {
    await this.settled()
    if (!this.behind()) return
    this.changed()
    await this.settled()
    if (this.behind()) {
      throw new Refusal(
        'rollback_anchor_unavailable',
        'the rollback anchor could not be advanced, so nothing is widened until it can',
      )
    }
  }

  settled(): Promise<void> {
    return this.syncing ?? Promise.resolve()
  }

  /** Advances the counter with its `clean_shutdown` event and the anchor to
   *  it. After this, nothing is synced any more: the database closes. */
  async shutdown(instanceId: string): Promise<void> {
    await this.settled()
    this.options.store.recordCleanShutdown(instanceId, this.options.now())
    await this.settled()
    this.closed = true
  }

  /** Called inside the writer's transaction: the sync it starts waits for
   *  that transaction to end before it reads anything. */
  private changed(): void {
    if (this.closed) return
    this.dirty = true
    this.syncing ??= this.drain()
  }

  private async drain(): Promise<void> {
    try {
      // node:sqlite transactions are synchronous: by the time this runs,
      // the transaction that called `changed` has committed or rolled back.
      await Promise.resolve()
      while (this.dirty) {
        this.dirty = false
        await this.syncOnce()
      }
    } finally {
      this.syncing = undefined
    }
  }

  private async syncOnce(): Promise<void> {
    let counter: number
    try {
      await this.options.durable()
      counter = this.committedCounter()
    } catch (error) {
      // Not on disk, or not readable: the anchor must not move to it.
      this.options.onError(error)
      return
    }
    if (this.anchored !== null && counter <= this.anchored) return
    try {
      await this.options.anchor.advance(counter)
      this.anchored = Math.max(this.anchored ?? 0, counter)
      this.lagReported = false
    } catch (error) {
      this.reportLag(counter, error)
    }
  }

  /** Whether the anchor is behind the committed counter. A head that does
   *  not verify while running says nothing about what is committed, so it
   *  counts as behind: widening waits until the next change seals it
   *  afresh. */
  private behind(): boolean {
    const current = this.options.store.readCounter()
    if (current.state === 'tampered') return true
    const counter = current.state === 'sealed' ? current.counter : 0
    return this.anchored === null || counter > this.anchored
  }

  private committedCounter(): number {
    const current = this.options.store.readCounter()
    if (current.state === 'tampered') {
      throw new Error('the rollback counter does not verify; the anchor stays where it is')
    }
    return current.state === 'sealed' ? current.counter : 0
  }

  /** A failed anchor write is never ignored: the first of a run is an
   *  audit event and a report the workbench shows; every failure goes to
   *  the runtime's error log. */
  private reportLag(counter: number, error: unknown): void {
    const text = error instanceof Error ? error.message : String(error)
    this.options.onError(new Error(`the rollback anchor was not advanced to ${counter}: ${text}`))
    if (this.lagReported) return
    try {
      this.options.store.recordAnchorLag(
        { counter, anchored: this.anchored, error: text },
        this.options.now(),
      )
      this.lagReported = true
      this.options.events.emit('runtime.integrity', databaseReport('anchor_lagging'))
    } catch (recordError) {
      this.options.onError(recordError)
    }
  }
}
