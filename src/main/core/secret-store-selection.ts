import { lstat, mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { FileSecretStore, KEY_FILE_NAME, fileStoreWarning } from './file-secret-store.ts'
import { KeytarSecretStore, type KeytarSecretStoreOptions } from './keytar-secret-store.ts'
import { RollbackAnchorKeeper } from './rollback-anchor-keeper.ts'
import { SEALED_KEY_FILE_NAME } from './safe-storage-secret-store.ts'
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
    `${SECRET_STORE_ENV} must be "file" (keep the integrity key in the data folder) or unset (the OS keychain); got "${value}"`,
  )
}

/** What main keeps for a data folder in its SecretStore. */
export interface DataDirSecrets {
  integrityKey: Buffer
  /** The data folder's rollback anchor, in the same store as the key. */
  rollbackAnchor: RollbackAnchorKeeper
  /** The key sits in a plain file in the data folder (ASSENT_SECRET_STORE=file):
   *  the workbench says so for as long as the app runs. */
  keyInDataDirFile?: boolean
}

/** Makes the data folder if needed, and returns its integrity key (created on
 *  first start) and its rollback anchor, both in the selected store. */
export async function loadDataDirSecrets(
  dataDir: string,
  selection: SecretStoreSelection,
): Promise<DataDirSecrets> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 })
  const store = selectSecretStore(dataDir, selection)
  const account = await integrityAccount(dataDir)
  if ((await store.read(account)) === undefined && (await sealedKeyIn(account))) {
    // The app made this data folder's key with Electron's safeStorage, which
    // no Node process can open; a new key here would disown all it sealed.
    throw new Error(sealedKeyProblem(account, store.description))
  }
  const integrityKey = await integrityKeyFor(store, dataDir)
  return {
    integrityKey,
    rollbackAnchor: new RollbackAnchorKeeper(store, account),
    keyInDataDirFile: store instanceof FileSecretStore,
  }
}

async function sealedKeyIn(dataDir: string): Promise<boolean> {
  return (await lstat(join(dataDir, SEALED_KEY_FILE_NAME)).catch(() => undefined)) !== undefined
}

function sealedKeyProblem(dataDir: string, where: string): string {
  return (
    `the integrity key of ${dataDir} is sealed with Electron's safeStorage (${join(dataDir, SEALED_KEY_FILE_NAME)}), ` +
    `which only the Assent app can open, and ${where} holds none: use this data folder with the app, or start here with a new data folder`
  )
}

/** Makes the data folder if needed and returns its integrity key, creating it
 *  on first start in the selected store. */
export async function loadIntegrityKey(
  dataDir: string,
  selection: SecretStoreSelection,
): Promise<Buffer> {
  return (await loadDataDirSecrets(dataDir, selection)).integrityKey
}

/** An existing data folder's key, read for checking what it sealed. */
export type KeyForReading =
  | {
      ok: true
      key: Buffer
      /** The store the key came from; the rollback anchor is read there too. */
      store: SecretStore
      /** Which key verified, for the person: the keychain, or the key file's path. */
      source: string
    }
  | { ok: false; problem: string }

/**
 * The key that holds an existing data folder's MACs, for `assent audit verify`:
 * the OS keychain's, or the data folder's key file only when ASSENT_SECRET_STORE=file
 * names that store. Whoever can write the data folder can put a key file there
 * and re-seal a database they edited with it, so a key file found in the
 * data folder is never taken on its own. Where both hold a key and they differ,
 * `warn` says so: one of them is not the key Assent made. Reads only: a
 * missing key is a problem that names the fix, never a key made now.
 */
export async function readKeyForVerifying(
  dataDir: string,
  selection: SecretStoreSelection,
): Promise<KeyForReading> {
  const store = selectSecretStore(dataDir, selection)
  const keyFile = join(dataDir, KEY_FILE_NAME)
  if (store instanceof FileSecretStore) {
    const key = await store.read(dataDir)
    if (!key) {
      return {
        ok: false,
        problem: `no integrity key file at ${keyFile} (ASSENT_SECRET_STORE=file names it); unset ASSENT_SECRET_STORE if this data folder keeps its key in the OS keychain`,
      }
    }
    // Best effort: where no keychain is reachable (the reason to name the
    // file store), there is nothing to compare with.
    const keychain = new KeytarSecretStore(selection.keytar)
    const inKeychain = await keychain.read(dataDir).catch(() => undefined)
    if (inKeychain && !inKeychain.equals(key)) {
      selection.warn(
        `${keychain.description} holds another integrity key for ${dataDir} than ${keyFile}: ` +
          'this check used the key file, as ASSENT_SECRET_STORE=file asks; if Assent made the key in the keychain, ' +
          'someone else wrote the key file, and only a check without ASSENT_SECRET_STORE=file says whether the log is intact',
      )
    }
    return { ok: true, key, store, source: `the key file ${keyFile}` }
  }
  const key = await store.read(dataDir)
  const fileKey = await readKeyFileIfAny(dataDir)
  if (!key && (await sealedKeyIn(dataDir))) {
    return { ok: false, problem: sealedKeyProblem(dataDir, store.description) }
  }
  if (!key) {
    return {
      ok: false,
      problem:
        `no integrity key for ${dataDir} in ${store.description}` +
        (fileKey === 'absent'
          ? '; Assent makes it on first start, and without it nothing can be verified'
          : `; the data folder holds ${keyFile}, which is used only when named, since whoever can write the data folder can put one there: ` +
            'if this data folder was started with ASSENT_SECRET_STORE=file, run the check again with ASSENT_SECRET_STORE=file'),
    }
  }
  if (fileKey !== 'absent' && !(fileKey instanceof Buffer && fileKey.equals(key))) {
    selection.warn(
      `${keyFile} is not the integrity key in ${store.description}; it was not used (a key file is used only with ASSENT_SECRET_STORE=file), ` +
        'and Assent never writes one beside a keychain key: someone else put it there',
    )
  }
  return { ok: true, key, store, source: store.description }
}

/** The data folder's key file as a key, 'absent' when there is none (a symbolic
 *  link named like it is none), 'unreadable' when it cannot be read as one. */
async function readKeyFileIfAny(dataDir: string): Promise<Buffer | 'absent' | 'unreadable'> {
  const entry = await lstat(join(dataDir, KEY_FILE_NAME)).catch(() => undefined)
  if (!entry?.isFile()) return 'absent'
  return (await new FileSecretStore().read(dataDir).catch(() => undefined)) ?? 'unreadable'
}
