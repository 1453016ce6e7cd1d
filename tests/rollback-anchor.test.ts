import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs'
import { spawn } from 'node:child_process'
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { ANCHOR_FILE_NAME } from '../src/main/core/file-secret-store.ts'
import { loadDataDirSecrets } from '../src/main/core/secret-store-selection.ts'
import { MODE_PRESETS } from '../src/runtime/policy/permission-modes.ts'
import { readAuditHead } from '../src/runtime/store/audit-log.ts'
import { DATABASE_FILE_NAME } from '../src/runtime/store/database.ts'
import { IntegrityMac } from '../src/runtime/store/integrity-mac.ts'
import { openEventStream } from './support/event-stream.ts'
import {
  breakFileAnchor,
  auditVerify,
  editDatabase,
  queryDatabase,
  RUN_RUNTIME,
} from './support/integrity-helpers.ts'
import {
  auditEvents,
  decide,
  outsideDir,
  putMode,
  readPermissions,
  roomApprovals,
  roomGrants,
  setMode,
  toolCallsOf,
} from './support/policy-helpers.ts'
import { createRoom, pendingApprovalFor, send, turnSettled } from './support/room-helpers.ts'
import { eventually, startHarness, type RuntimeHarness } from './support/runtime-harness.ts'
import { TEST_TIMEOUT_MS } from '../scripts/test-timing.ts'

// A real runtime process over HTTP, its real SQLite file copied away and put
// back, and the key and anchor in the file store (ASSENT_SECRET_STORE=file),
// so `assent audit verify` reads the same ones; tests/keychain.test.ts does
// the same against a real Secret Service.
const FILE_STORE = { ...process.env, ASSENT_SECRET_STORE: 'file' }
/** Each case restarts the runtime a few times and runs the CLI. */
const CASE_MS = TEST_TIMEOUT_MS * 2
const DATABASE_FILES = [
  DATABASE_FILE_NAME,
  `${DATABASE_FILE_NAME}-wal`,
  `${DATABASE_FILE_NAME}-shm`,
]

const harnesses: RuntimeHarness[] = []
afterEach(async () => {
  for (const harness of harnesses.splice(0)) await harness.close()
})

async function start(): Promise<RuntimeHarness> {
  const root = await mkdtemp(join(tmpdir(), 'assent-rollback-'))
  const secrets = await loadDataDirSecrets(join(root, 'data'), {
    env: FILE_STORE,
    warn: () => undefined,
  })
  const harness = await startHarness({ ...secrets, root })
  harnesses.push(harness)
  return harness
}

let copies = 0
/** Copies the database's files as they are on disk now (running or not). */
function copyDatabase(harness: RuntimeHarness): string {
  copies += 1
  const copy = join(harness.root, `copy-${copies}`)
  mkdirSync(copy)
  for (const name of DATABASE_FILES) {
    const from = join(harness.dataDir, name)
    if (existsSync(from)) copyFileSync(from, join(copy, name))
  }
  return copy
}

/** Replaces the data folder's database with a copy, the runtime stopped. */
function putBack(harness: RuntimeHarness, copy: string): void {
  for (const name of DATABASE_FILES) {
    rmSync(join(harness.dataDir, name), { force: true })
    if (existsSync(join(copy, name))) copyFileSync(join(copy, name), join(harness.dataDir, name))
  }
}

const anchorOf = async (harness: RuntimeHarness) => harness.rollbackAnchor.read()

async function runTurn(harness: RuntimeHarness, roomId: string, text: string) {
  const turnId = await send(harness, roomId, text)
  await turnSettled(harness, roomId, turnId)
  return toolCallsOf(harness, roomId, turnId)
}

