import { randomBytes } from 'node:crypto'
import { constants } from 'node:fs'
import { open, readFile, rename, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'
import {
  decodeStoredAnchor,
  decodeStoredKey,
  encodeAnchor,
  type SecretStore,
} from './secret-store.ts'

export const KEY_FILE_NAME = 'integrity.key'
export const ANCHOR_FILE_NAME = 'rollback.anchor'
const OWNER_ONLY = 0o600
/** O_EXCL: never replace a file; O_NOFOLLOW: never write through a symlink
 *  someone planted there. */
const CREATE_NEW = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW

/** What choosing the file store means, said every time it is chosen. */
export function fileStoreWarning(dataDir: string): string {
  return (
    `ASSENT_SECRET_STORE=file: the integrity key is kept in ${join(dataDir, KEY_FILE_NAME)} (mode 0600), ` +
    'not in the OS keychain. Anyone who can read the data folder can forge the MACs that make ' +
    'edits to the audit log and room permissions detectable, and the rollback anchor beside it ' +
    'is restored with the data folder, so a whole data folder put back from a backup is not noticed. ' +
    'Use it only where no keychain exists.'
  )
}

/**
 * The integrity key and the rollback anchor in files with mode 0600 beside
 * the database: only when the person asked for it with
 * ASSENT_SECRET_STORE=file, since they then sit next to what they protect.
 * The account is the data folder itself.
 */
export class FileSecretStore implements SecretStore {
  readonly description = 'a key file in the data folder (ASSENT_SECRET_STORE=file)'

  async read(dataDir: string): Promise<Buffer | undefined> {
    const path = join(dataDir, KEY_FILE_NAME)
    const text = await readPrivateFile(path)
    return text === undefined ? undefined : decodeStoredKey(text, path)
  }

  async create(dataDir: string, key: Buffer): Promise<void> {
    await writeNewPrivateFile(join(dataDir, KEY_FILE_NAME), `${key.toString('base64url')}\n`)
  }

  async readAnchor(dataDir: string): Promise<number | undefined> {
    const path = join(dataDir, ANCHOR_FILE_NAME)
    const text = await readPrivateFile(path)
    return text === undefined ? undefined : decodeStoredAnchor(text, path)
  }

  async writeAnchor(dataDir: string, counter: number): Promise<void> {
    await replacePrivateFile(dataDir, join(dataDir, ANCHOR_FILE_NAME), `${encodeAnchor(counter)}\n`)
  }
}

/** Creates `path` with mode 0600 and `text`, synced; never replaces a file
 *  and never writes through a symlink planted at `path`. */
export async function writeNewPrivateFile(path: string, text: string): Promise<void> {
  const file = await open(path, CREATE_NEW, OWNER_ONLY)
  try {
    await file.writeFile(text)
    await file.chmod(OWNER_ONLY)
    await file.sync()
  } finally {
    await file.close()
  }
}

/**
 * Writes `text` beside `path` and renames it over it, then syncs `dir`: a
 * crash leaves the old content or the new, never a torn file, and the
 * rename replaces the directory entry, never a file a planted symlink
 * points at.
 */
export async function replacePrivateFile(dir: string, path: string, text: string): Promise<void> {
  const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`
  try {
    await writeNewPrivateFile(temporary, text)
    await rename(temporary, path)
  } catch (error) {
    await rm(temporary, { force: true })
    throw error
  }
  const directory = await open(dir, 'r')
  try {
    await directory.sync()
  } finally {
    await directory.close()
  }
}

/** The text of a file only its owner may read, or undefined when there is
 *  none. A file others could read is a secret others could use. */
export async function readPrivateFile(path: string): Promise<string | undefined> {
  let info
  try {
    info = await stat(path)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
  if ((info.mode & 0o077) !== 0) {
    throw new Error(
      `${path} is readable by others (mode ${(info.mode & 0o777).toString(8)}): ` +
        `run \`chmod 600 ${path}\` and check nobody copied it`,
    )
  }
  if (typeof process.getuid === 'function' && info.uid !== process.getuid()) {
    throw new Error(`${path} belongs to another user (uid ${info.uid})`)
  }
  return readFile(path, 'utf8')
}
