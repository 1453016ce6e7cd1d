import { randomUUID } from 'node:crypto'
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  copyFileSync,
} from 'node:fs'
import { spawn } from 'node:child_process'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ROLLBACK_ANCHOR_SERVICE, SECRET_STORE_SERVICE } from '../src/main/core/secret-store.ts'
import { loadDataDirSecrets, loadIntegrityKey } from '../src/main/core/secret-store-selection.ts'
import { DATABASE_FILE_NAME } from '../src/runtime/store/database.ts'
import { auditVerify, editDatabase, runNode, RUN_RUNTIME } from './support/integrity-helpers.ts'
import { chromiumAvailable } from './support/cdp-host-harness.ts'
import { requireOrSkip } from './support/require-or-skip.ts'
import { readPermissions, setMode } from './support/policy-helpers.ts'
import { createRoom } from './support/room-helpers.ts'
import { eventually, startHarness } from './support/runtime-harness.ts'
import { TEST_TIMEOUT_MS, WAIT_TIMEOUT_MS } from '../scripts/test-timing.ts'

interface Keytar {
  getPassword(service: string, account: string): Promise<string | null>
  setPassword(service: string, account: string, password: string): Promise<void>
  deletePassword(service: string, account: string): Promise<boolean>
  findCredentials(service: string): Promise<Array<{ account: string; password: string }>>
}

const PROBE_TIMEOUT_MS = WAIT_TIMEOUT_MS
const DEV_CDP = fileURLToPath(new URL('../src/main/cdp/index.ts', import.meta.url))
/** These tests start Node processes (the runtime, `npm run runtime`, the
 *  CLI); on a loaded two-core machine one start can take seconds. */
const CHILD_PROCESS_TEST_MS = TEST_TIMEOUT_MS

async function loadKeytar(): Promise<Keytar> {
  const module = (await import('keytar')) as unknown as { default?: Keytar } & Keytar
  return module.default ?? module
}

/** Why no Secret Service can be used here, or undefined when one can: a
 *  D-Bus session, and keytar able to set, get and delete a throwaway entry. */
async function secretServiceMissing(): Promise<string | undefined> {
  if (!process.env.DBUS_SESSION_BUS_ADDRESS) return 'no D-Bus session bus'
  const probe = async () => {
    const keytar = await loadKeytar()
    const account = `probe-${randomUUID()}`
    await keytar.setPassword('assent-test-probe', account, 'probe')
    const read = await keytar.getPassword('assent-test-probe', account)
    await keytar.deletePassword('assent-test-probe', account)
    return read === 'probe' ? undefined : 'the Secret Service did not return what was stored'
  }
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve('the Secret Service did not answer'), PROBE_TIMEOUT_MS)
  })
  try {
    return await Promise.race([probe(), timeout])
  } catch (error) {
    return `keytar could not use it: ${(error as Error).message.split('\n')[0]}`
  } finally {
    clearTimeout(timer)
  }
}

const secretServiceAvailable = requireOrSkip(
  'A Secret Service (D-Bus session with GNOME Keyring)',
  await secretServiceMissing(),
  'run the tests with `npm test`, which starts a throwaway one through scripts/with-secret-service.sh, ' +
    'after `apt-get install gnome-keyring dbus libsecret-1-dev`',
)

let root: string
const quiet = { warn: () => undefined }

/** This process's environment without ASSENT_SECRET_STORE: the keychain is
 *  the default, and these tests mean the default. */
function keychainEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env }
  delete env.ASSENT_SECRET_STORE
  return { ...env, ...extra }
}

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'assent-keychain-'))
})
afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true })
})

/** The keychain entries Assent holds for one data folder. */
async function entriesFor(dataDir: string) {
  const account = realpathSync(dataDir)
  const keytar = await loadKeytar()
  return (await keytar.findCredentials(SECRET_STORE_SERVICE)).filter(
    (entry) => entry.account === account,
  )
}

