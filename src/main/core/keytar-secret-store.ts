import {
  ROLLBACK_ANCHOR_SERVICE,
  SECRET_STORE_SERVICE,
  decodeStoredAnchor,
  decodeStoredKey,
  encodeAnchor,
  type SecretStore,
} from './secret-store.ts'

/** The part of keytar this adapter uses. */
export interface KeytarApi {
  getPassword(service: string, account: string): Promise<string | null>
  setPassword(service: string, account: string, password: string): Promise<void>
}

export interface KeytarSecretStoreOptions {
  /** Loads the native module; a test may hand in one that fails. */
  loadKeytar?: () => Promise<unknown>
  service?: string
  /** The service of the rollback anchors (ROLLBACK_ANCHOR_SERVICE). */
  anchorService?: string
  platform?: NodeJS.Platform
}

/**
 * The integrity key and the rollback anchor in the OS keychain through
 * keytar: Secret Service on Linux, Keychain on macOS, Credential Manager on
 * Windows. The key lives under service `assent`, the anchor under
 * `assent-rollback-anchor`, both with the data folder's real path as account. keytar is native
 * and built per ABI (Node for tests, scripts and the CDP host; the Electron
 * app uses safeStorage and needs keytar only to move an older key), so it
 * is loaded here, lazily, and nowhere else: the runtime never loads it, and a
 * missing or mismatched build fails with an error that names the fix.
 */
export class KeytarSecretStore implements SecretStore {
  readonly description: string
  private readonly options: KeytarSecretStoreOptions
  private keytar: Promise<KeytarApi> | undefined

  constructor(options: KeytarSecretStoreOptions = {}) {
    this.options = options
    this.description = `the OS keychain (${keychainName(options.platform ?? process.platform)})`
  }

  async read(account: string): Promise<Buffer | undefined> {
    const keytar = await this.load()
    const stored = await this.reach(() => keytar.getPassword(this.service, account))
    if (stored === null) return undefined
    return decodeStoredKey(stored, `the keychain entry "${this.service}" / "${account}"`)
  }

  async create(account: string, key: Buffer): Promise<void> {
    const keytar = await this.load()
    // keytar's set overwrites; the port promises never to. Assent holds a
    // single-instance lock per data folder, so nothing races between the two.
    if ((await this.reach(() => keytar.getPassword(this.service, account))) !== null) {
      throw new Error(`the keychain already holds an integrity key for ${account}`)
    }
    await this.reach(() => keytar.setPassword(this.service, account, key.toString('base64url')))
  }

  async readAnchor(account: string): Promise<number | undefined> {
    const keytar = await this.load()
    const stored = await this.reach(() => keytar.getPassword(this.anchorService, account))
    if (stored === null) return undefined
    return decodeStoredAnchor(stored, `the keychain entry "${this.anchorService}" / "${account}"`)
  }

  async writeAnchor(account: string, counter: number): Promise<void> {
    const keytar = await this.load()
    const text = encodeAnchor(counter)
    await this.reach(() => keytar.setPassword(this.anchorService, account, text))
  }

  private get anchorService(): string {
    return this.options.anchorService ?? ROLLBACK_ANCHOR_SERVICE
  }

  private get service(): string {
    return this.options.service ?? SECRET_STORE_SERVICE
  }

  private load(): Promise<KeytarApi> {
    this.keytar ??= (this.options.loadKeytar ?? (() => import('keytar')))().then(
      (module) => keytarApiOf(module),
      (error: unknown) => {
        throw new Error(keytarLoadFailure(error), { cause: error })
      },
    )
    return this.keytar
  }

  private async reach<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call()
    } catch (error) {
      throw new Error(keychainUnreachable(this.description, error), { cause: error })
    }
  }
}

function keytarApiOf(module: unknown): KeytarApi {
  const candidate = (module as { default?: unknown }).default ?? module
  const api = candidate as Partial<KeytarApi>
  if (typeof api.getPassword !== 'function' || typeof api.setPassword !== 'function') {
    throw new Error(keytarLoadFailure(new Error('it does not export getPassword/setPassword')))
  }
  return api as KeytarApi
}

/** The fix depends on who loads it: Node (tests, npm scripts) or Electron. */
export function keytarLoadFailure(error: unknown): string {
  const reason = error instanceof Error ? error.message : String(error)
  const abi = /NODE_MODULE_VERSION|was compiled against a different Node\.js version/.test(reason)
  return [
    `keytar, the OS keychain binding, ${abi ? 'was built for another Node.js or Electron ABI' : 'could not be loaded'} (${reason.split('\n')[0]}).`,
    'Under Node (tests, npm scripts) rebuild it with `npm rebuild keytar`',
    '(it compiles against libsecret: `apt-get install libsecret-1-dev python3 make g++`);',
    "the Electron app seals its key with Electron's safeStorage and loads keytar only to move a key an earlier version kept in the keychain",
    '(or with ASSENT_SECRET_STORE=keychain): for that, rebuild it for Electron with `npx electron-builder install-app-deps`',
    '(`npm run package` does it for the package).',
  ].join(' ')
}

export function keychainUnreachable(description: string, error: unknown): string {
  const reason = error instanceof Error ? error.message : String(error)
  return [
    `No OS keychain is reachable: ${description} answered "${reason}".`,
    'Assent keeps its integrity key there and does not start without it.',
    'Start a keychain in this session (e.g. GNOME Keyring or KWallet),',
    'or set ASSENT_SECRET_STORE=file to keep the key in a 0600 file in the data folder instead;',
    'then anyone who can read the data folder can forge the integrity MACs.',
  ].join(' ')
}

function keychainName(platform: NodeJS.Platform): string {
  if (platform === 'darwin') return 'macOS Keychain'
  if (platform === 'win32') return 'Windows Credential Manager'
  return 'Secret Service'
}
