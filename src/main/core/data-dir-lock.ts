import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'

/** The file in the data folder whose lock says "an Assent owns this folder". */
export const DATA_DIR_LOCK_FILE = 'assent-instance.lock'

/** SQLite's primary result code for "another connection holds the lock";
 *  extended codes (SQLITE_BUSY_RECOVERY, …) keep it in their low byte. */
const SQLITE_BUSY = 5

/**
 * One Assent per data folder. Two mains on one folder would run two runtimes
 * on one database, each with its own consent key and nonce ledger, and
 * append to one audit chain from two writers.
 *
 * Electron's single-instance lock cannot say this: it is keyed by `userData`
 * (Chromium's process singleton lives there), and ASSENT_DATA_DIR may point
 * two differently named apps, or two `userData` folders, at one data folder.
 * So main also holds an exclusive SQLite lock on a file in the data folder.
 * SQLite takes it with the operating system's own file locks (fcntl on
 * POSIX, LockFileEx on Windows), which the kernel drops when the holder
 * exits, however it exits: a crashed Assent leaves no stale lock behind,
 * and no process id is ever guessed at. The lock follows the file, so a
 * second path to the same folder (a symlink) meets the same lock.
 */
export class DataDirLock {
  private readonly database: DatabaseSync
  private released = false

  private constructor(database: DatabaseSync) {
    this.database = database
  }

  /**
   * Takes the data folder's lock, creating the folder (0700) and the lock file
   * if needed; `undefined` when another process, or another lock in this
   * one, holds it. Any other failure throws: a lock that could not be
   * checked must stop the start, not be assumed free.
   */
  static acquire(dataDir: string): DataDirLock | undefined {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 })
    // timeout 0: a held lock is an answer now, not after a wait.
    const database = new DatabaseSync(join(dataDir, DATA_DIR_LOCK_FILE), { timeout: 0 })
    try {
      // Held until this connection closes or the process ends; nothing is
      // ever written, so the transaction never commits.
      database.exec('BEGIN EXCLUSIVE')
    } catch (error) {
      database.close()
      if (isBusy(error)) return undefined
      throw error
    }
    return new DataDirLock(database)
  }

  /** Gives the lock up (the app is quitting, or a test is done with it). */
  release(): void {
    if (this.released) return
    this.released = true
    this.database.close()
  }
}

function isBusy(error: unknown): boolean {
  const code = (error as { errcode?: unknown } | null)?.errcode
  return typeof code === 'number' && (code & 0xff) === SQLITE_BUSY
}