describe.skipIf(!secretServiceAvailable)(
  'the integrity key in a real Secret Service',
  { timeout: CHILD_PROCESS_TEST_MS },
  () => {
    it('is created on the first start and reused on the next: same key, one keychain entry', async () => {
      const dataDir = join(root, 'twice')
      const first = await loadIntegrityKey(dataDir, { env: {}, ...quiet })
      const second = await loadIntegrityKey(dataDir, { env: {}, ...quiet })
      expect(first).toHaveLength(32)
      expect(second.equals(first)).toBe(true)
      const entries = await entriesFor(dataDir)
      expect(entries).toHaveLength(1)
      expect(entries[0]?.password).toBe(first.toString('base64url'))
      // Nothing was written beside the database.
      expect(existsSync(join(dataDir, 'integrity.key'))).toBe(false)
    })

    it('gives each data folder its own key, and two spellings of one dir the same key', async () => {
      const one = join(root, 'one')
      const other = join(root, 'other')
      const keyOne = await loadIntegrityKey(one, { env: {}, ...quiet })
      const keyOther = await loadIntegrityKey(other, { env: {}, ...quiet })
      expect(keyOther.equals(keyOne)).toBe(false)
      const alias = join(root, 'alias-of-one')
      symlinkSync(one, alias)
      expect((await loadIntegrityKey(alias, { env: {}, ...quiet })).equals(keyOne)).toBe(true)
      expect(await entriesFor(one)).toHaveLength(1)
    })

    it('seals what the runtime writes so `assent audit verify` checks it with the keychain key', async () => {
      const harnessRoot = join(root, 'harness')
      mkdirSync(harnessRoot)
      const dataDir = join(harnessRoot, 'data')
      const secrets = await loadDataDirSecrets(dataDir, { env: {}, ...quiet })
      const harness = await startHarness({ root: harnessRoot, ...secrets })
      try {
        const room = await createRoom(harness)
        await setMode(harness, room.id, 'approve-for-me')
      } finally {
        await harness.close()
      }
      const env = keychainEnv()
      const intact = await auditVerify(dataDir, env)
      expect(intact).toMatchObject({ code: 0 })
      // Created, changed, and the clean shutdown that advanced the anchor.
      expect(intact.stdout).toContain('audit log intact: 3 events')
      expect(intact.stdout).toContain('not rolled back (counter 2, anchor 2)')

      editDatabase(dataDir, (db) =>
        db.prepare(`UPDATE audit_events SET payload_json = '{}' WHERE seq = 2`).run(),
      )
      const broken = await auditVerify(dataDir, env)
      expect(broken.code).toBe(1)
      expect(broken.stderr).toContain('audit log broken at seq 2')
    })
  },
)

