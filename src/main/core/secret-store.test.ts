import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { FileSecretStore, KEY_FILE_NAME } from './file-secret-store.ts'
import { KeytarSecretStore } from './keytar-secret-store.ts'
import { integrityKeyFor } from './secret-store.ts'
import { forgetfulSecretStore } from './test-support/forgetful-secret-store.ts'
import {
  loadIntegrityKey,
  selectSecretStore,
  readKeyForVerifying,
} from './secret-store-selection.ts'

let dir: string

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'assent-secrets-'))
})
afterEach(() => {
  rmSync(dir, { recursive: true, force: true })
})

const FILE = { ASSENT_SECRET_STORE: 'file' }
const quiet = { warn: () => undefined }

describe('choosing where the integrity key lives', () => {
  it('uses the OS keychain unless ASSENT_SECRET_STORE=file says otherwise', () => {
    expect(selectSecretStore(dir, { env: {}, ...quiet })).toBeInstanceOf(KeytarSecretStore)
    expect(selectSecretStore(dir, { env: { ASSENT_SECRET_STORE: '' }, ...quiet })).toBeInstanceOf(
      KeytarSecretStore,
    )
    expect(selectSecretStore(dir, { env: FILE, ...quiet })).toBeInstanceOf(FileSecretStore)
  })

  it('says what the file store means whenever it is chosen', () => {
    const warnings: string[] = []
    selectSecretStore(dir, { env: FILE, warn: (message) => warnings.push(message) })
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toContain(join(dir, KEY_FILE_NAME))
    expect(warnings[0]).toContain('Anyone who can read the data folder can forge the MACs')
  })

  it('refuses any other value instead of guessing', () => {
    expect(() =>
      selectSecretStore(dir, { env: { ASSENT_SECRET_STORE: 'File' }, ...quiet }),
    ).toThrow('ASSENT_SECRET_STORE must be "file"')
  })
})

describe('the key `assent audit verify` checks with', () => {
  // No keychain is reachable in these cases, as where the file store is
  // used for real; the keychain cases run against a real Secret Service in
  // tests/keychain.test.ts.
  const noKeychain = {
    loadKeytar: () => Promise.reject(new Error('no keychain on this machine')),
  }

  it('is the key file only when ASSENT_SECRET_STORE=file names it, and the answer names the file', async () => {
    const key = await loadIntegrityKey(dir, { env: FILE, ...quiet })
    const reading = await readKeyForVerifying(dir, { env: FILE, keytar: noKeychain, ...quiet })
    expect(reading).toMatchObject({
      ok: true,
      source: `the key file ${join(dir, KEY_FILE_NAME)}`,
    })
    expect(reading.ok && reading.key.equals(key)).toBe(true)
    expect(reading.ok && reading.store).toBeInstanceOf(FileSecretStore)
  })

  it('never falls back to a key file in the data folder when no store is named', async () => {
    await loadIntegrityKey(dir, { env: FILE, ...quiet })
    await expect(
      readKeyForVerifying(dir, { env: {}, keytar: noKeychain, ...quiet }),
    ).rejects.toThrow('no keychain on this machine')
    await expect(
      readKeyForVerifying(dir, {
        env: { ASSENT_SECRET_STORE: 'keychain' },
        keytar: noKeychain,
        ...quiet,
      }),
    ).rejects.toThrow('no keychain on this machine')
  })

  it('names the fix when ASSENT_SECRET_STORE=file finds no key file', async () => {
    expect(await readKeyForVerifying(dir, { env: FILE, keytar: noKeychain, ...quiet })).toEqual({
      ok: false,
      problem: expect.stringContaining(
        `no integrity key file at ${join(dir, KEY_FILE_NAME)} (ASSENT_SECRET_STORE=file names it); unset ASSENT_SECRET_STORE`,
      ),
    })
  })
})

describe('the key file (ASSENT_SECRET_STORE=file)', () => {
  it('is created once with mode 0600 and reused on the next start', async () => {
    const first = await loadIntegrityKey(dir, { env: FILE, ...quiet })
    const path = join(dir, KEY_FILE_NAME)
    expect(statSync(path).mode & 0o777).toBe(0o600)
    expect(first).toHaveLength(32)
    const second = await loadIntegrityKey(dir, { env: FILE, ...quiet })
    expect(second.equals(first)).toBe(true)
    expect(readFileSync(path, 'utf8')).toBe(`${first.toString('base64url')}\n`)
  })

  it('refuses a key file others can read, naming the fix', async () => {
    await loadIntegrityKey(dir, { env: FILE, ...quiet })
    chmodSync(join(dir, KEY_FILE_NAME), 0o644)
    await expect(loadIntegrityKey(dir, { env: FILE, ...quiet })).rejects.toThrow(
      `chmod 600 ${join(dir, KEY_FILE_NAME)}`,
    )
  })

  it('never replaces an existing key, even a damaged one', async () => {
    const store = new FileSecretStore()
    await store.create(dir, Buffer.alloc(32, 1))
    await expect(store.create(dir, Buffer.alloc(32, 2))).rejects.toThrow(/EEXIST/)
    rmSync(join(dir, KEY_FILE_NAME))
    await store.create(dir, Buffer.alloc(16, 1))
    await expect(store.read(dir)).rejects.toThrow('will not replace it')
  })

  it('does not write through a symlink planted where the key goes', async () => {
    const elsewhere = join(dir, 'elsewhere')
    symlinkSync(elsewhere, join(dir, KEY_FILE_NAME))
    await expect(new FileSecretStore().create(dir, Buffer.alloc(32, 1))).rejects.toThrow()
  })
})

describe('the data folder’s key', () => {
  it('is read back after it is made, so a store that drops writes fails at start', async () => {
    await expect(integrityKeyFor(forgetfulSecretStore(), dir)).rejects.toThrow(
      'could not be read back',
    )
  })
})

describe('keytar, loaded lazily', () => {
  it('names `npm rebuild keytar` and the packaging step when the build is for another ABI', async () => {
    const store = new KeytarSecretStore({
      loadKeytar: async () => {
        throw new Error(
          "The module 'keytar.node' was compiled against a different Node.js version using NODE_MODULE_VERSION 130. This version of Node.js requires NODE_MODULE_VERSION 137.",
        )
      },
    })
    const failure = store.read('/data')
    await expect(failure).rejects.toThrow('built for another Node.js or Electron ABI')
    await expect(failure).rejects.toThrow('npm rebuild keytar')
    await expect(failure).rejects.toThrow('npm run package')
  })

  it('names the fix when the module is missing', async () => {
    const missing = 'keytar-that-is-not-installed'
    const store = new KeytarSecretStore({ loadKeytar: () => import(missing) })
    await expect(store.read('/data')).rejects.toThrow(/could not be loaded .*npm rebuild keytar/)
  })

  it('reports an unreachable keychain with the way out, and never falls back by itself', async () => {
    const store = new KeytarSecretStore({
      loadKeytar: async () => ({
        getPassword: async () => {
          throw new Error('Could not connect: No such file or directory')
        },
        setPassword: async () => undefined,
      }),
    })
    const failure = integrityKeyFor(store, dir)
    await expect(failure).rejects.toThrow('No OS keychain is reachable')
    await expect(failure).rejects.toThrow('ASSENT_SECRET_STORE=file')
    await expect(failure).rejects.toThrow('Could not connect')
  })
})
