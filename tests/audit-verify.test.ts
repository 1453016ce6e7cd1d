import { cpSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { DatabaseSync } from 'node:sqlite'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadIntegrityKey } from '../src/main/core/secret-store-selection.ts'
import { auditEventHash } from '../src/runtime/store/audit-chain.ts'
import { runAssentCli } from '../src/cli/assent-cli.ts'
import {
  auditVerify,
  editDatabase,
  queryDatabase,
  runNode,
  ASSENT_CLI,
} from './support/integrity-helpers.ts'
import { setMode } from './support/policy-helpers.ts'
import { createRoom } from './support/room-helpers.ts'
import { startHarness } from './support/runtime-harness.ts'
import { TEST_TIMEOUT_MS } from '../scripts/test-timing.ts'

// The key lives in the data folder's key file here (ASSENT_SECRET_STORE=file), so
// these run on any machine; tests/keychain.test.ts runs the CLI against the
// OS keychain.
const FILE_STORE = { ...process.env, ASSENT_SECRET_STORE: 'file' }
/** Each case starts the CLI as a Node process; on a loaded two-core machine
 *  a start can take seconds. */
const CLI_TEST_MS = TEST_TIMEOUT_MS

let root: string
let intact: string
let copies = 0
let lastSeq = 0

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'assent-verify-'))
  const dataDir = join(root, 'data')
  const integrityKey = await loadIntegrityKey(dataDir, { env: FILE_STORE, warn: () => undefined })
  const harness = await startHarness({ root, integrityKey })
  for (let index = 0; index < 3; index += 1) {
    const room = await createRoom(harness)
    await setMode(harness, room.id, 'approve-for-me')
  }
  await harness.supervisor.stop()
  intact = dataDir
  lastSeq = Number(queryDatabase(intact, 'SELECT max(seq) AS seq FROM audit_events')[0]?.seq)
}, CLI_TEST_MS)

afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true })
})

/** A copy of the intact data folder (database and key file), edited by `edit`. */
function tampered(edit: (db: DatabaseSync) => void): string {
  copies += 1
  const copy = join(root, `copy-${copies}`)
  cpSync(intact, copy, { recursive: true })
  editDatabase(copy, edit)
  return copy
}

function rowOf(db: DatabaseSync, seq: number) {
  const row = db.prepare('SELECT * FROM audit_events WHERE seq = ?').get(seq)
  if (!row) throw new Error(`no event ${seq}`)
  return row
}

describe('assent audit verify', { timeout: CLI_TEST_MS }, () => {
  it('has seven events to work with: three rooms created and changed, and a clean shutdown', () => {
    expect(lastSeq).toBe(7)
  })

  it('passes an intact log with exit 0 and a one-line summary', async () => {
    const result = await auditVerify(intact, FILE_STORE)
    expect(result.code).toBe(0)
    expect(result.stdout.trim().split('\n')).toEqual([
      expect.stringMatching(
        /^audit log intact: 7 events, seq 1–7, sealed head at seq 7, not rolled back \(counter 4, anchor 4\) /,
      ),
    ])
  })

  it('detects an edited event and names its seq', async () => {
    const dir = tampered((db) =>
      db.prepare(`UPDATE audit_events SET payload_json = '{"edited":true}' WHERE seq = 3`).run(),
    )
    const result = await auditVerify(dir, FILE_STORE)
    expect(result.code).toBe(1)
    expect(result.stderr).toContain(
      'audit log broken at seq 3: its content does not match its hash',
    )
  })

  it('detects an edit whose hashes and links were all recomputed: the MAC gives it away', async () => {
    const dir = tampered((db) => {
      let prevHash = String(rowOf(db, 2).hash)
      for (let seq = 3; seq <= lastSeq; seq += 1) {
        const row = rowOf(db, seq)
        const payload = seq === 3 ? { edited: true } : JSON.parse(String(row.payload_json))
        const hash = auditEventHash({
          seq,
          id: String(row.id),
          type: String(row.type),
          subjectId: String(row.subject_id),
          payload,
          at: Number(row.created_at),
          prevHash,
        })
        db.prepare(
          'UPDATE audit_events SET payload_json = ?, prev_hash = ?, hash = ? WHERE seq = ?',
        ).run(JSON.stringify(payload), prevHash, hash, seq)
        prevHash = hash
      }
      db.prepare('UPDATE audit_head SET hash = ?').run(prevHash)
    })
    const result = await auditVerify(dir, FILE_STORE)
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('audit log broken at seq 3: its MAC does not verify')
  })

  it('detects a deleted event and names the missing seq', async () => {
    const dir = tampered((db) => db.prepare('DELETE FROM audit_events WHERE seq = 4').run())
    const result = await auditVerify(dir, FILE_STORE)
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('audit log broken at seq 4: event 4 is missing (deleted)')
  })

  it('detects two events whose contents were swapped', async () => {
    const dir = tampered((db) => {
      const [second, fifth] = [rowOf(db, 2), rowOf(db, 5)]
      const swap = db.prepare('UPDATE audit_events SET payload_json = ?, type = ? WHERE seq = ?')
      swap.run(String(fifth.payload_json), String(fifth.type), 2)
      swap.run(String(second.payload_json), String(second.type), 5)
    })
    const result = await auditVerify(dir, FILE_STORE)
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('audit log broken at seq 2: its content does not match')
  })

  it('detects two whole events stored in each other’s place as a reordering', async () => {
    const dir = tampered((db) => {
      // Move the rows, ids, hashes and MACs included: only their order changes.
      db.prepare('UPDATE audit_events SET seq = 100 WHERE seq = 2').run()
      db.prepare('UPDATE audit_events SET seq = 2 WHERE seq = 3').run()
      db.prepare('UPDATE audit_events SET seq = 3 WHERE seq = 100').run()
    })
    const result = await auditVerify(dir, FILE_STORE)
    expect(result.code).toBe(1)
    expect(result.stderr).toContain(
      'audit log broken at seq 2: reordered: it links to the event stored at seq 3, not to seq 1',
    )
  })

  it('detects the newest events deleted, though the shorter chain is valid', async () => {
    const dir = tampered((db) => db.prepare('DELETE FROM audit_events WHERE seq >= 5').run())
    const result = await auditVerify(dir, FILE_STORE)
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('audit log broken at seq 5: truncated')
    expect(result.stderr).toContain(`events 5–${lastSeq} were deleted`)
  })

  it('detects a truncation whose head was moved back without the key', async () => {
    const dir = tampered((db) => {
      db.prepare('DELETE FROM audit_events WHERE seq >= 5').run()
      db.prepare('UPDATE audit_head SET seq = 4, hash = ?').run(String(rowOf(db, 4).hash))
    })
    const result = await auditVerify(dir, FILE_STORE)
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('sealed head of the log does not verify')
  })

  it('detects a deleted head', async () => {
    const dir = tampered((db) => db.prepare('DELETE FROM audit_head').run())
    const result = await auditVerify(dir, FILE_STORE)
    expect(result.code).toBe(1)
    expect(result.stderr).toContain(
      `audit log broken at seq ${lastSeq}: the sealed head of the log is missing`,
    )
  })
})

