import { lstat, mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { FileSecretStore, KEY_FILE_NAME, fileStoreWarning } from './file-secret-store.ts'
import { KeytarSecretStore, type KeytarSecretStoreOptions } from './keytar-secret-store.ts'
import { RollbackAnchorKeeper } from './rollback-anchor-keeper.ts'
import { integrityAccount, integrityKeyFor, type SecretStore } from './secret-store.ts'

export const SECRET_STORE_ENV = 'ASSENT_SECRET_STORE'

export interface SecretStoreSelection {
  env?: NodeJS.ProcessEnv
  /** Where the file store's warning goes (stderr, a dialog, a log). */
  warn: (message: string) => void
  keytar?: KeytarSecretStoreOptions
}

/**
 * The store every entry point uses (the app, the CDP host, `npm run
 * runtime`, `assent audit verify`): the OS keychain, or the key file only
 * when ASSENT_SECRET_STORE=file says so. Any other value is refused rather
 * than guessed at: a typo must not silently pick a weaker store.
 */
export function selectSecretStore(dataDir: string, selection: SecretStoreSelection): SecretStore {
  const value = (selection.env ?? process.env)[SECRET_STORE_ENV]
  if (value === undefined || value === '' || value === 'keychain') {
    return new KeytarSecretStore(selection.keytar)
  }
  if (value === 'file') {
    selection.warn(fileStoreWarning(dataDir))
    return new FileSecretStore()
  }
  throw new Error(
    `${SECRET_STORE_ENV} must be "file" (keep the integrity key in the data dir) or unset (the OS keychain); got "${value}"`,
  )
}

/** What main keeps for a data dir in its SecretStore. */
export interface DataDirSecrets {
  integrityKey: Buffer
  /** The data dir's rollback anchor, in the same store as the key. */
  rollbackAnchor: RollbackAnchorKeeper
}

/** Makes the data dir if needed, and returns its integrity key (created on
 *  first start) and its rollback anchor, both in the selected store. */
export async function loadDataDirSecrets(
  dataDir: string,
  selection: SecretStoreSelection,
): Promise<DataDirSecrets> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 })
  const store = selectSecretStore(dataDir, selection)
  const integrityKey = await integrityKeyFor(store, dataDir)
  return {
    integrityKey,
    rollbackAnchor: new RollbackAnchorKeeper(store, await integrityAccount(dataDir)),
  }
}

/** Makes the data dir if needed and returns its integrity key, creating it
 *  on first start in the selected store. */
export async function loadIntegrityKey(
  dataDir: string,
  selection: SecretStoreSelection,
): Promise<Buffer> {
  return (await loadDataDirSecrets(dataDir, selection)).integrityKey
}

/**
 * The store that holds an existing data dir's key, for reading it
 * (`assent audit verify`): what ASSENT_SECRET_STORE says when it is set;
 * unset, the data dir's own key file when it has one (the data dir was
 * started with ASSENT_SECRET_STORE=file, and the keychain would hold no key
 * for it), otherwise the OS keychain. Only reading may guess: a store that
 * creates keys never picks the file on its own.
 */
export async function selectStoreForReading(
  dataDir: string,
  selection: SecretStoreSelection,
): Promise<SecretStore> {
  const value = (selection.env ?? process.env)[SECRET_STORE_ENV]
  if (value === undefined || value === '') {
    const keyFile = await lstat(join(dataDir, KEY_FILE_NAME)).catch(() => undefined)
    if (keyFile?.isFile()) {
      selection.warn(
        `${SECRET_STORE_ENV} is not set and ${join(dataDir, KEY_FILE_NAME)} exists: verifying with that key file (set ${SECRET_STORE_ENV}=keychain to use the OS keychain instead)`,
      )
      return new FileSecretStore()
    }
  }
  return selectSecretStore(dataDir, selection)
}
