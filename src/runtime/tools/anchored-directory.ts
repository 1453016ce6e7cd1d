import {
  closeSync,
  constants,
  fstatSync,
  fsync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  renameSync,
} from 'node:fs'
import type { BigIntStats, Dirent } from 'node:fs'
import { open, readdir, rmdir, unlink } from 'node:fs/promises'
import type { FileHandle } from 'node:fs/promises'
import path from 'node:path'
import { promisify } from 'node:util'
import { FileRefusal } from './file-refusal.ts'

/**
 * Directory handles, so a file tool acts on the directory it checked and not
 * on whatever a path names a moment later.
 *
 * A path is looked up again by every system call that takes it: a component
 * swapped for a symbolic link between the check and the act redirects the
 * act, whatever the check said. The cure is to hold each directory open and
 * name entries relative to it (openat, renameat, unlinkat). Node has none of
 * those calls, but on Linux `/proc/self/fd/<fd>/<name>` is resolved through
 * the open descriptor itself: the kernel follows the descriptor to the very
 * directory it was opened on (even if that directory was renamed since) and
 * looks `<name>` up there. Every call below names an entry that way.
 *
 * A chain is opened from `/`, one component at a time, each with
 * `O_DIRECTORY | O_NOFOLLOW`: a component that is (or becomes) a symbolic
 * link fails the open instead of being followed. The paths handed here are
 * the real paths the sandbox check resolved, so none of their components is
 * a link when the check ran; one that is a link now was swapped in since.
 *
 * Where `/proc/self/fd` does not behave like that (macOS, Windows, a Linux
 * without /proc), nothing here is attempted: the tools built on it refuse
 * rather than fall back to path
 * calls that a swapped link could redirect (`unsupported_platform`).
 *
 * Opening, walking, looking at and closing directories are synchronous
 * calls: each is one quick system call on the directory cache, and as a
 * promise each cost a round trip through libuv's thread pool, several times
 * the call itself. That also lets the re-check of an approved file's target
 * commit the call's "running" record in the same turn as the decision, so
 * both share one WAL flush (store/durability.ts). What waits for the disk
 * (fsync) or touches file content stays asynchronous.
 */

const PROC_SELF_FD = '/proc/self/fd'

/** What opening a directory as a handle refuses to follow. */
const DIRECTORY_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | (constants.O_NOFOLLOW ?? 0)

/** Where directory handles cannot be had, the tools refuse. */
function handlesUnavailable(): FileRefusal {
  return new FileRefusal(
    'unsupported_platform',
    'this system offers no directory handles (Linux /proc/self/fd), so Assent does not touch the file',
  )
}

/** A component of the path is a symbolic link: swapped in after the path
 *  was checked, or the path was never real. */
function symlinkInPath(at: string): FileRefusal {
  return new FileRefusal('symlink_refused', `${at} is a symbolic link; Assent does not follow it`)
}

let probed: boolean | undefined

/**
 * Whether `/proc/self/fd/<fd>/<name>` resolves through the descriptor here:
 * a directory opened as a handle must show the same inode through it as
 * through its path. Probed once per process.
 */
export function directoryHandlesAvailable(): Promise<boolean> {
  return Promise.resolve(handlesAvailable())
}

function handlesAvailable(): boolean {
  probed ??= probe()
  return probed
}

