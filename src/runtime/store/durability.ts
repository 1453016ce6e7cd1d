import { statSync } from 'node:fs'
import { open, type FileHandle } from 'node:fs/promises'
import { dirname } from 'node:path'
import type { DatabaseSync, StatementSync } from 'node:sqlite'

/**
 * Group commit for one SQLite connection in WAL mode with
 * `synchronous = NORMAL`: a COMMIT appends its frames to the WAL file
 * without waiting for the disk, and `durable()` resolves once an `fsync` of
 * that file, started after the call, has finished. Commits made while one
 * fsync runs share the next one, so ten clients deciding at once pay for one
 * disk flush, not ten, and the event loop never blocks on the disk.
 *
 * The invariant its users keep: nothing leaves the runtime because of a
 * write (an HTTP answer, an event, a tool started) before `durable()` has
 * resolved for it. A power loss can then only lose writes nobody acted on;
 * SQLite's WAL checksums keep what survives a consistent prefix.
 *
 * A failed fsync is fatal (`onFailure`): after one, the kernel may have
 * dropped the dirty pages, and a retry that succeeds would claim durability
 * for data that is gone. The runtime stops instead of answering.
 */
export class WalDurability {
  private readonly changes: StatementSync
  private readonly walPath: string
  private readonly onFailure: (error: Error) => void
  private handle: FileHandle | undefined
  private handleInode: number | undefined
  /** `total_changes()` when the last successful fsync started. */
  private syncedChanges: number
  private inFlight: { startChanges: number; done: Promise<void> } | undefined
  /** An fsync asked for in this turn of the event loop, not started yet. */
  private scheduled: Promise<void> | undefined
  private queued: Promise<void> | undefined
  private failure: Error | undefined
  private fsyncs = 0

  constructor(db: DatabaseSync, databasePath: string, onFailure: (error: Error) => void) {
    this.changes = db.prepare('SELECT total_changes() AS changes')
    this.walPath = `${databasePath}-wal`
    this.onFailure = onFailure
    this.syncedChanges = this.totalChanges()
  }

  /** Resolves when every change this connection committed before the call
   *  is on disk; rejects (for ever) once an fsync has failed. */
  durable(): Promise<void> {
    if (this.failure) return Promise.reject(this.failure)
    const changes = this.totalChanges()
    if (changes <= this.syncedChanges) return Promise.resolve()
    if (!this.inFlight) return this.scheduleFsync()
    // The fsync under way may have started before these changes: it covers
    // them only if it saw them.
    if (this.inFlight.startChanges >= changes) return this.inFlight.done
    this.queued ??= this.inFlight.done
      .catch(() => undefined)
      .then(() => {
        this.queued = undefined
        return this.durable()
      })
    return this.queued
  }

  /** How many fsyncs completed: commits per fsync is the group size. */
  get completedFsyncs(): number {
    return this.fsyncs
  }

  async close(): Promise<void> {
    await this.scheduled?.catch(() => undefined)
    await this.inFlight?.done.catch(() => undefined)
    await this.handle?.close()
    this.handle = undefined
  }

  /**
   * Starts the fsync once the current turn of the event loop is over, so
   * every commit made in it (a decision's answer, the tool it starts, the
   * next request already parsed) shares that flush instead of queueing for
   * a second one. The fsync still counts only the changes committed before
   * it starts (`startFsync`), so nothing is declared durable early.
   */
  private scheduleFsync(): Promise<void> {
    this.scheduled ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
      this.scheduled = undefined
      return this.startFsync()
    })
    return this.scheduled
  }

  private startFsync(): Promise<void> {
    const startChanges = this.totalChanges()
    const done = this.fsyncWal().then(
      () => {
        this.syncedChanges = Math.max(this.syncedChanges, startChanges)
        this.fsyncs += 1
        this.inFlight = undefined
      },
      (error: unknown) => {
        this.failure = new Error(
          `the store could not be made durable: ${(error as Error).message}`,
          { cause: error },
        )
        this.inFlight = undefined
        this.onFailure(this.failure)
        throw this.failure
      },
    )
    this.inFlight = { startChanges, done }
    return done
  }

  private async fsyncWal(): Promise<void> {
    // The WAL file keeps its inode while the connection is open (SQLite
    // rewinds it, never replaces it); if it was replaced anyway, sync the
    // file that is there now, never a stale descriptor.
    // A stat is one quick system call; as a promise it cost a thread-pool
    // round trip on every flush.
    const { ino } = statSync(this.walPath)
    if (!this.handle || this.handleInode !== ino) {
      await this.handle?.close()
      this.handle = await open(this.walPath, 'r')
      this.handleInode = (await this.handle.stat()).ino
      // A new file's directory entry must be durable too.
      const directory = await open(dirname(this.walPath), 'r')
      try {
        await directory.sync()
      } finally {
        await directory.close()
      }
    }
    await this.handle.sync()
  }

  private totalChanges(): number {
    return Number((this.changes.get() as { changes: number }).changes)
  }
}

const barriers = new WeakMap<DatabaseSync, WalDurability>()

export function registerDurability(db: DatabaseSync, durability: WalDurability): void {
  barriers.set(db, durability)
}

/**
 * The durability barrier of a connection opened by `openDatabase`. A
 * connection without one was opened some other way; asking it is a bug, and
 * it fails rather than pretend its writes are on disk.
 */
export function durabilityOf(db: DatabaseSync): WalDurability {
  const durability = barriers.get(db)
  if (!durability) throw new Error('this connection has no durability barrier (use openDatabase)')
  return durability
}
