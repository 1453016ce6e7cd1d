import { constants } from 'node:fs'
import { open, readFile, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { decodeStoredKey, type SecretStore } from './secret-store.ts'

export const KEY_FILE_NAME = 'integrity.key'
const OWNER_ONLY = 0o600

/** What choosing the file store means, said every time it is chosen. */
export function fileStoreWarning(dataDir: string): string {
  return (
    `ASSENT_SECRET_STORE=file: the integrity key is kept in ${join(dataDir, KEY_FILE_NAME)} (mode 0600), ` +
    'not in the OS keychain. Anyone who can read the data dir can forge the MACs that make ' +
    'edits to the audit log and room permissions detectable. Use it only where no keychain exists.'
  )
}

/**
 * The integrity key in a file with mode 0600 beside the database: only when
 * the person asked for it with ASSENT_SECRET_STORE=file, since the key then
 * sits next to what it protects. The account is the data dir itself.
 */
export class FileSecretStore implements SecretStore {
  readonly description = 'a key file in the data dir (ASSENT_SECRET_STORE=file)'

  async read(dataDir: string): Promise<Buffer | undefined> {
    const path = join(dataDir, KEY_FILE_NAME)
    let info
    try {
      info = await stat(path)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
      throw error
    }
    // A key others could read is a key others could sign with.
    if ((info.mode & 0o077) !== 0) {
      throw new Error(
        `${path} is readable by others (mode ${(info.mode & 0o777).toString(8)}): ` +
          `run \`chmod 600 ${path}\` and check nobody copied it`,
      )
    }
    if (typeof process.getuid === 'function' && info.uid !== process.getuid()) {
      throw new Error(`${path} belongs to another user (uid ${info.uid})`)
    }
    return decodeStoredKey(await readFile(path, 'utf8'), path)
  }

  async create(dataDir: string, key: Buffer): Promise<void> {
    const path = join(dataDir, KEY_FILE_NAME)
    // O_EXCL: never replace a key; O_NOFOLLOW: never write through a symlink
    // someone planted there.
    const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW
    const file = await open(path, flags, OWNER_ONLY)
    try {
      await file.writeFile(`${key.toString('base64url')}\n`)
      await file.chmod(OWNER_ONLY)
      await file.sync()
    } finally {
      await file.close()
    }
  }
}
