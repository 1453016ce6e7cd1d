import { createHash } from 'node:crypto'
import { constants } from 'node:fs'
import type { BigIntStats } from 'node:fs'
import path from 'node:path'
import type { FileTarget } from '../../contracts/file-target.ts'
import { DirectoryHandle, errorCode } from './anchored-directory.ts'
import { FileRefusal } from './file-refusal.ts'

/**
 * Observing the file a tool is about to act on, through directory handles,
 * and telling whether it is still the file that was observed before.
 */

/** The current content of a file a write replaces, as read for its
 *  preview: its SHA-256 always, its text when it is small enough to diff
 *  and reads as UTF-8. */
export interface ReplacedContent {
  sha256: string
  text: string | null
}

/** One look at a target: what the binding records, the content read for
 *  the preview, and the raw status the caller checks further. */
export interface Observed {
  target: FileTarget
  content: ReplacedContent | null
  stats: BigIntStats | null
}

/** The largest old content the preview diffs; a larger file is still
 *  hashed (the binding needs it), but the window shows the new content
 *  whole instead of a diff. */
export const MAX_DIFFED_BYTES = 1024 * 1024

const READ_CHUNK_BYTES = 64 * 1024

/** The target as its own status shows it, with no link followed. */
export function targetOf(realPath: string, stats: BigIntStats | null, sha256?: string): FileTarget {
  if (stats === null) return { path: realPath, exists: false }
  return {
    path: realPath,
    exists: true,
    type: typeOf(stats),
    device: stats.dev.toString(),
    inode: stats.ino.toString(),
    bornNs: stats.birthtimeNs.toString(),
    links: Number(stats.nlink),
    ...(sha256 === undefined ? {} : { contentSha256: sha256 }),
  }
}

function typeOf(stats: BigIntStats): Extract<FileTarget, { exists: true }>['type'] {
  if (stats.isSymbolicLink()) return 'symlink'
  if (stats.isFile()) return 'file'
  if (stats.isDirectory()) return 'directory'
  return 'other'
}

/** Whether two observations name the same file in the same state: the same
 *  path, both absent, or the same device, inode, birth time, type, number
 *  of names and (where either was hashed) content. */
export function sameTarget(a: FileTarget, b: FileTarget): boolean {
  if (a.path !== b.path || a.exists !== b.exists) return false
  if (!a.exists || !b.exists) return true
  return (
    a.type === b.type &&
    a.device === b.device &&
    a.inode === b.inode &&
    a.bornNs === b.bornNs &&
    a.links === b.links &&
    a.contentSha256 === b.contentSha256
  )
}

/** The status fields that say which file an entry is. */
export type FileIdentity = Pick<BigIntStats, 'dev' | 'ino' | 'birthtimeNs'>

/** Whether two statuses are of the same file: the same device, inode and
 *  birth time (an inode number freed and given to a new file differs in
 *  its birth time). */
export function sameFile(a: FileIdentity, b: FileIdentity): boolean {
  return a.dev === b.dev && a.ino === b.ino && a.birthtimeNs === b.birthtimeNs
}

/** Whether a name still shows what it showed: still absent, or the same
 *  file with the same number of names and the same status change time
 *  (which moves with any write, link or permission change). */
export function sameEntryState(
  before: (FileIdentity & Pick<BigIntStats, 'nlink' | 'ctimeNs'>) | null,
  now: (FileIdentity & Pick<BigIntStats, 'nlink' | 'ctimeNs'>) | null,
): boolean {
  if (before === null || now === null) return before === now
  return sameFile(before, now) && now.nlink === before.nlink && now.ctimeNs === before.ctimeNs
}

/** Says what changed between two observations, for the refusal's message
 *  and its audit event. */
export function describeTarget(target: FileTarget): string {
  if (!target.exists) return 'nothing'
  const content =
    target.contentSha256 === undefined ? '' : `, content ${target.contentSha256.slice(0, 12)}`
  return `a ${target.type} (device ${target.device}, inode ${target.inode}, ${target.links} name${target.links === 1 ? '' : 's'}${content})`
}

/**
 * Observes `realPath` through directory handles: its parent is opened from
 * `/` with no link followed (a link in the path throws), and the entry's
 * own status is read. A missing parent means the target does not exist.
 * With `readContent`, a regular file's content is hashed (and returned for
 * the preview) through a descriptor opened on that same entry.
 */
export async function observeTarget(
  realPath: string,
  options: { readContent: boolean },
): Promise<Observed> {
  let dir: DirectoryHandle
  try {
    dir = await DirectoryHandle.open(path.dirname(realPath), { create: false })
  } catch (error) {
    if (errorCode(error) === 'ENOENT') {
      return { target: targetOf(realPath, null), content: null, stats: null }
    }
    throw error
  }
  try {
    return await observeIn(dir, path.basename(realPath), realPath, options)
  } finally {
    await dir.close()
  }
}

/** As `observeTarget`, for an entry of a directory already held. */
export async function observeIn(
  dir: DirectoryHandle,
  name: string,
  realPath: string,
  options: { readContent: boolean },
): Promise<Observed> {
  const stats = await dir.lstat(name)
  if (stats === null || !options.readContent || !stats.isFile()) {
    return { target: targetOf(realPath, stats), content: null, stats }
  }
  const content = await readContent(dir, name, stats)
  return { target: targetOf(realPath, stats, content.sha256), content, stats }
}

/** Reads a regular file through its own descriptor, which must be the
 *  inode `expected` describes: a file swapped in between the status and
 *  the open is refused, never hashed in its place. The open does not wait:
 *  a named pipe swapped in would hold one of libuv's few threads until
 *  someone wrote to it; it is refused as what it is. */
async function readContent(
  dir: DirectoryHandle,
  name: string,
  expected: BigIntStats,
): Promise<ReplacedContent> {
  const handle = await dir.openFile(name, constants.O_RDONLY | constants.O_NONBLOCK)
  try {
    const opened = await handle.stat({ bigint: true })
    if (!opened.isFile()) {
      throw new FileRefusal('not_a_file', `${name} is not a regular file`)
    }
    if (!sameFile(opened, expected)) {
      throw new FileRefusal('target_changed', `${name} changed while Assent was reading it`)
    }
    const hash = createHash('sha256')
    const kept: Buffer[] = []
    let keptBytes = 0
    let tooLarge = false
    const buffer = Buffer.alloc(READ_CHUNK_BYTES)
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null)
      if (bytesRead === 0) break
      const chunk = buffer.subarray(0, bytesRead)
      hash.update(chunk)
      if (!tooLarge && keptBytes + bytesRead <= MAX_DIFFED_BYTES) {
        kept.push(Buffer.from(chunk))
        keptBytes += bytesRead
      } else {
        tooLarge = true
        kept.length = 0
      }
    }
    return { sha256: hash.digest('hex'), text: tooLarge ? null : utf8OrNull(Buffer.concat(kept)) }
  } finally {
    await handle.close()
  }
}

/** Text only when the bytes are valid UTF-8 with no NUL: a binary file
 *  has no lines to diff. */
function utf8OrNull(bytes: Buffer): string | null {
  if (bytes.includes(0)) return null
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes)
  } catch {
    return null
  }
}