describe('an older copy of the database put back', { timeout: CASE_MS }, () => {
  it('brings a room narrowed since back as ask-for-approval, rolled back and reported, not full access', async () => {
    const harness = await start()
    const room = await createRoom(harness)
    await setMode(harness, room.id, 'full-access')
    // A backup taken at rest, as a backup tool would.
    await harness.supervisor.stop()
    const beforeNarrowing = copyDatabase(harness)
    await harness.supervisor.start()
    await setMode(harness, room.id, 'ask-for-approval')
    await harness.supervisor.stop()
    const anchor = await anchorOf(harness)
    putBack(harness, beforeNarrowing)

    // Before any start notices, the CLI does.
    const pending = await auditVerify(harness.dataDir, FILE_STORE)
    expect(pending.code).toBe(1)
    expect(pending.stderr).toMatch(
      // Counted in the copy: full access and the shutdown before the backup.
      new RegExp(`database rolled back: its rollback counter is 2, the anchor in .* is ${anchor}`),
    )

    await harness.supervisor.start()
    expect(await readPermissions(harness, room.id)).toEqual({
      status: 200,
      body: {
        roomId: room.id,
        revision: 1,
        policy: MODE_PRESETS['ask-for-approval'],
        mode: 'ask-for-approval',
        fullAccessUnavailable: null,
        integrity: 'rolled-back',
      },
    })
    const outside = await outsideDir(harness)
    expect(await runTurn(harness, room.id, `write ${outside}/escaped.txt x`)).toMatchObject([
      { status: 'refused', approvalId: null, result: { code: 'outside_workspace' } },
    ])
    expect(existsSync(join(outside, 'escaped.txt'))).toBe(false)

    const detected = (await auditEvents(harness)).filter(
      (event) => event.type === 'rollback_detected',
    )
    expect(detected.map((event) => event.payload)).toEqual([
      {
        reason: 'older_than_anchor',
        databaseCounter: 2,
        anchor,
        counter: (anchor ?? 0) + 1,
        roomIds: [room.id],
        revokedGrantIds: [],
        webhookRoomIds: [],
      },
    ])
    const stream = await openEventStream(harness, { fromStart: true })
    try {
      await stream.waitFor(
        (event) =>
          event.type === 'runtime.integrity' &&
          (event.data as { problem?: string }).problem === 'rolled_back',
        'the rollback report',
      )
    } finally {
      stream.close()
    }
    expect(await anchorOf(harness)).toBe((anchor ?? 0) + 1)

    // Noticed, and for good: the log says what it no longer holds.
    await harness.supervisor.stop()
    const recorded = await auditVerify(harness.dataDir, FILE_STORE)
    expect(recorded.code).toBe(1)
    expect(recorded.stderr).toContain('audit log records a rollback at seq')
    expect(recorded.stderr).toContain('older_than_anchor')
  })

  it('is caught when the copy was taken from the running runtime, files and all', async () => {
    const harness = await start()
    const room = await createRoom(harness)
    await setMode(harness, room.id, 'full-access')
    const live = copyDatabase(harness)
    await setMode(harness, room.id, 'approve-for-me')
    await harness.supervisor.stop()
    putBack(harness, live)
    await harness.supervisor.start()
    expect((await readPermissions(harness, room.id)).body).toMatchObject({
      mode: 'ask-for-approval',
      integrity: 'rolled-back',
    })
  })

  it('keeps a revoked always-allow grant revoked: every grant of the copy is revoked', async () => {
    const harness = await start()
    const room = await createRoom(harness)
    const view = await pendingApprovalFor(harness, room.id, 'run echo granted')
    expect((await decide(harness, view, 'allow-always')).status).toBe(200)
    await turnSettled(harness, room.id, view.approval.turnId)
    const [grant] = await roomGrants(harness, room.id)
    const withGrant = copyDatabase(harness)
    expect(
      (await harness.client.raw('DELETE', `/v1/rooms/${room.id}/grants/${grant!.id}`)).status,
    ).toBe(200)
    await harness.supervisor.stop()
    putBack(harness, withGrant)
    await harness.supervisor.start()

    expect(await roomGrants(harness, room.id)).toEqual([])
    const revoked = (await auditEvents(harness)).filter(
      (event) => event.type === 'grant_revoked' && event.subjectId === grant!.id,
    )
    expect(revoked.map((event) => event.payload)).toEqual([{ roomId: room.id, reason: 'rollback' }])
    // Confirming the mode does not bring it back, and the command asks again.
    const { revision } = await harness.client.getPermissions(room.id)
    const confirmed = await putMode(harness, room.id, {
      mode: 'ask-for-approval',
      expectedRevision: revision,
      resealsRoom: true,
    })
    expect(confirmed.status).toBe(200)
    expect(await roomGrants(harness, room.id)).toEqual([])
    const again = await pendingApprovalFor(harness, room.id, 'run echo granted')
    expect(again.approval.status).toBe('pending')
    expect((await decide(harness, again, 'deny')).status).toBe(200)
  })

  it('is trusted again room by room, once the person confirms a mode in the protected window', async () => {
    const harness = await start()
    const first = await createRoom(harness)
    const second = await createRoom(harness)
    await setMode(harness, first.id, 'full-access')
    await setMode(harness, second.id, 'full-access')
    const copy = copyDatabase(harness)
    await setMode(harness, first.id, 'ask-for-approval')
    await harness.supervisor.stop()
    putBack(harness, copy)
    await harness.supervisor.start()

    const { revision } = await harness.client.getPermissions(first.id)
    expect(
      await putMode(harness, first.id, {
        mode: 'full-access',
        expectedRevision: revision,
        resealsRoom: true,
      }),
    ).toMatchObject({ status: 200, body: { mode: 'full-access', integrity: 'ok' } })
    await harness.restart()
    expect((await readPermissions(harness, first.id)).body).toMatchObject({
      mode: 'full-access',
      integrity: 'ok',
    })
    expect((await readPermissions(harness, second.id)).body).toMatchObject({
      mode: 'ask-for-approval',
      integrity: 'rolled-back',
    })
  })

  it('is caught when the whole database is gone and a new one starts in its place', async () => {
    const harness = await start()
    await setMode(harness, (await createRoom(harness)).id, 'full-access')
    await harness.supervisor.stop()
    // An empty copy: putting it back removes the database files.
    putBack(harness, join(harness.root, 'nothing-here'))
    await harness.supervisor.start()
    expect(
      (await auditEvents(harness))
        .filter((event) => event.type === 'rollback_detected')
        .map((event) => event.payload.reason),
    ).toEqual(['older_than_anchor'])
  })

  it('calls a database from another data folder rolled back and tampered: the key does not match', async () => {
    const harness = await start()
    const other = await start()
    const room = await createRoom(other)
    await setMode(other, room.id, 'full-access')
    await other.supervisor.stop()
    await harness.supervisor.stop()
    putBack(harness, other.dataDir)
    await harness.supervisor.start()
    expect((await readPermissions(harness, room.id)).body).toMatchObject({
      mode: 'ask-for-approval',
      integrity: 'tampered',
    })
    const detected = (await auditEvents(harness)).find(
      (event) => event.type === 'rollback_detected',
    )
    expect(detected?.payload).toMatchObject({ reason: 'counter_tampered', roomIds: [] })
  })
})

