import { constants } from 'node:fs'
import type { BigIntStats } from 'node:fs'
import { lstat, mkdir, open, readdir, rename, rmdir, unlink } from 'node:fs/promises'
import type { FileHandle } from 'node:fs/promises'
import path from 'node:path'
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

let probed: Promise<boolean> | undefined

/**
 * Whether `/proc/self/fd/<fd>/<name>` resolves through the descriptor here:
 * a directory opened as a handle must show the same inode through it as
 * through its path. Probed once per process.
 */
export function directoryHandlesAvailable(): Promise<boolean> {
  probed ??= probe()
  return probed
}

async function probe(): Promise<boolean> {
  if (process.platform !== 'linux') return false
  let handle: FileHandle | undefined
  try {
    handle = await open('/', DIRECTORY_FLAGS)
    const direct = await handle.stat({ bigint: true })
    const through = await lstat(`${PROC_SELF_FD}/${handle.fd}/.`, { bigint: true })
    return direct.ino === through.ino && direct.dev === through.dev
  } catch {
    return false
  } finally {
    await handle?.close()
  }
}

/** A single directory entry name: never empty, `.`, `..` or containing a
 *  separator, so an entry path can only name something in this directory. */
function assertEntryName(name: string): void {
  if (name === '' || name === '.' || name === '..' || name.includes('/') || name.includes('\0')) {
    throw new Error(`not a single directory entry: ${JSON.stringify(name)}`)
  }
}

/** An open directory, and its entries named through it. */
export class DirectoryHandle {
  private readonly handle: FileHandle
  /** The path it was opened as: for messages only, never for acting. */
  readonly shownPath: string

  private constructor(handle: FileHandle, shownPath: string) {
    this.handle = handle
    this.shownPath = shownPath
  }

  /**
   * Opens `realDir` (absolute) as a handle, component by component from
   * `/`, following no symbolic link. With `create`, missing directories are
   * made on the way (like `mkdir -p`), each one inside the handle above it.
   */
  static async open(realDir: string, options: { create: boolean }): Promise<DirectoryHandle> {
    if (!(await directoryHandlesAvailable())) throw handlesUnavailable()
    if (!path.isAbsolute(realDir)) throw new Error(`not an absolute path: ${realDir}`)
    let current = new DirectoryHandle(await open('/', DIRECTORY_FLAGS), '/')
    try {
      for (const name of realDir.split('/').filter((part) => part !== '')) {
        const next = await current.openChild(name, options)
        await current.close()
        current = next
      }
      return current
    } catch (error) {
      await current.close()
      throw error
    }
  }

  /** The path that names `name` in this very directory. */
  entry(name: string): string {
    assertEntryName(name)
    return `${PROC_SELF_FD}/${this.handle.fd}/${name}`
  }

  /** The directory itself, through its handle (for listing it). */
  selfPath(): string {
    return `${PROC_SELF_FD}/${this.handle.fd}`
  }

  /** Opens the subdirectory `name` as a handle, refusing a symbolic link. */
  async openChild(name: string, options: { create: boolean }): Promise<DirectoryHandle> {
    const shown = path.posix.join(this.shownPath, name)
    try {
      return new DirectoryHandle(await open(this.entry(name), DIRECTORY_FLAGS), shown)
    } catch (error) {
      const code = errorCode(error)
      if (code === 'ENOENT' && options.create) {
        await mkdir(this.entry(name), 0o777).catch((made: unknown) => {
          if (errorCode(made) !== 'EEXIST') throw made
        })
        return this.openChild(name, { create: false })
      }
      if (code === 'ELOOP' || code === 'ENOTDIR') {
        if ((await this.lstat(name))?.isSymbolicLink() === true) throw symlinkInPath(shown)
      }
      throw error
    }
  }

  /** The entry's own status (a link is not followed), or null if absent. */
  async lstat(name: string): Promise<BigIntStats | null> {
    try {
      return await lstat(this.entry(name), { bigint: true })
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return null
      throw error
    }
  }

  /** Opens the entry as a file, never following a link in its place. */
  openFile(name: string, flags: number, mode?: number): Promise<FileHandle> {
    return open(this.entry(name), flags | (constants.O_NOFOLLOW ?? 0), mode)
  }

  /** Renames one entry of this directory over another: the name is
   *  replaced, never the file it named (a link or a hard link elsewhere
   *  keeps its content). */
  rename(from: string, to: string): Promise<void> {
    return rename(this.entry(from), this.entry(to))
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

  /** This directory's own status, through the handle. */
  stat(): Promise<BigIntStats> {
    return this.handle.stat({ bigint: true })
  }

  /** Makes the directory's entries (a rename, an unlink) durable. */
  sync(): Promise<void> {
    return this.handle.sync()
  }

  close(): Promise<void> {
    return this.handle.close()
  }
}

export function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | null)?.code
}
