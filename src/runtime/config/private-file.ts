import { renameSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'

/** Writes through a temporary file created with mode 0600, then renames, so
 *  the file is never readable by others, not even for a moment. */
export function writePrivately(path: string, text: string): void {
  const temporary = join(dirname(path), `.${process.pid}.${Date.now()}.tmp`)
  writeFileSync(temporary, text, { mode: 0o600, flag: 'wx' })
  renameSync(temporary, path)
}
