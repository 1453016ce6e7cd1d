import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { safeStorage } from 'electron'
import {
  DATABASE_FILE_NAME,
  loadAppDataDirSecrets,
  selectAppSecretStore,
  type AppSecretStoreSelection,
} from '../src/main/core/app-secret-store.ts'
import { FileSecretStore, KEY_FILE_NAME } from '../src/main/core/file-secret-store.ts'
import type { KeytarApi } from '../src/main/core/keytar-secret-store.ts'
import {
  SEALED_KEY_FILE_NAME,
  SafeStorageSecretStore,
} from '../src/main/core/safe-storage-secret-store.ts'
import { loadDataDirSecrets, readKeyForVerifying } from '../src/main/core/secret-store-selection.ts'
import { DATABASE_FILE_NAME as RUNTIME_DATABASE_FILE_NAME } from '../src/runtime/store/database.ts'
import { resetFakeSafeStorage, safeStorage as fakeSafeStorage } from './support/fake-electron.ts'

// The app's store is Electron's safeStorage, which exists only inside the
// Electron binary; the fake `electron` module (tests/support/fake-electron.ts,
// its safeStorage block) stands in for it, sealing for real with a key of its
// own. The keychain the app moves keys from is keytar's API over a map here:
// the moving is what is tested; keytar against a real Secret Service is
// tests/keychain.test.ts.
vi.mock('electron', () => import('./support/fake-electron.ts'))

let dir: string
const warnings: string[] = []

