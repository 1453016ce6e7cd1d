import { randomBytes } from 'node:crypto'
import { closeSync, constants, fchmodSync, writeFileSync } from 'node:fs'
import type { BigIntStats } from 'node:fs'
import path from 'node:path'
import type { FileTarget } from '../../contracts/file-target.ts'
import { DirectoryHandle, fsyncDescriptor } from './anchored-directory.ts'
import { FileRefusal } from './file-refusal.ts'
import {
  describeTarget,
  observeIn,
  sameEntryState,
  sameFile,
  sameTarget,
  targetOf,
} from './file-target.ts'

/**
 * The one way a tool changes a file: every mutating tool (write_file,
 * delete_file, the built-in MCP filesystem server, anything added later)
 * goes through here, and none of them opens, truncates, renames or unlinks
 * by path.
 *
 * What it guarantees, on a system with directory handles
 * (anchored-directory.ts):
 * - it acts in the directory it reached from `/` without following a
 *   symbolic link, whatever is swapped into the path while it runs;
 * - it never writes into an existing file: a write creates a new file next
 *   to the target and renames it over the name, which replaces the
 *   directory entry, never the file the entry named. A hard link elsewhere
 *   keeps its content; a symbolic link in the target's place is replaced,
 *   not followed;
 * - it refuses a target with more than one name (a hard link): such a file
 *   is reachable from somewhere else, which the person was never shown;
 * - given the target observed when the approval was opened (`bound`), it
 *   refuses to act when the target is no longer that file, and checks the
 *   name once more right before the rename or unlink.
 */

/** Deeper trees are refused rather than held open one descriptor a level. */
export const MAX_DELETE_DEPTH = 256

/** The mode of a file a write creates; a replaced file keeps its own
 *  permission bits. */
const NEW_FILE_MODE = 0o644

/** Permission bits only: a replacement never inherits set-user-ID,
 *  set-group-ID or sticky bits from the file it replaces. */
const PERMISSION_BITS = 0o777n

export interface ReplaceOptions {
  /** The target as observed when the approval was opened, if one was. */
  bound?: FileTarget
  /** The random part of the temporary file's name (tests pin it). */
  randomName?: () => string
}

/**
 * Writes `content` to `realPath` by creating a temporary file in the same
 * directory and renaming it over the name; missing parent directories are
 * made (through handles). The file and the directory are synced before it
 * returns. Returns whether an existing file was replaced.
 */
export async function replaceFile(
  realPath: string,
  content: string,
  options: ReplaceOptions = {},
): Promise<{ replaced: boolean }> {
  const name = path.basename(realPath)
  const dir = await DirectoryHandle.open(path.dirname(realPath), { create: true })
  let temporary: string | null = null
  try {
    const readContent = options.bound?.exists === true && options.bound.contentSha256 !== undefined
    const before = await observeIn(dir, name, realPath, { readContent })
    const stats = before.stats
    checkBound(options.bound, before.target, realPath)
    if (stats !== null) assertReplaceable(stats, realPath)

    const candidate = temporaryName(name, options.randomName)
    const file = dir.openFileSync(
      candidate,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL,
      NEW_FILE_MODE,
    )
    // Only a name this call created is removed on failure: an exclusive
    // create that fails found someone else's file, which is not ours to
    // delete.
    temporary = candidate
    try {
      // Synchronous, as the content was already parsed and diffed on the
      // event loop; only the fsync waits for the disk.
      writeFileSync(file, content, 'utf8')
      if (stats !== null) fchmodSync(file, Number(stats.mode & PERMISSION_BITS))
      await fsyncDescriptor(file)
    } finally {
      closeSync(file)
    }
    // The last look before the rename: the name must still be what was
    // checked. Past this point a swap can only replace the entry (the
    // rename never writes into a file), never redirect the write.
    await assertUnchanged(dir, name, stats, realPath)
    await dir.rename(temporary, name)
    temporary = null
    await dir.sync()
    return { replaced: stats !== null }
  } finally {
    if (temporary !== null) await dir.unlink(temporary).catch(() => undefined)
    await dir.close()
  }
}

export interface RemoveOptions {
  recursive: boolean
  bound?: FileTarget
}

export type Removed =
  | { kind: 'file' }
  | { kind: 'empty-directory' }
  | { kind: 'tree'; files: number; directories: number }

/**
 * Removes `realPath`: a file (or a link, as a link), an empty directory, or
 * with `recursive` a whole tree. A tree is walked through handles twice:
 * first to refuse it whole if any file in it has another name, then to
 * remove it; a directory swapped for a link during either walk fails the
 * open and stops the removal where it is.
 */