describe.skipIf(!secretServiceAvailable)(
  'a key file planted in a data folder whose key is in a real Secret Service',
  { timeout: CHILD_PROCESS_TEST_MS * 2 },
  () => {
    /** Whoever can write the data folder, not the keychain: they seal a database
     *  of their own under a key of their own (a data folder started with the
     *  file store), and put it, its key file and its anchor file in place of
     *  the victim's. */
    async function plantedDataDir(name: string) {
      const victimRoot = join(root, `${name}-victim`)
      const forgerRoot = join(root, `${name}-forger`)
      mkdirSync(victimRoot)
      mkdirSync(forgerRoot)
      const dataDir = join(victimRoot, 'data')
      const secrets = await loadDataDirSecrets(dataDir, { env: {}, ...quiet })
      const victim = await startHarness({ root: victimRoot, ...secrets })
      try {
        await setMode(victim, (await createRoom(victim)).id, 'ask-for-approval')
      } finally {
        await victim.close()
      }
      const forgedDir = join(forgerRoot, 'data')
      const fileEnv = { ASSENT_SECRET_STORE: 'file' }
      const forged = await loadDataDirSecrets(forgedDir, { env: fileEnv, ...quiet })
      const forger = await startHarness({ root: forgerRoot, ...forged })
      try {
        await setMode(forger, (await createRoom(forger)).id, 'full-access')
      } finally {
        await forger.close()
      }
      for (const suffix of ['', '-wal', '-shm']) {
        rmSync(join(dataDir, `${DATABASE_FILE_NAME}${suffix}`), { force: true })
      }
      for (const file of [DATABASE_FILE_NAME, 'integrity.key', 'rollback.anchor']) {
        copyFileSync(join(forgedDir, file), join(dataDir, file))
      }
      // The forged database verifies under its own key: the plant is sound.
      expect(await auditVerify(forgedDir, keychainEnv(fileEnv))).toMatchObject({ code: 0 })
      return dataDir
    }

    it('is never what verifies without ASSENT_SECRET_STORE=file: the keychain key finds the forgery', async () => {
      const dataDir = await plantedDataDir('planted')
      const result = await auditVerify(dataDir, keychainEnv())
      expect(result.code).toBe(1)
      expect(result.stdout).not.toContain('intact')
      expect(result.stderr).toContain('audit log broken at seq 1')
      expect(result.stderr).toMatch(/checked with the OS keychain \(/)
      expect(result.stderr).toContain(
        `warning: ${join(realpathSync(dataDir), 'integrity.key')} is not the integrity key in the OS keychain`,
      )
    })

    it('verifies with the key file only when ASSENT_SECRET_STORE=file names it, naming the file and the keychain’s other key', async () => {
      const dataDir = await plantedDataDir('named')
      const keyFile = join(realpathSync(dataDir), 'integrity.key')
      const result = await auditVerify(dataDir, keychainEnv({ ASSENT_SECRET_STORE: 'file' }))
      expect(result.code).toBe(0)
      expect(result.stdout).toContain(`verified with the key file ${keyFile}`)
      expect(result.stderr).toMatch(
        /warning: the OS keychain \([^)]*\) holds another integrity key for /,
      )
      expect(result.stderr).toContain(`than ${keyFile}: this check used the key file`)
    })

    it('says it could not check, naming the fix, where only the data folder holds a key', async () => {
      const dataDir = join(root, 'file-only')
      await loadIntegrityKey(dataDir, { env: { ASSENT_SECRET_STORE: 'file' }, ...quiet })
      const result = await auditVerify(dataDir, keychainEnv())
      expect(result.code).toBe(2)
      expect(result.stderr).toContain(
        `no integrity key for ${realpathSync(dataDir)} in the OS keychain`,
      )
      expect(result.stderr).toContain('run the check again with ASSENT_SECRET_STORE=file')
    })
  },
)

describe.skipIf(!secretServiceAvailable)(
  'the rollback anchor in a real Secret Service',
  { timeout: CHILD_PROCESS_TEST_MS * 2 },
  () => {
    it('holds the counter beside the key, and catches an older database put back, as the CLI does', async () => {
      const harnessRoot = join(root, 'anchor')
      mkdirSync(harnessRoot)
      const dataDir = join(harnessRoot, 'data')
      const secrets = await loadDataDirSecrets(dataDir, { env: {}, ...quiet })
      const harness = await startHarness({ root: harnessRoot, ...secrets })
      const keytar = await loadKeytar()
      try {
        const room = await createRoom(harness)
        await setMode(harness, room.id, 'full-access')
        await harness.supervisor.stop()
        const copy = join(harnessRoot, 'copy.sqlite')
        copyFileSync(join(dataDir, DATABASE_FILE_NAME), copy)
        await harness.supervisor.start()
        await setMode(harness, room.id, 'ask-for-approval')
        await harness.supervisor.stop()
        // Counted: full access, its shutdown, the narrowing, this shutdown.
        expect(await keytar.getPassword(ROLLBACK_ANCHOR_SERVICE, realpathSync(dataDir))).toBe('4')
        expect(existsSync(join(dataDir, 'rollback.anchor'))).toBe(false)

        for (const suffix of ['', '-wal', '-shm']) {
          rmSync(join(dataDir, `${DATABASE_FILE_NAME}${suffix}`), { force: true })
        }
        copyFileSync(copy, join(dataDir, DATABASE_FILE_NAME))
        const caught = await auditVerify(dataDir, keychainEnv())
        expect(caught.code).toBe(1)
        expect(caught.stderr).toMatch(
          /database rolled back: its rollback counter is 2, the anchor in the OS keychain .* is 4/,
        )

        await harness.supervisor.start()
        expect((await readPermissions(harness, room.id)).body).toMatchObject({
          mode: 'ask-for-approval',
          integrity: 'rolled-back',
        })
      } finally {
        await harness.close()
      }
    })
  },
)