describe('assent audit verify flags', { timeout: CLI_TEST_MS }, () => {
  const run = (args: string[], env: NodeJS.ProcessEnv = FILE_STORE) =>
    runNode(ASSENT_CLI, args, env)

  it('takes the data folder from ASSENT_DATA_DIR when no flag names it', async () => {
    const result = await run(['audit', 'verify'], { ...FILE_STORE, ASSENT_DATA_DIR: intact })
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('audit log intact')
  })

  it('refuses an unknown option, a missing value, a repeated flag and a stray argument, with exit 2', async () => {
    const cases: Array<[string[], string]> = [
      [['audit', 'verify', '--data-dri', intact], 'unknown option "--data-dri"'],
      [['audit', 'verify', '--data-dir'], '--data-dir needs a directory'],
      [['audit', 'verify', '--data-dir='], '--data-dir needs a directory'],
      [['audit', 'verify', '--data-dir', '--help'], '--data-dir needs a directory'],
      [['audit', 'verify', '--data-dir', intact, '--data-dir', intact], '--data-dir given twice'],
      [['audit', 'verify', intact], `unexpected argument "${intact}"`],
      [['audit', 'check'], 'unknown audit command "check"'],
      [['audit'], 'name an audit command'],
      [['verify'], 'unknown command "verify"'],
      [[], 'name a command'],
    ]
    // In-process: the same function the entry runs, without a Node start per case.
    for (const [args, message] of cases) {
      const out: string[] = []
      const err: string[] = []
      const code = await runAssentCli(args, {
        env: FILE_STORE,
        out: (line) => out.push(line),
        err: (line) => err.push(line),
      })
      expect({ args, code, out }).toEqual({ args, code: 2, out: [] })
      expect(err.join('\n')).toContain(message)
      expect(err.join('\n')).toContain('usage: assent audit verify [--data-dir D]')
    }
  })

  it('prints its usage on --help with exit 0', async () => {
    const result = await run(['audit', 'verify', '--help'])
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('usage: assent audit verify [--data-dir D]')
  })

  it('says it could not check, with exit 2, when there is no data folder or no key', async () => {
    const noDir = await run(['audit', 'verify', '--data-dir', join(root, 'nowhere')])
    expect(noDir.code).toBe(2)
    expect(noDir.stderr).toContain('is not a directory')
    const keyless = join(root, 'keyless')
    cpSync(intact, keyless, { recursive: true })
    rmSync(join(keyless, 'integrity.key'))
    const noKey = await run(['audit', 'verify', '--data-dir', keyless])
    expect(noKey.code).toBe(2)
    expect(noKey.stderr).toContain('no integrity key file at')
    expect(noKey.stdout).toBe('')
  })

  it('never makes a key while verifying', async () => {
    const keyless = join(root, 'keyless-2')
    cpSync(intact, keyless, { recursive: true })
    rmSync(join(keyless, 'integrity.key'))
    await run(['audit', 'verify', '--data-dir', keyless])
    const again = await run(['audit', 'verify', '--data-dir', keyless])
    expect(again.stderr).toContain('no integrity key file at')
  })

  it('refuses a log checked under another key', async () => {
    const other = join(root, 'other-key')
    cpSync(intact, other, { recursive: true })
    rmSync(join(other, 'integrity.key'))
    await loadIntegrityKey(other, { env: FILE_STORE, warn: () => undefined })
    const result = await run(['audit', 'verify', '--data-dir', other])
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('audit log broken at seq 1: its MAC does not verify')
  })
})