export async function removeEntry(realPath: string, options: RemoveOptions): Promise<Removed> {
  const name = path.basename(realPath)
  const dir = await DirectoryHandle.open(path.dirname(realPath), { create: false })
  try {
    const stats = await dir.lstat(name)
    if (stats === null) {
      throw Object.assign(new Error(`${realPath} does not exist`), { code: 'ENOENT' })
    }
    checkBound(options.bound, targetOf(realPath, stats), realPath)
    let removed: Removed
    if (stats.isDirectory() && options.recursive) {
      const tree = await dir.openChild(name, { create: false })
      try {
        await assertSameInode(tree, stats, realPath)
        await walkTree(tree, 'check', 0)
        const counts = await walkTree(tree, 'remove', 0)
        removed = { kind: 'tree', ...counts }
      } finally {
        await tree.close()
      }
      await dir.rmdir(name)
    } else if (stats.isDirectory()) {
      await dir.rmdir(name)
      removed = { kind: 'empty-directory' }
    } else {
      if (stats.isFile()) assertReplaceable(stats, realPath)
      await assertUnchanged(dir, name, stats, realPath)
      await dir.unlink(name)
      removed = { kind: 'file' }
    }
    await dir.sync()
    return removed
  } finally {
    await dir.close()
  }
}

/** Walks a tree held as a handle: `check` refuses a file with another
 *  name anywhere in it, `remove` removes each entry after the same check. */
async function walkTree(
  tree: DirectoryHandle,
  mode: 'check' | 'remove',
  depth: number,
): Promise<{ files: number; directories: number }> {
  if (depth >= MAX_DELETE_DEPTH) {
    throw new FileRefusal(
      'too_deep',
      `${tree.shownPath} is nested more than ${MAX_DELETE_DEPTH} levels deep`,
    )
  }
  const counts = { files: 0, directories: 0 }
  for (const name of await tree.list()) {
    const stats = await tree.lstat(name)
    if (stats === null) continue
    if (stats.isDirectory()) {
      const child = await tree.openChild(name, { create: false })
      try {
        await assertSameInode(child, stats, child.shownPath)
        const inner = await walkTree(child, mode, depth + 1)
        counts.files += inner.files
        counts.directories += inner.directories
      } finally {
        await child.close()
      }
      if (mode === 'remove') await tree.rmdir(name)
      counts.directories += 1
      continue
    }
    if (stats.isFile()) assertReplaceable(stats, path.posix.join(tree.shownPath, name))
    if (mode === 'remove') await tree.unlink(name)
    counts.files += 1
  }
  return counts
}

function checkBound(bound: FileTarget | undefined, observed: FileTarget, realPath: string): void {
  if (bound === undefined || sameTarget(bound, observed)) return
  throw new FileRefusal(
    'target_changed',
    `${realPath} is now ${describeTarget(observed)}; the approval was for ${describeTarget(bound)}`,
  )
}

/** Refuses what a write or delete must not act on: a link (swapped in,
 *  since the checked path was real), a directory, anything but a regular
 *  file, and a file with more than one name, which is reachable from
 *  wherever its other names are and which nobody was shown. */
export function assertReplaceable(stats: BigIntStats, shown: string): void {
  if (stats.isSymbolicLink()) {
    throw new FileRefusal(
      'symlink_refused',
      `${shown} is a symbolic link; Assent does not follow it`,
    )
  }
  if (stats.isDirectory()) {
    throw Object.assign(new Error(`${shown} is a directory`), { code: 'EISDIR' })
  }
  if (!stats.isFile()) throw new FileRefusal('not_a_file', `${shown} is not a regular file`)
  if (stats.nlink > 1n) {
    throw new FileRefusal(
      'hard_linked_target',
      `${shown} has ${stats.nlink} names (hard links), so it is reachable from outside what was checked; Assent changes only files with a single name`,
    )
  }
}

/** The name still names the same file, unchanged (its status change time
 *  moves with any write, link or permission change), or is still absent. */
async function assertUnchanged(
  dir: DirectoryHandle,
  name: string,
  before: BigIntStats | null,
  shown: string,
): Promise<void> {
  if (!sameEntryState(before, await dir.lstat(name))) {
    throw new FileRefusal('target_changed', `${shown} changed while Assent was acting on it`)
  }
}

async function assertSameInode(
  handle: DirectoryHandle,
  expected: BigIntStats,
  shown: string,
): Promise<void> {
  if (!sameFile(await handle.stat(), expected)) {
    throw new FileRefusal('target_changed', `${shown} was replaced while Assent was acting on it`)
  }
}

/** Hidden, next to the target, and unguessable, so nothing else is named
 *  that; short enough for the 255-byte name limit whatever the target's. */
function temporaryName(target: string, randomName?: () => string): string {
  const random = randomName?.() ?? randomBytes(8).toString('hex')
  const prefix = Buffer.byteLength(target, 'utf8') <= 200 ? `.${target}` : ''
  return `${prefix}.assent-${random}.tmp`
}