describe('rows set back from an older copy into the current database', { timeout: CASE_MS }, () => {
  /** Sets `sql` (over the copy attached as `old`) into the stopped
   *  runtime's database, and starts it again. */
  async function setBack(harness: RuntimeHarness, copy: string, sql: string): Promise<void> {
    await harness.supervisor.stop()
    editDatabase(harness.dataDir, (db) => {
      db.exec(`ATTACH '${join(copy, DATABASE_FILE_NAME)}' AS old`)
      db.exec(sql)
    })
    await harness.supervisor.start()
  }

  it('catches a room row put back to its full-access version, its MAC still valid', async () => {
    const harness = await start()
    const room = await createRoom(harness)
    await setMode(harness, room.id, 'full-access')
    await harness.supervisor.stop()
    const copy = copyDatabase(harness)
    await harness.supervisor.start()
    await setMode(harness, room.id, 'ask-for-approval')
    await setBack(
      harness,
      copy,
      `UPDATE main.rooms SET policy_json = o.policy_json, revision = o.revision, mac = o.mac
         FROM old.rooms o WHERE o.id = rooms.id`,
    )
    expect((await readPermissions(harness, room.id)).body).toMatchObject({
      mode: 'ask-for-approval',
      integrity: 'rolled-back',
    })
    expect(
      (await auditEvents(harness))
        .filter((event) => event.type === 'rollback_detected')
        .map((event) => event.payload.reason),
    ).toEqual(['rows_changed'])
  })

  it('catches a revoked grant put back to its active version, its MAC still valid', async () => {
    const harness = await start()
    const room = await createRoom(harness)
    const view = await pendingApprovalFor(harness, room.id, 'run echo replayed')
    expect((await decide(harness, view, 'allow-always')).status).toBe(200)
    await turnSettled(harness, room.id, view.approval.turnId)
    const [grant] = await roomGrants(harness, room.id)
    await harness.supervisor.stop()
    const copy = copyDatabase(harness)
    await harness.supervisor.start()
    expect(
      (await harness.client.raw('DELETE', `/v1/rooms/${room.id}/grants/${grant!.id}`)).status,
    ).toBe(200)
    await setBack(
      harness,
      copy,
      `UPDATE main.grants SET revoked_at = o.revoked_at, mac = o.mac
         FROM old.grants o WHERE o.id = grants.id`,
    )
    expect(await roomGrants(harness, room.id)).toEqual([])
    const again = await pendingApprovalFor(harness, room.id, 'run echo replayed')
    expect(again.approval.status).toBe('pending')
    expect((await decide(harness, again, 'deny')).status).toBe(200)
  })
})