beforeEach(() => {
  resetFakeSafeStorage()
  dir = mkdtempSync(join(tmpdir(), 'assent-app-secrets-'))
  warnings.length = 0
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

/** keytar's API over a map: what an earlier version left in the keychain. */
function keychain(entries: Record<string, string> = {}): {
  entries: Map<string, string>
  loadKeytar: () => Promise<KeytarApi>
} {
  const map = new Map(Object.entries(entries))
  return {
    entries: map,
    loadKeytar: async () => ({
      getPassword: async (service, account) => map.get(`${service}/${account}`) ?? null,
      setPassword: async (service, account, password) => {
        map.set(`${service}/${account}`, password)
      },
    }),
  }
}

/** keytar built for Node, as `npm start` finds it under Electron. */
const keytarOfAnotherAbi = {
  loadKeytar: () =>
    Promise.reject(
      new Error("The module 'keytar.node' was compiled against a different Node.js version"),
    ),
}

function selection(overrides: Partial<AppSecretStoreSelection> = {}): AppSecretStoreSelection {
  // The mocked module's live binding: resetFakeSafeStorage made a new one.
  return {
    safeStorage: fakeSafeStorage,
    platform: 'linux',
    env: {},
    warn: (message) => warnings.push(message),
    keytar: keytarOfAnotherAbi,
    ...overrides,
  }
}

describe("the Electron host's secret store", () => {
  it("is Electron's safeStorage by default: the key is sealed on disk and opens on the next start", async () => {
    expect(safeStorage).toBe(fakeSafeStorage)
    const first = await loadAppDataDirSecrets(dir, selection())
    const sealed = readFileSync(join(dir, SEALED_KEY_FILE_NAME), 'utf8')
    expect(sealed).not.toContain(first.integrityKey.toString('base64url'))
    const second = await loadAppDataDirSecrets(dir, selection())
    expect(second.integrityKey.equals(first.integrityKey)).toBe(true)
    expect(second.keyInDataDirFile).toBe(false)
    await first.rollbackAnchor.advance(7)
    expect(await second.rollbackAnchor.read()).toBe(7)
    expect(warnings).toEqual([])
  })

  it('needs no keytar at all: a Node build of it (npm start) does not stop a fresh data folder', async () => {
    const { integrityKey } = await loadAppDataDirSecrets(dir, selection())
    expect(integrityKey).toHaveLength(32)
  })

  it("refuses Linux's basic_text backend like a missing keychain, naming the key file as the way on", async () => {
    fakeSafeStorage.backend = 'basic_text'
    await expect(selectAppSecretStore(dir, selection())).rejects.toThrow(
      /basic_text.*ASSENT_SECRET_STORE=file/,
    )
    const store = await selectAppSecretStore(
      dir,
      selection({ env: { ASSENT_SECRET_STORE: 'file' } }),
    )
    expect(store).toBeInstanceOf(FileSecretStore)
    expect(warnings.join('\n')).toContain(join(dir, KEY_FILE_NAME))
    const secrets = await loadAppDataDirSecrets(
      dir,
      selection({ env: { ASSENT_SECRET_STORE: 'file' } }),
    )
    // The workbench shows its warning from this (main-services.ts).
    expect(secrets.keyInDataDirFile).toBe(true)
  })

  it('refuses to start when safeStorage cannot seal, and never falls back by itself', async () => {
    fakeSafeStorage.available = false
    await expect(loadAppDataDirSecrets(dir, selection())).rejects.toThrow(
      'No OS keychain is reachable',
    )
    expect(() => readFileSync(join(dir, KEY_FILE_NAME))).toThrow()
  })

  it('refuses an ASSENT_SECRET_STORE value it does not know', async () => {
    await expect(
      selectAppSecretStore(dir, selection({ env: { ASSENT_SECRET_STORE: 'safe' } })),
    ).rejects.toThrow('ASSENT_SECRET_STORE must be')
  })

  it('reports a sealed key that no longer opens instead of making a new one', async () => {
    await loadAppDataDirSecrets(dir, selection())
    const before = readFileSync(join(dir, SEALED_KEY_FILE_NAME), 'utf8')
    fakeSafeStorage.loseKey()
    await expect(loadAppDataDirSecrets(dir, selection())).rejects.toThrow('will not replace it')
    expect(readFileSync(join(dir, SEALED_KEY_FILE_NAME), 'utf8')).toBe(before)
  })

  it("seals the same key again when Electron's sealing key changed", async () => {
    const first = await loadAppDataDirSecrets(dir, selection())
    const before = readFileSync(join(dir, SEALED_KEY_FILE_NAME), 'utf8')
    fakeSafeStorage.rotateKey()
    const second = await loadAppDataDirSecrets(dir, selection())
    expect(second.integrityKey.equals(first.integrityKey)).toBe(true)
    expect(readFileSync(join(dir, SEALED_KEY_FILE_NAME), 'utf8')).not.toBe(before)
  })
})

describe('moving a key the keychain already holds', () => {
  const KEY = Buffer.alloc(32, 9)

  it('moves key and anchor into safeStorage on the first start, keeps the keychain entries, and the CLI still verifies', async () => {
    const { realpathSync } = await import('node:fs')
    const account = realpathSync(dir)
    const old = keychain({
      [`assent/${account}`]: KEY.toString('base64url'),
      [`assent-rollback-anchor/${account}`]: '41',
    })
    const secrets = await loadAppDataDirSecrets(dir, selection({ keytar: old }))
    expect(secrets.integrityKey.equals(KEY)).toBe(true)
    expect(await secrets.rollbackAnchor.read()).toBe(41)
    expect(warnings.join('\n')).toMatch(/moved the integrity key.*audit verify/)
    expect(old.entries.get(`assent/${account}`)).toBe(KEY.toString('base64url'))
    // `assent audit verify` (Node, keytar) reads the same key.
    const reading = await readKeyForVerifying(account, { env: {}, warn: () => {}, keytar: old })
    expect(reading.ok && reading.key.equals(KEY)).toBe(true)
    // The next start opens the sealed copy, keytar or not.
    const again = await loadAppDataDirSecrets(dir, selection())
    expect(again.integrityKey.equals(KEY)).toBe(true)
  })

  it('refuses to make a new key for a data folder with a database when the keychain cannot be asked', async () => {
    writeFileSync(join(dir, DATABASE_FILE_NAME), '')
    await expect(loadAppDataDirSecrets(dir, selection())).rejects.toThrow(
      /holds a database.*install-app-deps/,
    )
    expect(() => readFileSync(join(dir, SEALED_KEY_FILE_NAME))).toThrow()
  })

  it("names the runtime's own database file", () => {
    expect(DATABASE_FILE_NAME).toBe(RUNTIME_DATABASE_FILE_NAME)
  })
})

describe('a data folder the app sealed, met where Node runs (CDP host, CLI)', () => {
  it('is never given a second key, and the CLI says only the app can open it', async () => {
    await loadAppDataDirSecrets(dir, selection())
    const empty = keychain()
    await expect(
      loadDataDirSecrets(dir, { env: {}, warn: () => {}, keytar: empty }),
    ).rejects.toThrow(/sealed with Electron's safeStorage.*only the Assent app/)
    expect(empty.entries.size).toBe(0)
    const reading = await readKeyForVerifying(dir, { env: {}, warn: () => {}, keytar: empty })
    expect(reading).toMatchObject({ ok: false, problem: expect.stringContaining('safeStorage') })
  })

  it('is the store the app chose', async () => {
    expect(await selectAppSecretStore(dir, selection())).toBeInstanceOf(SafeStorageSecretStore)
  })
})
