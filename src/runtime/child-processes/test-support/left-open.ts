import { execFile } from 'node:child_process'
import { writeFile } from 'node:fs/promises'
import path from 'node:path'
import { promisify } from 'node:util'

/** What a command writes through descriptor 30, and what 31 holds. */
export const WRITTEN_THROUGH_30 = 'written-through-30'
export const SECRET_ON_31 = 'SECRET-ON-31'
/** A bash line that writes through 30 and says what it read from 31. */
export const USE_30_AND_31 = `echo ${WRITTEN_THROUGH_30} >&30; echo "read: $(cat <&31)"`

/**
 * Runs `node <script> ...args` as a runtime started by a shell that left
 * two descriptors open without close-on-exec (Node marks only a few low
 * ones close-on-exec as it starts, not these): 30 appending to a file in
 * `folder`, 31 reading one that holds SECRET_ON_31. Returns the script's
 * stdout, and the appended file's path to read afterwards.
 */
export async function runWithDescriptorsLeftOpen(
  folder: string,
  script: string,
  args: readonly string[],
): Promise<{ stdout: string; appended: string }> {
  const appended = path.join(folder, 'appended-through-30.txt')
  const secret = path.join(folder, 'secret-on-31.txt')
  await writeFile(appended, '')
  await writeFile(secret, SECRET_ON_31)
  const { stdout } = await promisify(execFile)('bash', [
    '-c',
    'exec 30>>"$1" 31<"$2"; shift 2; exec "$@"',
    'bash',
    appended,
    secret,
    process.execPath,
    script,
    ...args,
  ])
  return { stdout, appended }
}
