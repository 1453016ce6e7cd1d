import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs'

/** Why a path that is there is not read: it is no regular file. */
export class NotARegularFile extends Error {
  /** `EISDIR` for a folder, as a read of one fails; `ENOTREGULAR` for a
   *  named pipe, a socket or a device. */
  readonly code: 'EISDIR' | 'ENOTREGULAR'

  constructor(file: string, code: 'EISDIR' | 'ENOTREGULAR') {
    super(`${file} is not a regular file`)
    this.code = code
  }
}

/**
 * The text of a file the agent may have put there (a `.git` pointer, a
 * config, a worktree's `commondir`, a file an external agent changes),
 * read without ever waiting on it: opened without blocking, then looked
 * at through the opened descriptor, and read only when it is a regular
 * file. A named pipe at such a path would otherwise hold the thread that
 * opens it until a writer came, the runtime's own for a synchronous read,
 * so one `mkfifo sub/.git` could stop every decision. Throws as
 * `readFileSync` does (ENOENT, ENOTDIR, …), and `NotARegularFile` for
 * anything else that is there; `maxBytes` caps what is read (more is an
 * error, `EFBIG`).
 */
export function regularFileText(file: string, maxBytes = 16 * 1024 * 1024): string {
  const fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK)
  try {
    const stats = fstatSync(fd)
    if (stats.isDirectory()) throw new NotARegularFile(file, 'EISDIR')
    if (!stats.isFile()) throw new NotARegularFile(file, 'ENOTREGULAR')
    // Read to its end, however long it grew since it was looked at, up
    // to the cap: a config cut short could leave out what it names. The
    // first buffer holds what fstat saw and one byte more, so an unchanged
    // file is read in one go; a file that grew gets more. Unfilled bytes
    // are never read back (only what `readSync` filled is kept), so the
    // buffers need no zeroing: these files are read at every judgment.
    const chunks: Buffer[] = []
    let length = 0
    let chunk = Buffer.allocUnsafe(Math.min(stats.size, maxBytes) + 1)
    for (;;) {
      const read = readSync(fd, chunk, 0, chunk.length, null)
      if (read === 0) break
      length += read
      if (length > maxBytes) {
        throw Object.assign(new Error(`${file} is larger than ${maxBytes} bytes`), {
          code: 'EFBIG',
        })
      }
      chunks.push(chunk.subarray(0, read))
      chunk = read < chunk.length ? chunk.subarray(read) : Buffer.allocUnsafe(64 * 1024)
    }
    return Buffer.concat(chunks).toString('utf8')
  } finally {
    closeSync(fd)
  }
}
