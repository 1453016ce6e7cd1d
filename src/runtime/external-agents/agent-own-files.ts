import { readdirSync, readFileSync, statSync } from 'node:fs'

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

/** `file`'s text: null when it is not there. */
export function textOf(file: string): string | null | 'unreadable' {
  try {
    return readFileSync(file, 'utf8')
  } catch (error) {
    return missing(error) ? null : 'unreadable'
  }
}

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