describe('the anchor as the runtime keeps it', { timeout: CASE_MS }, () => {
  it('advances with each mode change before the answer, and at clean shutdown', async () => {
    const harness = await start()
    expect(await anchorOf(harness)).toBe(0)
    const room = await createRoom(harness)
    expect(await anchorOf(harness)).toBe(0)
    await setMode(harness, room.id, 'approve-for-me')
    expect(await anchorOf(harness)).toBe(1)
    await harness.supervisor.stop()
    expect(await anchorOf(harness)).toBe(2)
    await harness.supervisor.start()
    expect(
      (await auditEvents(harness)).filter((event) => event.type === 'clean_shutdown'),
    ).toMatchObject([{ payload: { rollbackCounter: 2 } }])
  })

  it('refuses widening while the anchor cannot be written, never a narrowing, and widens again once it can', async () => {
    const harness = await start()
    const room = await createRoom(harness)
    await setMode(harness, room.id, 'full-access')
    const { saved, restore } = breakFileAnchor(harness.dataDir)

    const narrowed = await setMode(harness, room.id, 'ask-for-approval')
    expect(narrowed).toMatchObject({ mode: 'ask-for-approval' })
    expect(
      (await auditEvents(harness)).filter((event) => event.type === 'rollback_anchor_lagging'),
    ).toHaveLength(1)
    const widened = await putMode(harness, room.id, {
      mode: 'approve-for-me',
      expectedRevision: narrowed.revision,
    })
    expect(widened).toMatchObject({ status: 503, body: { code: 'rollback_anchor_unavailable' } })
    const view = await pendingApprovalFor(harness, room.id, 'run echo always')
    expect(await decide(harness, view, 'allow-always')).toMatchObject({
      status: 503,
      body: { code: 'rollback_anchor_unavailable' },
    })
    expect((await harness.client.getApproval(view.approval.id)).approval.status).toBe('pending')
    expect((await readPermissions(harness, room.id)).body).toMatchObject({
      mode: 'ask-for-approval',
      revision: narrowed.revision,
    })

    // The keychain is back, holding what it held before the failure.
    restore()
    expect((await decide(harness, view, 'allow-always')).status).toBe(200)
    await turnSettled(harness, room.id, view.approval.turnId)
    expect(await roomGrants(harness, room.id)).toHaveLength(1)
    expect(await roomApprovals(harness, room.id)).toHaveLength(1)
    expect(await anchorOf(harness)).toBeGreaterThan(Number(saved))
  })

  it('initialises on a data folder from before the anchor existed, keeping every room as it was', async () => {
    const harness = await start()
    const room = await createRoom(harness)
    await setMode(harness, room.id, 'full-access')
    await harness.supervisor.stop()
    // What an older Assent left: a head sealed without counter or digest,
    // no rolled-back column, no anchor.
    editDatabase(harness.dataDir, (db) => {
      const head = readAuditHead(db)!
      db.exec('ALTER TABLE audit_head DROP COLUMN rollback_counter')
      db.exec('ALTER TABLE audit_head DROP COLUMN permissions_digest')
      db.prepare('UPDATE audit_head SET mac = ?').run(
        new IntegrityMac(harness.integrityKey).sign('audit-head', {
          seq: head.seq,
          hash: head.hash,
        }),
      )
      db.exec('ALTER TABLE rooms DROP COLUMN rolled_back')
      db.exec('DELETE FROM schema_migrations WHERE version = 9')
    })
    rmSync(join(harness.dataDir, ANCHOR_FILE_NAME))
    await harness.supervisor.start()
    expect((await readPermissions(harness, room.id)).body).toMatchObject({
      mode: 'full-access',
      integrity: 'ok',
    })
    expect(await anchorOf(harness)).toBe(0)
    await harness.supervisor.stop()
    const verified = await auditVerify(harness.dataDir, FILE_STORE)
    expect(verified.code).toBe(0)
    expect(verified.stdout).toContain('not rolled back (counter 1, anchor 1)')
  })

  it('makes `assent audit verify` say it could not check when the anchor cannot be read', async () => {
    const harness = await start()
    await harness.supervisor.stop()
    chmodSync(join(harness.dataDir, ANCHOR_FILE_NAME), 0o644)
    const result = await auditVerify(harness.dataDir, FILE_STORE)
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('could not check')
    expect(result.stderr).toContain('is readable by others')
  })

  it('advances when `npm run runtime` is stopped with Ctrl+C: the runtime waits for main to stop it cleanly', async () => {
    const root = await mkdtemp(join(tmpdir(), 'assent-rollback-sigint-'))
    const dataDir = join(root, 'data')
    // Its own process group, as a terminal's foreground job: Ctrl+C sends
    // SIGINT to every process in it, the runtime child included.
    const child = spawn(process.execPath, [RUN_RUNTIME], {
      env: { ...FILE_STORE, ASSENT_DATA_DIR: dataDir },
      stdio: 'pipe',
      detached: true,
    })
    let stdout = ''
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')))
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve))
    try {
      await eventually(
        () => (stdout.includes('is listening on') ? true : undefined),
        'the runtime to listen',
      )
    } finally {
      process.kill(-child.pid!, 'SIGINT')
    }
    expect(await exited).toBe(0)
    expect(readFileSync(join(dataDir, ANCHOR_FILE_NAME), 'utf8')).toBe('1\n')
    expect(queryDatabase(dataDir, 'SELECT type FROM audit_events')).toEqual([
      { type: 'clean_shutdown' },
    ])
    rmSync(root, { recursive: true, force: true })
  })
})