describe(
  'without a reachable keychain (D-Bus pointed at a dead socket)',
  { timeout: CHILD_PROCESS_TEST_MS },
  () => {
    function deadBusEnv(dataDir: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
      return keychainEnv({
        DBUS_SESSION_BUS_ADDRESS: `unix:path=${join(root, 'no-such-bus.sock')}`,
        ASSENT_DATA_DIR: dataDir,
        ...extra,
      })
    }

    it('refuses to start, and the error says how: a keychain, or ASSENT_SECRET_STORE=file', async () => {
      const dataDir = join(root, 'refused')
      const result = await runNode(RUN_RUNTIME, [], deadBusEnv(dataDir))
      expect(result.code).toBe(1)
      expect(result.stderr).toContain('Assent did not start: No OS keychain is reachable')
      expect(result.stderr).toContain('set ASSENT_SECRET_STORE=file')
      expect(result.stderr).toContain('anyone who can read the data folder can forge')
      expect(result.stdout).not.toContain('listening')
      expect(existsSync(join(dataDir, DATABASE_FILE_NAME))).toBe(false)
      expect(existsSync(join(dataDir, 'integrity.key'))).toBe(false)
    })

    it('starts with ASSENT_SECRET_STORE=file, warning what that means, with a 0600 key file', async () => {
      const dataDir = join(root, 'file-store')
      const child = spawn(process.execPath, [RUN_RUNTIME], {
        env: deadBusEnv(dataDir, { ASSENT_SECRET_STORE: 'file' }),
        stdio: 'pipe',
      })
      let stdout = ''
      let stderr = ''
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')))
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')))
      const exited = new Promise<number | null>((resolve) => child.on('close', resolve))
      try {
        await eventually(
          () => (stdout.includes('is listening on') ? true : undefined),
          'the runtime to listen',
          CHILD_PROCESS_TEST_MS - 10_000,
        )
      } finally {
        child.kill('SIGTERM')
      }
      expect(await exited).toBe(0)
      expect(stderr).toContain('warning: ASSENT_SECRET_STORE=file')
      expect(stderr).toContain('Anyone who can read the data folder can forge the MACs')
      expect(statSync(join(dataDir, 'integrity.key')).mode & 0o777).toBe(0o600)
      expect(stdout).toContain(`Assent runtime stopped (data folder: ${dataDir}).`)

      // The data folder it left has its key file, and `assent audit verify`
      // still takes the keychain unless told otherwise (here it cannot reach
      // one): a key file found in a data folder is no evidence of whose it is.
      const unnamed = await auditVerify(dataDir, deadBusEnv(dataDir))
      expect(unnamed.code).toBe(2)
      expect(unnamed.stderr).toContain('No OS keychain is reachable')
      expect(unnamed.stdout).toBe('')
      // Told to use the key file, it does, and says which key verified.
      const verified = await auditVerify(
        dataDir,
        deadBusEnv(dataDir, { ASSENT_SECRET_STORE: 'file' }),
      )
      expect(verified).toMatchObject({ code: 0 })
      expect(verified.stdout).toContain('audit log intact')
      expect(verified.stdout).toContain(
        `verified with the key file ${join(realpathSync(dataDir), 'integrity.key')}`,
      )
    })

    it.runIf(chromiumAvailable())(
      'makes `npm run dev:cdp` say why it did not start, as `npm run runtime` does, without a stack trace',
      async () => {
        const dataDir = join(root, 'dev-cdp-refused')
        const result = await runNode(DEV_CDP, [], deadBusEnv(dataDir))
        expect(result.code).toBe(1)
        expect(result.stderr).toContain('Assent did not start: No OS keychain is reachable')
        expect(result.stderr).toContain('set ASSENT_SECRET_STORE=file')
        expect(result.stderr).not.toMatch(/^\s+at /m)
        expect(existsSync(join(dataDir, 'integrity.key'))).toBe(false)
      },
    )

    it('makes `assent audit verify` say it could not check, with the same advice', async () => {
      const dataDir = join(root, 'verify-refused')
      mkdirSync(dataDir)
      const result = await auditVerify(dataDir, deadBusEnv(dataDir))
      expect(result.code).toBe(2)
      expect(result.stderr).toContain('No OS keychain is reachable')
      expect(result.stderr).toContain('ASSENT_SECRET_STORE=file')
    })
  },
)
