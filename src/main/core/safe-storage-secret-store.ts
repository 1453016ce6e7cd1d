import { join } from 'node:path'
import { readPrivateFile, replacePrivateFile, writeNewPrivateFile } from './file-secret-store.ts'
import {
  decodeStoredAnchor,
  decodeStoredKey,
  encodeAnchor,
  type SecretStore,
} from './secret-store.ts'

export const SEALED_KEY_FILE_NAME = 'integrity.key.sealed'
export const SEALED_ANCHOR_FILE_NAME = 'rollback.anchor.sealed'

/** The part of Electron's `safeStorage` this store uses (Electron's
 *  docs/api/safe-storage.md: the asynchronous API; the synchronous one is
 *  deprecated in Electron 45 and removed in 46). Main hands in Electron's
 *  own; a test hands in one of its own. */
export interface SafeStorageApi {
  isAsyncEncryptionAvailable(): Promise<boolean>
  encryptStringAsync(plainText: string): Promise<Buffer>
  decryptStringAsync(encrypted: Buffer): Promise<{ shouldReEncrypt: boolean; result: string }>
  /** Linux only: which keychain seals (`basic_text` is none). */
  getSelectedStorageBackend(): string
}

/**
 * The integrity key and the rollback anchor sealed with Electron's
 * safeStorage, in 0600 files in the data folder (`integrity.key.sealed`,
 * `rollback.anchor.sealed`). The sealing key is the OS's: the Keychain on
 * macOS, DPAPI on Windows, the desktop's keychain on Linux; whoever can
 * read the data folder but cannot ask the OS as this user gets ciphertext.
 * It is the Electron host's store because it needs no native module of
 * our own (keytar is built per ABI; Electron's main cannot load the Node
 * build the tests and the CLI use). The account is the data folder itself.
 *
 * Only Electron can open these files: `assent audit verify` (Node) cannot,
 * docs/security-model.md says what that means and how a key that was in the
 * keychain stays checkable.
 */
export class SafeStorageSecretStore implements SecretStore {
  readonly description = "Electron's safeStorage (a sealed file in the data folder)"
  private readonly safeStorage: SafeStorageApi

  constructor(safeStorage: SafeStorageApi) {
    this.safeStorage = safeStorage
  }

  async read(dataDir: string): Promise<Buffer | undefined> {
    const path = join(dataDir, SEALED_KEY_FILE_NAME)
    const text = await this.open(dataDir, path)
    return text === undefined ? undefined : decodeStoredKey(text, path)
  }

  async create(dataDir: string, key: Buffer): Promise<void> {
    // O_EXCL: an existing sealed key is never replaced, whatever it holds.
    await writeNewPrivateFile(
      join(dataDir, SEALED_KEY_FILE_NAME),
      await this.seal(key.toString('base64url')),
    )
  }

  async readAnchor(dataDir: string): Promise<number | undefined> {
    const path = join(dataDir, SEALED_ANCHOR_FILE_NAME)
    const text = await this.open(dataDir, path)
    return text === undefined ? undefined : decodeStoredAnchor(text, path)
  }

  async writeAnchor(dataDir: string, counter: number): Promise<void> {
    const sealed = await this.seal(encodeAnchor(counter))
    await replacePrivateFile(dataDir, join(dataDir, SEALED_ANCHOR_FILE_NAME), sealed)
  }

  private async seal(text: string): Promise<string> {
    return `${(await this.safeStorage.encryptStringAsync(text)).toString('base64')}\n`
  }

  /** The opened text of a sealed file, or undefined when there is none. A
   *  file that does not open is reported, never taken as absent: absent
   *  would make a new key that disowns everything sealed. When Electron says
   *  its sealing key changed, the same text is sealed again with the new one
   *  (the value itself never changes). */
  private async open(dataDir: string, path: string): Promise<string | undefined> {
    const stored = await readPrivateFile(path)
    if (stored === undefined) return undefined
    let opened: { shouldReEncrypt: boolean; result: string }
    try {
      opened = await this.safeStorage.decryptStringAsync(Buffer.from(stored.trim(), 'base64'))
    } catch (error) {
      throw new Error(
        `${path} could not be opened with Electron's safeStorage (${(error as Error)?.message ?? String(error)}): ` +
          'it was sealed by another user, on another machine, or the keychain entry that seals it was removed; ' +
          'Assent will not replace it (that would disown everything sealed with it): restore the keychain, or start from a new data folder',
        { cause: error },
      )
    }
    if (opened.shouldReEncrypt)
      await replacePrivateFile(dataDir, path, await this.seal(opened.result))
    return opened.result
  }
}