function probe(): boolean {
  if (process.platform !== 'linux') return false
  let fd: number | undefined
  try {
    fd = openSync('/', DIRECTORY_FLAGS)
    const direct = fstatSync(fd, { bigint: true })
    const through = lstatSync(`${PROC_SELF_FD}/${fd}/.`, { bigint: true })
    return direct.ino === through.ino && direct.dev === through.dev
  } catch {
    return false
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}

/** Makes a descriptor's file durable, off the event loop. */
export const fsyncDescriptor: (fd: number) => Promise<void> = promisify(fsync)

/** A single directory entry name: never empty, `.`, `..` or containing a
 *  separator, so an entry path can only name something in this directory. */
function assertEntryName(name: string): void {
  if (name === '' || name === '.' || name === '..' || name.includes('/') || name.includes('\0')) {
    throw new Error(`not a single directory entry: ${JSON.stringify(name)}`)
  }
}

/** An open directory, and its entries named through it. */
export class DirectoryHandle {
  /** The descriptor, or -1 once closed (a closed number may be reused by
   *  another open, so it is never named again). */
  private fd: number
  /** The path it was opened as: for messages only, never for acting. */
  readonly shownPath: string

  private constructor(fd: number, shownPath: string) {
    this.fd = fd
    this.shownPath = shownPath
  }

  /**
   * Opens `realDir` (absolute) as a handle, component by component from
   * `/`, following no symbolic link. With `create`, missing directories are
   * made on the way (like `mkdir -p`), each one inside the handle above it.
   */
  static async open(realDir: string, options: { create: boolean }): Promise<DirectoryHandle> {
    return DirectoryHandle.openSync(realDir, options)
  }

  /** As `open`, synchronously. */
  static openSync(realDir: string, options: { create: boolean }): DirectoryHandle {
    if (!handlesAvailable()) throw handlesUnavailable()
    if (!path.isAbsolute(realDir)) throw new Error(`not an absolute path: ${realDir}`)
    let current = new DirectoryHandle(openSync('/', DIRECTORY_FLAGS), '/')
    try {
      for (const name of realDir.split('/').filter((part) => part !== '')) {
        const next = current.openChildSync(name, options)
        current.closeSync()
        current = next
      }
      return current
    } catch (error) {
      current.closeSync()
      throw error
    }
  }

  /** The path that names `name` in this very directory. */
  entry(name: string): string {
    assertEntryName(name)
    return `${PROC_SELF_FD}/${this.descriptor()}/${name}`
  }

  /** The directory itself, through its handle (for listing it). */
  selfPath(): string {
    return `${PROC_SELF_FD}/${this.descriptor()}`
  }

  /** Opens the subdirectory `name` as a handle, refusing a symbolic link. */
  async openChild(name: string, options: { create: boolean }): Promise<DirectoryHandle> {
    return this.openChildSync(name, options)
  }

  /** As `openChild`, synchronously. */
  openChildSync(name: string, options: { create: boolean }): DirectoryHandle {
    const shown = path.posix.join(this.shownPath, name)
    try {
      return new DirectoryHandle(openSync(this.entry(name), DIRECTORY_FLAGS), shown)
    } catch (error) {
      const code = errorCode(error)
      if (code === 'ENOENT' && options.create) {
        try {
          mkdirSync(this.entry(name), 0o777)
        } catch (made) {
          if (errorCode(made) !== 'EEXIST') throw made
        }
        return this.openChildSync(name, { create: false })
      }
      if (code === 'ELOOP' || code === 'ENOTDIR') {
        if (this.lstatSync(name)?.isSymbolicLink() === true) throw symlinkInPath(shown)
      }
      throw error
    }
  }

  /** The entry's own status (a link is not followed), or null if absent. */
  async lstat(name: string): Promise<BigIntStats | null> {
    return this.lstatSync(name)
  }

  /** As `lstat`, synchronously. */
  lstatSync(name: string): BigIntStats | null {
    // A missing entry is an answer, not an error: most writes make a new
    // file, and a thrown error costs several times the call.
    return lstatSync(this.entry(name), { bigint: true, throwIfNoEntry: false }) ?? null
  }

  /** Opens the entry as a file, never following a link in its place. */
  openFile(name: string, flags: number, mode?: number): Promise<FileHandle> {
    return open(this.entry(name), flags | (constants.O_NOFOLLOW ?? 0), mode)
  }

  /** As `openFile`, synchronously: the descriptor, which the caller closes. */
  openFileSync(name: string, flags: number, mode?: number): number {
    return openSync(this.entry(name), flags | (constants.O_NOFOLLOW ?? 0), mode)
  }

  /** Renames one entry of this directory over another: the name is
   *  replaced, never the file it named (a link or a hard link elsewhere
   *  keeps its content). */
  async rename(from: string, to: string): Promise<void> {
    this.renameSync(from, to)
  }

  /** As `rename`, synchronously. */
  renameSync(from: string, to: string): void {
    renameSync(this.entry(from), this.entry(to))
  }

  /** Removes a non-directory entry: a link is removed as a link. */
  unlink(name: string): Promise<void> {
    return unlink(this.entry(name))
  }

  /** Removes an empty subdirectory; a link in its place fails (ENOTDIR). */
  rmdir(name: string): Promise<void> {
    return rmdir(this.entry(name))
  }

  /** The entry names, in no particular order. */
  list(): Promise<string[]> {
    return readdir(this.selfPath())
  }

  /** The entries with their kinds as the directory records them (a link
   *  is a link, never followed), synchronously. */
  entriesSync(): Dirent[] {
    return readdirSync(this.selfPath(), { withFileTypes: true })
  }

  /** This directory's own status, through the handle. */
  async stat(): Promise<BigIntStats> {
    return fstatSync(this.descriptor(), { bigint: true })
  }

  /** Makes the directory's entries (a rename, an unlink) durable. */
  sync(): Promise<void> {
    return fsyncDescriptor(this.descriptor())
  }

  async close(): Promise<void> {
    this.closeSync()
  }

  /** Closes the descriptor; a second close does nothing. */
  closeSync(): void {
    if (this.fd === -1) return
    const fd = this.fd
    this.fd = -1
    closeSync(fd)
  }

  private descriptor(): number {
    if (this.fd === -1) throw new Error(`${this.shownPath} is no longer open`)
    return this.fd
  }
}

export function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | null)?.code
}
