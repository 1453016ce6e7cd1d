import { lstat, mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { FileSecretStore, fileStoreWarning } from './file-secret-store.ts'
import { KeytarSecretStore, type KeytarSecretStoreOptions } from './keytar-secret-store.ts'
import { RollbackAnchorKeeper } from './rollback-anchor-keeper.ts'
import { SafeStorageSecretStore, type SafeStorageApi } from './safe-storage-secret-store.ts'
import { SECRET_STORE_ENV, type DataDirSecrets } from './secret-store-selection.ts'
import { integrityAccount, integrityKeyFor, type SecretStore } from './secret-store.ts'

/** The runtime's database in a data folder (src/runtime/store/database.ts's
 *  DATABASE_FILE_NAME; main's core does not import the runtime, and
 *  app-secret-store.test.ts holds the two names equal). */
export const DATABASE_FILE_NAME = 'assent.sqlite'

export interface AppSecretStoreSelection {
  safeStorage: SafeStorageApi
  platform?: NodeJS.Platform
  env?: NodeJS.ProcessEnv
  warn: (message: string) => void
  /** The keychain a key made before safeStorage is moved from. */
  keytar?: KeytarSecretStoreOptions
}

/**
 * The store of the Electron host (the app): Electron's safeStorage, which
 * needs no native module of ours, so `npm start` works without rebuilding
 * keytar for Electron. ASSENT_SECRET_STORE=file keeps the key file, as in
 * every entry point; ASSENT_SECRET_STORE=keychain keeps keytar, for whoever
 * built it for Electron. On Linux, safeStorage without a keychain seals with
 * a password written into Chromium (`basic_text`): that is a key file under
 * another name, so it is refused like a missing keychain, and the key file,
 * said and warned, is the way on. Any other value is refused.
 */
export async function selectAppSecretStore(
  dataDir: string,
  selection: AppSecretStoreSelection,
): Promise<SecretStore> {
  const value = (selection.env ?? process.env)[SECRET_STORE_ENV]
  if (value === 'file') {
    selection.warn(fileStoreWarning(dataDir))
    return new FileSecretStore()
  }
  if (value === 'keychain') return new KeytarSecretStore(selection.keytar)
  if (value !== undefined && value !== '') {
    throw new Error(
      `${SECRET_STORE_ENV} must be "file" (keep the integrity key in the data folder), "keychain" (keytar, built for Electron) or unset (Electron's safeStorage); got "${value}"`,
    )
  }
  const available = await selection.safeStorage.isAsyncEncryptionAvailable()
  const backend =
    (selection.platform ?? process.platform) === 'linux'
      ? selection.safeStorage.getSelectedStorageBackend()
      : undefined
  if (!available || backend === 'basic_text' || backend === 'unknown') {
    throw new Error(
      [
        backend === 'basic_text'
          ? "No OS keychain is reachable: Electron's safeStorage found none on this desktop and would seal the integrity key with a password built into Chromium (basic_text), which protects it no better than a plain file."
          : "No OS keychain is reachable: Electron's safeStorage cannot seal anything here.",
        'Assent keeps its integrity key sealed by the keychain and does not start without it.',
        'Start a keychain in this session (e.g. GNOME Keyring or KWallet),',
        `or set ${SECRET_STORE_ENV}=file to keep the key in a 0600 file in the data folder instead;`,
        'then anyone who can read the data folder can forge the integrity MACs.',
      ].join(' '),
    )
  }
  return new SafeStorageSecretStore(selection.safeStorage)
}

/**
 * The app's data folder secrets. Before safeStorage makes a key, a key the
 * keychain already holds for this data folder (made by an earlier version, the
 * CDP host or `npm run runtime`) is moved into it, with its rollback
 * anchor, and read back; the keychain entries stay, so `assent audit verify`
 * keeps finding the key. Where keytar cannot be loaded (its Node build, as
 * under `npm start`) and the data folder already holds a database, the app
 * refuses: its key may be in the keychain, and a new one would disown
 * everything sealed. A data folder with no database has nothing to disown.
 */
export async function loadAppDataDirSecrets(
  dataDir: string,
  selection: AppSecretStoreSelection,
): Promise<DataDirSecrets> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 })
  const account = await integrityAccount(dataDir)
  const store = await selectAppSecretStore(account, selection)
  if (store instanceof SafeStorageSecretStore && (await store.read(account)) === undefined) {
    await adoptKeychainKey(store, account, selection)
  }
  const integrityKey = await integrityKeyFor(store, dataDir)
  return {
    integrityKey,
    rollbackAnchor: new RollbackAnchorKeeper(store, account),
    keyInDataDirFile: store instanceof FileSecretStore,
  }
}

async function adoptKeychainKey(
  store: SafeStorageSecretStore,
  account: string,
  selection: AppSecretStoreSelection,
): Promise<void> {
  const keychain = new KeytarSecretStore(selection.keytar)
  let key: Buffer | undefined
  let anchor: number | undefined
  try {
    key = await keychain.read(account)
    anchor = key === undefined ? undefined : await keychain.readAnchor(account)
  } catch (error) {
    const database = await lstat(join(account, DATABASE_FILE_NAME)).catch(() => undefined)
    if (database === undefined) return
    throw new Error(
      `${account} holds a database but no key sealed with Electron's safeStorage, and the OS keychain, where its key may be, could not be asked: ` +
        `${(error as Error)?.message ?? String(error)} ` +
        'Assent will not make a new key for it (that would disown everything sealed): start the app once with keytar built for Electron ' +
        '(`npx electron-builder install-app-deps`) so the key moves, or start it with a new data folder.',
      { cause: error },
    )
  }
  if (key === undefined) return
  if (anchor !== undefined) await store.writeAnchor(account, anchor)
  await store.create(account, key)
  const moved = await store.read(account)
  if (!moved?.equals(key) || (await store.readAnchor(account)) !== anchor) {
    throw new Error(
      `the integrity key for ${account} was copied from ${keychain.description} to ${store.description} but did not read back the same`,
    )
  }
  selection.warn(
    `moved the integrity key and rollback anchor of ${account} from ${keychain.description} to ${store.description}; ` +
      'the keychain entries stay, so `assent audit verify` still finds the key (its rollback check then compares with the anchor as it was at the move)',
  )
}
