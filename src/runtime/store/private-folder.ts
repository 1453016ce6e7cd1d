import { chmodSync, lstatSync, mkdirSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'

/** Permission bits that let anyone but the owner in. */
const OTHERS = 0o077

/**
 * Makes the data folder its owner's alone (mode 0700), creating it if
 * missing, and refuses one that holds anything of another user's.
 *
 * `mkdir` sets the mode only on a folder it makes: one that was already
 * there (an `ASSENT_DATA_DIR` made by hand, a data folder an older version
 * left) kept what it had, and SQLite makes the store and its WAL 0644 under
 * the usual umask, so another OS user could read every conversation, every
 * action asked with its arguments and what each tool call returned. And
 * whoever could write such a folder before it was made private may have left
 * a file in it that Assent decides from: an `mcp.json` or `agents.json`
 * naming commands to start as this user, or their last good copies. Those
 * stay theirs after the folder is closed, so a folder holding an entry of
 * another user's does not start either.
 *
 * Fails closed: a folder that cannot be made private (another user's, a
 * file system without modes) stops the start with the reason, rather than
 * hold the store where others can read it. `owner` is this process's user;
 * on Windows, which has neither owners nor modes here, the folder is left
 * to the ACLs of the user's profile.
 */
export function makePrivateFolder(
  folder: string,
  owner: number | undefined = process.getuid?.(),
): void {
  mkdirSync(folder, { recursive: true, mode: 0o700 })
  if (owner === undefined) return
  chmodSync(folder, 0o700)
  const mode = statSync(folder).mode & 0o777
  if ((mode & OTHERS) !== 0) {
    throw new Error(
      `the data folder ${folder} stays open to others (mode ${mode.toString(8)}): ` +
        'put it where its owner alone can enter it',
    )
  }
  // Read once per start, and never again: nobody else can add an entry now.
  for (const name of readdirSync(folder)) {
    const entry = lstatSync(join(folder, name))
    if (entry.uid !== owner) {
      throw new Error(
        `the data folder ${folder} holds ${name}, which belongs to user ${entry.uid}: ` +
          'someone else may have put it there; remove it, or use another folder',
      )
    }
  }
}
