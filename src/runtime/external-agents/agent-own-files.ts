import {
  closeSync,
  constants,
  fstatSync,
  openSync,
  readdirSync,
  readFileSync,
  statSync,
} from 'node:fs'

// Reading an agent's own files to judge what they let it do: a file or
// folder that is not there is nothing; one that is there but cannot be
// read is reported as such, since the agent might read what Assent could
// not.

/** The names in `folder`: none when it is not there. */
export function entriesOf(folder: string): string[] | 'unreadable' {
  try {
    return readdirSync(folder)
  } catch (error) {
    return missing(error) ? [] : 'unreadable'
  }
}

/** `file`'s text: null when it is not there. Read without ever waiting on
 *  it: these files lie where an agent's commands write (a workspace's
 *  `.codex/config.toml`), and a named pipe made there held the runtime's
 *  thread, every room's, until a writer came, as an agent started, and
 *  then gave the check what the writer chose. Opened without blocking and
 *  looked at through the descriptor: anything but a regular file, or one
 *  larger than any settings file, is `unreadable`, so the agent is
 *  refused, naming it. */
export function textOf(file: string): string | null | 'unreadable' {
  let fd: number
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK)
  } catch (error) {
    return missing(error) ? null : 'unreadable'
  }
  try {
    const stats = fstatSync(fd)
    if (!stats.isFile() || stats.size > MAX_SETTINGS_BYTES) return 'unreadable'
    return readFileSync(fd, 'utf8')
  } catch {
    return 'unreadable'
  } finally {
    closeSync(fd)
  }
}

/** Larger than any agent's settings file is written. */
const MAX_SETTINGS_BYTES = 16 * 1024 * 1024

/** Whether something is at `file`; something that cannot be looked at
 *  counts as there. */
export function exists(file: string): boolean {
  try {
    statSync(file)
    return true
  } catch (error) {
    return !missing(error)
  }
}

function missing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code
  return code === 'ENOENT' || code === 'ENOTDIR'
}
