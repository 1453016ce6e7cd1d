import { spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { fileURLToPath } from 'node:url'
import { ANCHOR_FILE_NAME } from '../../src/main/core/file-secret-store.ts'
import type { RoomPolicy } from '../../src/contracts/policy-axes.ts'
import { DATABASE_FILE_NAME } from '../../src/runtime/store/database.ts'
import { IntegrityMac } from '../../src/runtime/store/integrity-mac.ts'
import { narrowestRoomPolicy } from '../../src/runtime/policy/room-policy.ts'
import { canonicalJson } from '../../src/contracts/canonical-json.ts'
import { MODE_PRESETS, modeFromPolicy } from '../../src/runtime/policy/permission-modes.ts'
import { SqliteAuditLog } from '../../src/runtime/store/audit-log.ts'
import { SqliteRoomRepository } from '../../src/runtime/store/room-repository.ts'
import type { RuntimeHarness } from './runtime-harness.ts'
import { TEST_TIMEOUT_MS } from '../../scripts/test-timing.ts'

export const ASSENT_CLI = fileURLToPath(new URL('../../src/cli/assent.ts', import.meta.url))
export const RUN_RUNTIME = fileURLToPath(new URL('../../src/cli/run-runtime.ts', import.meta.url))

export interface ChildResult {
  code: number | null
  stdout: string
  stderr: string
}

/** Runs a Node script as a child process and collects what it printed. */
export function runNode(
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  timeoutMs = TEST_TIMEOUT_MS,
): Promise<ChildResult> {
  return runNodeArgv([script, ...args], env, timeoutMs)
}

/** Runs `node <argv>` (flags first where needed) with no IPC channel and
 *  collects what it printed; rejects if it outlives `timeoutMs`. */
export function runNodeArgv(
  argv: string[],
  env: NodeJS.ProcessEnv,
  timeoutMs = TEST_TIMEOUT_MS,
): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, argv, { env, stdio: 'pipe' })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')))
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')))
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(
        new Error(
          `node ${argv.join(' ')} did not finish within ${timeoutMs} ms: ${stdout}${stderr}`,
        ),
      )
    }, timeoutMs)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })
}

/** `assent audit verify --data-dir D`, run the way a person runs it. */
export function auditVerify(dataDir: string, env: NodeJS.ProcessEnv): Promise<ChildResult> {
  return runNode(ASSENT_CLI, ['audit', 'verify', '--data-dir', dataDir], env)
}

/**
 * Edits the SQLite file directly, as someone with write access to the data
 * dir but not the key would: the append-only triggers are only a guard
 * against the runtime's own bugs, so they are dropped first.
 */
export function editDatabase(dataDir: string, edit: (db: DatabaseSync) => void): void {
  const db = new DatabaseSync(join(dataDir, DATABASE_FILE_NAME))
  try {
    db.exec('DROP TRIGGER IF EXISTS audit_events_no_update')
    db.exec('DROP TRIGGER IF EXISTS audit_events_no_delete')
    edit(db)
  } finally {
    db.close()
  }
}

/** Edits the room's stored policy to full access with the runtime stopped,
 *  as an editor of the file would: the room then reads as tampered. */
export async function tamperWithRoomPolicy(harness: RuntimeHarness, roomId: string) {
  await harness.supervisor.stop()
  editDatabase(harness.dataDir, (db) => {
    db.prepare('UPDATE rooms SET policy_json = ? WHERE id = ?').run(
      canonicalJson(MODE_PRESETS['full-access']),
      roomId,
    )
  })
  await harness.supervisor.start()
}

export function queryDatabase(dataDir: string, sql: string, ...params: Array<string | number>) {
  const db = new DatabaseSync(join(dataDir, DATABASE_FILE_NAME), { readOnly: true })
  try {
    return db.prepare(sql).all(...params)
  } finally {
    db.close()
  }
}

/**
 * Stores `policy` for a room the way the runtime itself would, sealed with
 * the data folder's integrity key and recorded (and counted) in the audit log, with the runtime stopped so nothing caches
 * the old row: a row from an older build, say, that only later checks stand
 * between.
 */
export async function storeSealedPolicy(
  harness: RuntimeHarness,
  roomId: string,
  policy: RoomPolicy,
  expectedRevision: number,
): Promise<void> {
  await harness.supervisor.stop()
  try {
    const db = new DatabaseSync(join(harness.dataDir, DATABASE_FILE_NAME))
    try {
      const mac = new IntegrityMac(harness.integrityKey)
      const rooms = new SqliteRoomRepository(db, {
        mac,
        audit: new SqliteAuditLog(db, { mac }),
        narrowestPolicy: narrowestRoomPolicy,
        onTampered: (problem) => {
          throw new Error(`unexpected integrity problem: ${JSON.stringify(problem)}`)
        },
      })
      const mode = modeFromPolicy(policy)
      const changed = rooms.changePolicy(
        {
          roomId,
          clientRequestId: randomUUID(),
          bodyDigest: 'stored by a test',
          policy,
          expectedRevision,
          fromMode: 'stored by a test',
          toMode: mode,
          at: Date.now(),
        },
        () => ({
          roomId,
          revision: expectedRevision + 1,
          policy,
          mode,
          fullAccessUnavailable: null,
          integrity: 'ok',
        }),
      )
      if (!changed) throw new Error(`room ${roomId} is not at revision ${expectedRevision}`)
    } finally {
      db.close()
    }
  } finally {
    await harness.supervisor.start()
  }
}

/**
 * A real failure of the real file anchor store: a directory where the
 * anchor file goes, so every anchor write fails until `restore` puts the
 * file back as it was. Returns the counter the anchor held, and `restore`.
 */
export function breakFileAnchor(dataDir: string): { saved: string; restore: () => void } {
  const anchorFile = join(dataDir, ANCHOR_FILE_NAME)
  const saved = readFileSync(anchorFile, 'utf8')
  rmSync(anchorFile)
  mkdirSync(anchorFile, { mode: 0o700 })
  return {
    saved,
    restore: () => {
      rmSync(anchorFile, { recursive: true })
      writeFileSync(anchorFile, saved, { mode: 0o600 })
    },
  }
}
