import { chmodSync, mkdirSync, statSync } from 'node:fs'

/** Permission bits that let anyone but the owner in. */
const OTHERS = 0o077

/**
 * Makes the data folder its owner's alone (mode 0700), creating it if
 * missing. `mkdir` sets the mode only on a folder it makes: one that was
 * already there (an `ASSENT_DATA_DIR` made by hand, a data folder an older
 * version left) kept what it had, and SQLite makes the store and its WAL
 * 0644 under the usual umask, so another OS user could read every
 * conversation, every action asked with its arguments and what each tool
 * call returned (the files an agent read among it). Fails closed: a folder that
 * cannot be made private (another user's, a file system without modes)
 * stops the start with the reason, rather than hold the store where others
 * can read it.
 */
export function makePrivateFolder(folder: string): void {
  mkdirSync(folder, { recursive: true, mode: 0o700 })
  chmodSync(folder, 0o700)
  const mode = statSync(folder).mode & 0o777
  if ((mode & OTHERS) !== 0) {
    throw new Error(
      `the data folder ${folder} stays open to others (mode ${mode.toString(8)}): ` +
        'put it where its owner alone can enter it',
    )
  }
}
