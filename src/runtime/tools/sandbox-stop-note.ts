import type { CommandContainment } from '../../contracts/command-containment.ts'
import type { PersonOnlyAfterRun } from './command-launcher.ts'
import { nameInNote } from './note-names.ts'

/** What a command says, in the C library's words, when the sandbox stopped
 *  it: a write to a read-only place, a hidden file, a refused connection
 *  without a network, a process it cannot see; and Chromium's words when it
 *  cannot make the namespaces of its own sandbox. */
const STOPPED_BY_SANDBOX = [
  /read-only file system/i,
  /permission denied/i,
  /operation not permitted/i,
  /network is unreachable/i,
  /connection refused|ECONNREFUSED/i,
  /could not resolve host/i,
  /temporary failure in name resolution/i,
  /no such process/i,
  /no usable sandbox/i,
]

/**
 * The note a failed contained command's output ends with when it looks
 * stopped by the sandbox (the C library's words for it, or a path the
 * sandbox hides, which then looks missing), so the model does not retry
 * blindly and the person understands why: the command ran in Assent's
 * sandbox, and what it cannot do there. Null for a command that ran
 * uncontained, succeeded, or failed in words that do not point at the
 * sandbox.
 */
export function sandboxStopNote(
  containment: CommandContainment,
  hidden: readonly string[],
  ok: boolean,
  output: string,
): string | null {
  if (!containment.contained || ok) return null
  const stopped =
    STOPPED_BY_SANDBOX.some((pattern) => pattern.test(output)) ||
    hidden.some((secret) => output.includes(secret))
  if (!stopped) return null
  const where =
    containment.writableRoots.length === 0
      ? 'it cannot change any file'
      : `it can change files only in ${containment.writableRoots.join(', ')}`
  return `[ran in Assent's sandbox: ${where}; it has no network; the person's credential folders, Assent's data and the host's /tmp are hidden from it; it cannot see or signal processes outside it, nor make namespaces of its own (a nested sandbox, a container), nor make a file setuid or setgid. What failed above may have been stopped by the sandbox.]`
}

/** The lines the output of a contained command (or of an external
 *  agent's command, or an MCP tool call) ends with when something only a
 *  person may make appeared where it may write while it ran (so the model
 *  does not retry blindly, and the person reads what happened), or when
 *  the check could not cover the whole workspace; null otherwise. */
export function madePersonOnlyNote(after: PersonOnlyAfterRun): string | null {
  // Each path, link target and failure (whose words quote the path) is
  // written as nameInNote says: the command chose those names, and a line
  // break in one would add lines of its own to the note.
  const lines = after.made.map((each) => {
    const made = nameInNote(each.path)
    const failure = each.failure === null ? null : nameInNote(each.failure)
    if (each.removedLinkTo !== undefined) {
      return `${made}: a link it made to ${nameInNote(each.removedLinkTo)}, removed, since the person's own tools and later calls would follow it there`
    }
    return each.movedTo === null
      ? `${made}: could not be moved aside (${failure}); remove it before running git or opening the folder in an editor`
      : `${made}: moved to ${nameInNote(each.movedTo)}${failure === null ? '' : `, but ${failure}`}`
  })
  if (after.made.length > 0) {
    lines.unshift(
      "[while it ran, what only a person may make appeared where it may write (git's folders and hooks, editor tasks, CI workflows, shell start-up files, credential files); no allow of a command or a tool covers that, so Assent moved it aside (a link the command made to such a place, or to what its sandbox hid, is removed):",
    )
    lines.push('A person can put it back after reading it.]')
  }
  if (after.unchecked) {
    lines.push(
      '[the workspace holds more entries than Assent walks after a call: what was made past them was not checked, so the call did not do only what it was allowed to; look at what it made before running git or opening the folder in an editor]',
    )
  }
  return lines.length === 0 ? null : lines.join('\n')
}

/** Whether what happened after a call makes it fail: it made what only a
 *  person may make, or the walk could not check all it may have made.
 *  Either way it did not do only what it was allowed to. */
export function failsAfterRun(after: PersonOnlyAfterRun): boolean {
  return after.made.length > 0 || after.unchecked
}
