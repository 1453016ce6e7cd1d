import type { CommandContainment } from '../../contracts/command-containment.ts'

/** What a command says, in the C library's words, when the sandbox stopped
 *  it: a write to a read-only place, a hidden file, a refused connection
 *  without a network, a process it cannot see. */
const STOPPED_BY_SANDBOX = [
  /read-only file system/i,
  /permission denied/i,
  /operation not permitted/i,
  /network is unreachable/i,
  /connection refused|ECONNREFUSED/i,
  /could not resolve host/i,
  /temporary failure in name resolution/i,
  /no such process/i,
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
  return `[ran in Assent's sandbox: ${where}; it has no network; the person's credential folders, Assent's data and the host's /tmp are hidden from it; it cannot see or signal processes outside it. What failed above may have been stopped by the sandbox.]`
}
