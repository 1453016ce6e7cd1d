import fc from 'fast-check'
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { FileSecretStore, ANCHOR_FILE_NAME } from '../../main/core/file-secret-store.ts'
import { RollbackAnchorKeeper } from '../../main/core/rollback-anchor-keeper.ts'
import type { Grant } from '../../contracts/room.ts'
import { Refusal } from '../domain/refusal.ts'
import { EventBus, type RuntimeEvent } from '../events/event-bus.ts'
import { policyForMode } from '../policy/permission-modes.ts'
import { SqliteAuditLog } from '../store/audit-log.ts'
import { DATABASE_FILE_NAME, inTransaction, openDatabase } from '../store/database.ts'
import { durabilityOf } from '../store/durability.ts'
import { IntegrityMac } from '../store/integrity-mac.ts'
import { SqliteRollbackRepository } from '../store/rollback-repository.ts'
import { readSealedCounter } from '../store/sealed-head.ts'
import { sqliteStores } from '../test-support/sqlite-stores.ts'
import { RollbackGuard } from './rollback-guard.ts'

// Real parts throughout: a SQLite file, the counter in its sealed head, and the
// anchor in the file store (main's keeper, called directly: in one process
// there is no IPC channel; tests/rollback-anchor.test.ts goes through it).

const MAC = new IntegrityMac(Buffer.alloc(32, 9))
let root: string
let anchorDir: string
const open: DatabaseSync[] = []

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'assent-guard-'))
  anchorDir = join(root, 'anchor')
  mkdirSync(anchorDir)
})
afterEach(() => {
  for (const db of open.splice(0)) if (db.isOpen) db.close()
  rmSync(root, { recursive: true, force: true })
})

const keeper = () => new RollbackAnchorKeeper(new FileSecretStore(), anchorDir)

/** Makes the anchor unwritable the way a real failure would: a directory
 *  where the file goes (reads and renames over it fail). */
function breakAnchor(): void {
  rmSync(join(anchorDir, ANCHOR_FILE_NAME), { force: true })
  mkdirSync(join(anchorDir, ANCHOR_FILE_NAME), { mode: 0o700 })
}
function repairAnchor(): void {
  rmSync(join(anchorDir, ANCHOR_FILE_NAME), { recursive: true, force: true })
}

interface RigOptions {
  durable?: () => Promise<void>
}

function rig(dataDir: string, options: RigOptions = {}) {
  const db = openDatabase(dataDir)
  open.push(db)
  const audit = new SqliteAuditLog(db, { mac: MAC })
  const stores = sqliteStores(db, { mac: MAC, audit, onTampered: () => undefined })
  const events = new EventBus()
  const seen: RuntimeEvent[] = []
  events.subscribe((event) => seen.push(event))
  const errors: unknown[] = []
  const anchor = keeper()
  /** Every counter the guard asked main to anchor, in order. */
  const advances: number[] = []
  const guard = new RollbackGuard({
    store: new SqliteRollbackRepository(db, {
      mac: MAC,
      audit,
      rooms: stores.rooms,
      grants: stores.grants,
      webhooks: stores.webhooks,
    }),
    anchor: {
      advance: async (counter) => {
        advances.push(counter)
        await anchor.advance(counter)
      },
    },
    durable: options.durable ?? (() => durabilityOf(db).durable()),
    events,
    now: () => 1_000,
    onError: (error) => errors.push(error),
  })
  const auditTypes = () => audit.list().map((event) => event.type)
  const counter = () => {
    const state = readSealedCounter(db, MAC)
    return state.state === 'sealed' ? state.counter : state.state
  }
  const errorTexts = () => errors.map((error) => (error as Error).message)
  return {
    db,
    audit,
    stores,
    events,
    seen,
    errors,
    errorTexts,
    advances,
    guard,
    auditTypes,
    counter,
  }
}
type Rig = ReturnType<typeof rig>

let rooms = 0
function newRoom(r: Rig, mode: 'ask-for-approval' | 'full-access' = 'ask-for-approval'): string {
  rooms += 1
  const id = `room-${rooms}`
  r.stores.rooms.create({
    id,
    kind: 'direct',
    agentId: 'assistant',
    workspace: '/ws',
    title: id,
    policy: policyForMode('ask-for-approval'),
    revision: 0,
    createdAt: rooms,
  })
  if (mode !== 'ask-for-approval') setMode(r, id, mode)
  return id
}

let grants = 0
function newGrant(r: Rig, roomId: string): string {
  grants += 1
  const grant: Grant = {
    id: `grant-${grants}`,
    roomId,
    toolName: 'write_file',
    scope: 'tool',
    command: null,
    approvalId: `approval-${grants}`,
    createdAt: grants,
  }
  // As the store writes one with the decision it stands for.
  inTransaction(r.db, () => {
    r.stores.grants.insert(grant)
    r.audit.append(
      { type: 'grant_created', subjectId: grant.id, payload: grant, at: grant.createdAt },
      { count: 'next' },
    )
  })
  return grant.id
}

/** A confirmed mode change, as the room service asks the store for one. */
function setMode(r: Rig, roomId: string, mode: 'ask-for-approval' | 'full-access'): void {
  const room = r.stores.rooms.get(roomId)
  if (!room) throw new Error('no room')
  const changed = r.stores.rooms.changePolicy(
    {
      roomId,
      clientRequestId: `change-${room.revision}`,
      bodyDigest: 'digest',
      policy: policyForMode(mode),
      expectedRevision: room.revision,
      fromMode: 'ask-for-approval',
      toMode: mode,
      at: 1,
    },
    () => ({
      roomId,
      revision: room.revision + 1,
      policy: policyForMode(mode),
      mode,
      fullAccessUnavailable: null,
      integrity: 'ok',
    }),
  )
  expect(changed).toBeDefined()
}

describe('the rollback guard at start', () => {
  it('stores the anchor at 0 on a new or upgraded data dir before anything counts', async () => {
    const r = rig(join(root, 'data'))
    await expect(r.guard.start(null)).resolves.toEqual({ verdict: { kind: 'initialise' } })
    expect(await keeper().read()).toBe(0)
    expect(r.counter()).toBe('absent')
    expect(r.auditTypes()).toEqual([])
  })

  it('does not start when the anchor cannot be stored on a new data dir', async () => {
    breakAnchor()
    const r = rig(join(root, 'data'))
    await expect(r.guard.start(null)).rejects.toThrow()
  })

  it('finds a data dir that never counted a change current, its anchor at 0', async () => {
    const dataDir = join(root, 'data')
    const first = rig(dataDir)
    await first.guard.start(null)
    expect(first.counter()).toBe('absent')
    first.db.close()
    const second = rig(dataDir)
    await expect(second.guard.start(0)).resolves.toEqual({
      verdict: { kind: 'current', counter: 0, anchor: 0 },
    })
    expect(second.auditTypes()).toEqual([])
    // Nothing to catch up: main is not asked, and nothing went wrong.
    expect(second.advances).toEqual([])
    expect(second.errors).toEqual([])
  })

  it('catches the anchor up to a database that got ahead of it (a crash before the write)', async () => {
    const dataDir = join(root, 'data')
    const first = rig(dataDir)
    await first.guard.start(null)
    const roomId = newRoom(first)
    setMode(first, roomId, 'full-access')
    // Stopped dead before the anchor write: it still holds 0.
    first.db.close()
    expect(await keeper().read()).toBe(0)
    const second = rig(dataDir)
    await expect(second.guard.start(0)).resolves.toEqual({
      verdict: { kind: 'current', counter: 1, anchor: 0 },
    })
    expect(await keeper().read()).toBe(1)
    expect(second.stores.rooms.get(roomId)).toMatchObject({ integrity: 'ok' })
  })

  it('records a database older than its anchor: rooms rolled back and narrowest, grants revoked, one event', async () => {
    const dataDir = join(root, 'data')
    const r = rig(dataDir)
    await r.guard.start(null)
    const wide = newRoom(r, 'full-access')
    const plain = newRoom(r)
    const grantId = newGrant(r, plain)
    // A group room has no mode to confirm: it is left unmarked.
    r.stores.rooms.create({
      id: 'group-1',
      kind: 'group',
      agentId: 'assistant',
      workspace: '/ws',
      title: 'group',
      policy: policyForMode('ask-for-approval'),
      revision: 0,
      createdAt: 0,
    })
    await r.guard.settled()
    const counted = r.counter() as number
    const restarted = rig(dataDir)
    const result = await restarted.guard.start(counted + 3)
    expect(restarted.seen).toEqual([
      expect.objectContaining({
        type: 'runtime.integrity',
        data: { table: 'database', rowId: 'rolled_back', roomId: null, problem: 'rolled_back' },
      }),
    ])
    expect(result).toMatchObject({
      verdict: { kind: 'rolled-back', reason: 'older_than_anchor', next: counted + 4 },
      record: { roomIds: [wide, plain], revokedGrantIds: [grantId] },
    })
    const after = rig(dataDir)
    expect(after.stores.rooms.get(wide)).toMatchObject({
      integrity: 'rolled-back',
      policy: policyForMode('ask-for-approval'),
    })
    expect(after.stores.grants.listActive(plain)).toEqual([])
    expect(after.stores.rooms.get('group-1')).toMatchObject({ integrity: 'ok' })
    expect(after.counter()).toBe(counted + 4)
    expect(await keeper().read()).toBe(counted + 4)
    const detected = after.audit.list().filter((event) => event.type === 'rollback_detected')
    expect(detected.map((event) => event.payload)).toEqual([
      {
        reason: 'older_than_anchor',
        databaseCounter: counted,
        anchor: counted + 3,
        counter: counted + 4,
        roomIds: [wide, plain],
        revokedGrantIds: [grantId],
        webhookRoomIds: [],
      },
    ])
    // Started again on the same database: current, and still rolled back
    // until someone confirms a mode; confirming clears it for that room only.
    const again = rig(dataDir)
    await expect(again.guard.start(counted + 4)).resolves.toMatchObject({
      verdict: { kind: 'current' },
    })
    setMode(again, wide, 'ask-for-approval')
    expect(again.stores.rooms.get(wide)).toMatchObject({ integrity: 'ok' })
    expect(again.stores.rooms.get(plain)).toMatchObject({ integrity: 'rolled-back' })
  })

  it('counts setting and removing a webhook, and keeps no webhook read from a copy put back', async () => {
    const dataDir = join(root, 'data')
    const r = rig(dataDir)
    await r.guard.start(null)
    const roomId = newRoom(r)
    await r.guard.settled()
    const webhook = (id: string) => ({
      roomId,
      webhookId: id,
      url: 'https://approver.example/decide',
      secret: 's'.repeat(43),
      clientRequestId: `c-${id}`,
      createdAt: 10,
    })
    const before = r.counter() as number
    r.stores.webhooks.set(webhook('w-1'))
    expect(r.stores.webhooks.remove(roomId, 'c-remove', 11)).toBe(true)
    r.stores.webhooks.set(webhook('w-2'))
    await r.guard.settled()
    expect(r.counter()).toBe(before + 3)
    expect(await keeper().read()).toBe(before + 3)
    // This database is the copy; its anchor says a later change happened.
    const restarted = rig(dataDir)
    await restarted.guard.start(before + 5)
    const after = rig(dataDir)
    expect(after.stores.webhooks.get(roomId)).toBeUndefined()
    expect(after.db.prepare('SELECT COUNT(*) AS n FROM approver_webhooks').get()).toEqual({ n: 0 })
    const detected = after.audit.list().filter((event) => event.type === 'rollback_detected')
    expect(detected.map((event) => event.payload.webhookRoomIds)).toEqual([[roomId]])
  })

  it('never reseals a room whose own seal fails: it stays tampered', async () => {
    const dataDir = join(root, 'data')
    const r = rig(dataDir)
    await r.guard.start(null)
    const roomId = newRoom(r)
    r.db.prepare('UPDATE rooms SET policy_json = ? WHERE id = ?').run('{"edited":1}', roomId)
    const result = await rig(dataDir).guard.start(50)
    expect(result).toMatchObject({ record: { roomIds: [] } })
    expect(rig(dataDir).stores.rooms.get(roomId)).toMatchObject({ integrity: 'tampered' })
  })

  it('calls a counter edited without the key rolled back, whatever value it claims', async () => {
    const dataDir = join(root, 'data')
    const r = rig(dataDir)
    await r.guard.start(null)
    newRoom(r, 'full-access')
    await r.guard.settled()
    r.db.prepare('UPDATE audit_head SET rollback_counter = 1000').run()
    await expect(rig(dataDir).guard.start(1)).resolves.toMatchObject({
      verdict: { kind: 'rolled-back', reason: 'counter_tampered', next: 2 },
    })
  })
  it('does not let the newer sealed head, set into an older copy, vouch for it', async () => {
    const live = join(root, 'live')
    const r = rig(live)
    await r.guard.start(null)
    const roomId = newRoom(r, 'full-access')
    const copy = join(root, 'copy.sqlite')
    r.db.exec(`VACUUM INTO '${copy}'`)
    setMode(r, roomId, 'ask-for-approval')
    await r.guard.settled()
    const anchor = (await keeper().read()) ?? null
    const restoredDir = join(root, 'restored')
    mkdirSync(restoredDir)
    copyFileSync(copy, join(restoredDir, DATABASE_FILE_NAME))
    const old = new DatabaseSync(join(restoredDir, DATABASE_FILE_NAME))
    old.exec(`ATTACH '${join(live, DATABASE_FILE_NAME)}' AS newer`)
    old.exec('DELETE FROM main.audit_head')
    old.exec('INSERT INTO main.audit_head SELECT * FROM newer.audit_head')
    old.close()
    const restored = rig(restoredDir)
    await expect(restored.guard.start(anchor)).resolves.toMatchObject({
      verdict: { kind: 'rolled-back', reason: 'counter_tampered' },
    })
    expect(restored.stores.rooms.get(roomId)).toMatchObject({ integrity: 'rolled-back' })
  })
})

describe('the rollback guard while running', () => {
  it('advances the anchor only after the change is on disk', async () => {
    let release: () => void = () => undefined
    const onDisk = new Promise<void>((resolve) => (release = resolve))
    let durableCalls = 0
    const r = rig(join(root, 'data'), {
      durable: () => {
        durableCalls += 1
        return onDisk
      },
    })
    await r.guard.start(null)
    newRoom(r, 'full-access')
    const settled = r.guard.settled()
    // Wait until the sync is waiting for the disk, then look at the anchor.
    while (durableCalls === 0) await new Promise((resolve) => setImmediate(resolve))
    expect(await keeper().read()).toBe(0)
    release()
    await settled
    expect(await keeper().read()).toBe(1)
  })

  it('does not move the anchor for a change that rolled back', async () => {
    const r = rig(join(root, 'data'))
    await r.guard.start(null)
    const roomId = newRoom(r)
    expect(() =>
      r.stores.rooms.changePolicy(
        {
          roomId,
          clientRequestId: 'c-1',
          bodyDigest: 'd',
          policy: policyForMode('full-access'),
          expectedRevision: 0,
          fromMode: 'ask-for-approval',
          toMode: 'full-access',
          at: 1,
        },
        () => {
          throw new Error('refused after the update')
        },
      ),
    ).toThrow('refused after the update')
    await r.guard.settled()
    // Creating the room sealed a head, which counted nothing.
    expect(r.counter()).toBe(0)
    expect(await keeper().read()).toBe(0)
    // A counted append whose transaction then fails: the counter is back
    // where it was, and the sync it started finds nothing to anchor.
    expect(() =>
      inTransaction(r.db, () => {
        r.audit.append(
          { type: 'grant_revoked', subjectId: 'grant-x', payload: { roomId }, at: 2 },
          { count: 'next' },
        )
        throw new Error('rolled back after counting')
      }),
    ).toThrow('rolled back after counting')
    await r.guard.settled()
    expect(r.counter()).toBe(0)
    // Main was asked once, at start: never again for a counter it holds.
    expect(r.advances).toEqual([0])
  })

  it('advances with every mode change, grant and revocation, one counter each', async () => {
    const r = rig(join(root, 'data'))
    await r.guard.start(null)
    const roomId = newRoom(r)
    setMode(r, roomId, 'full-access')
    const grantId = newGrant(r, roomId)
    expect(r.stores.grants.revoke(roomId, grantId, 5)).toBe(true)
    await r.guard.settled()
    expect(r.counter()).toBe(3)
    expect(await keeper().read()).toBe(3)
  })

  it('reports a failed anchor write once, refuses widening until it catches up, and never refuses a narrowing', async () => {
    const r = rig(join(root, 'data'))
    await r.guard.start(null)
    const roomId = newRoom(r, 'full-access')
    await r.guard.settled()
    breakAnchor()
    setMode(r, roomId, 'ask-for-approval')
    await r.guard.settled()
    setMode(r, roomId, 'ask-for-approval')
    await r.guard.settled()
    expect(r.auditTypes().filter((type) => type === 'rollback_anchor_lagging')).toHaveLength(1)
    expect(r.seen.filter((event) => event.type === 'runtime.integrity')).toEqual([
      expect.objectContaining({
        data: {
          table: 'database',
          rowId: 'anchor_lagging',
          roomId: null,
          problem: 'anchor_lagging',
        },
      }),
    ])
    expect(r.errorTexts().length).toBeGreaterThanOrEqual(2)
    for (const text of r.errorTexts()) {
      expect(text).toMatch(/^the rollback anchor was not advanced to \d+: /)
    }
    const refused = await r.guard.beforeWidening().then(
      () => undefined,
      (error: unknown) => error,
    )
    expect(refused).toBeInstanceOf(Refusal)
    expect((refused as Refusal).code).toBe('rollback_anchor_unavailable')
    repairAnchor()
    await expect(r.guard.beforeWidening()).resolves.toBeUndefined()
    expect(await keeper().read()).toBe(r.counter())
  })

  it('refuses widening while the sealed head does not verify, until a change seals it afresh', async () => {
    const r = rig(join(root, 'data'))
    await r.guard.start(null)
    const roomId = newRoom(r, 'full-access')
    await r.guard.settled()
    r.db.prepare('UPDATE audit_head SET mac = ?').run('x'.repeat(43))
    await expect(r.guard.beforeWidening()).rejects.toThrow('rollback anchor could not be advanced')
    expect(r.errorTexts()).toContain(
      'the rollback counter does not verify; the anchor stays where it is',
    )
    setMode(r, roomId, 'ask-for-approval')
    await expect(r.guard.beforeWidening()).resolves.toBeUndefined()
  })

  it('reports the first failed anchor write of an instance, before any write succeeded', async () => {
    const r = rig(join(root, 'data'))
    await r.guard.start(null)
    breakAnchor()
    newRoom(r, 'full-access')
    await r.guard.settled()
    expect(r.auditTypes().filter((type) => type === 'rollback_anchor_lagging')).toHaveLength(1)
  })

  it('does not anchor a change that is not on disk, and says why', async () => {
    let diskFails = false
    const r = rig(join(root, 'data'), {
      durable: async () => {
        if (diskFails) throw new Error('the disk is gone')
      },
    })
    await r.guard.start(null)
    diskFails = true
    newRoom(r, 'full-access')
    await r.guard.settled()
    expect(r.errorTexts()).toEqual(['the disk is gone'])
    expect(r.advances).toEqual([0])
    expect(await keeper().read()).toBe(0)
    // Not a lag: nothing was committed to anchor as far as it can tell.
    expect(r.auditTypes()).not.toContain('rollback_anchor_lagging')
  })

  it('says so in the log when a lag cannot be recorded, and records the next one', async () => {
    const r = rig(join(root, 'data'), { durable: async () => undefined })
    await r.guard.start(null)
    const roomId = newRoom(r)
    await r.guard.settled()
    breakAnchor()
    setMode(r, roomId, 'full-access')
    // Committed; from here on the connection refuses every write.
    r.db.exec('PRAGMA query_only = ON')
    await r.guard.settled()
    expect(r.errorTexts()).toEqual([
      expect.stringMatching(/^the rollback anchor was not advanced to 1: /),
      expect.stringMatching(/readonly|query_only/i),
    ])
    r.db.exec('PRAGMA query_only = OFF')
    setMode(r, roomId, 'ask-for-approval')
    await r.guard.settled()
    expect(r.auditTypes().filter((type) => type === 'rollback_anchor_lagging')).toHaveLength(1)
  })

  it('anchors nothing after its clean shutdown', async () => {
    const r = rig(join(root, 'data'))
    await r.guard.start(null)
    const roomId = newRoom(r)
    await r.guard.shutdown('instance-1')
    // A change after the shutdown (none happens: the database closes next).
    setMode(r, roomId, 'full-access')
    await r.guard.settled()
    expect(r.counter()).toBe(2)
    expect(await keeper().read()).toBe(1)
    expect(r.advances).toEqual([0, 1])
  })

  it('advances the counter and the anchor at clean shutdown, with its event', async () => {
    const r = rig(join(root, 'data'))
    await r.guard.start(null)
    await r.guard.shutdown('instance-1')
    expect(r.counter()).toBe(1)
    expect(await keeper().read()).toBe(1)
    expect(
      r.audit.list().map(({ type, subjectId, payload }) => ({ type, subjectId, payload })),
    ).toEqual([
      { type: 'clean_shutdown', subjectId: 'instance-1', payload: { rollbackCounter: 1 } },
    ])
  })
})

type Step = 'mode' | 'grant' | 'revoke'

interface History {
  /** The live data dir after the steps. */
  live: string
  /** A copy of the database taken after `copiedAfter` steps. */
  copy: string
  roomId: string
  /** Steps that changed rooms or grants after the copy. */
  changedSince: number
  anchor: number | null
}

/** Creates a room, runs the steps, copying the database on the way, and
 *  stops (cleanly or not). */
async function runHistory(
  base: string,
  steps: Step[],
  copiedAfter: number,
  cleanShutdown: boolean,
): Promise<History> {
  rmSync(join(anchorDir, ANCHOR_FILE_NAME), { recursive: true, force: true })
  const live = join(base, 'live')
  const r = rig(live)
  await r.guard.start(null)
  const roomId = newRoom(r, 'full-access')
  const copy = join(base, 'copy.sqlite')
  const active: string[] = []
  for (const [index, step] of [...steps, null].entries()) {
    if (index === copiedAfter) r.db.exec(`VACUUM INTO '${copy}'`)
    if (step === 'mode') {
      const wide = r.stores.rooms.get(roomId)?.policy.approvalPolicy === 'auto'
      setMode(r, roomId, wide ? 'ask-for-approval' : 'full-access')
    } else if (step === 'grant') {
      active.push(newGrant(r, roomId))
    } else if (step === 'revoke') {
      const grantId = active.pop() ?? newGrant(r, roomId)
      expect(r.stores.grants.revoke(roomId, grantId, 1)).toBe(true)
    }
  }
  if (cleanShutdown) await r.guard.shutdown('instance')
  await r.guard.settled()
  r.db.close()
  const anchor = (await keeper().read()) ?? null
  return { live, copy, roomId, changedSince: steps.length - copiedAfter, anchor }
}

/** Steps, where the copy is taken (one run in four right at the end, so
 *  copies nothing changed since are common too), and a clean shutdown. */
const historyArbs = [
  fc.array(fc.constantFrom<Step>('mode', 'grant', 'revoke'), { minLength: 0, maxLength: 6 }),
  fc.nat(),
  fc.nat({ max: 3 }).map((draw) => draw === 0),
  fc.boolean(),
] as const

describe('any older state of the database put back', () => {
  it('as a whole copy, is caught exactly when a permission change or a clean shutdown came after it', async () => {
    const seen = { caught: 0, current: 0 }
    let run = 0
    await fc.assert(
      fc.asyncProperty(...historyArbs, async (steps, at, copyLatest, cleanShutdown) => {
        run += 1
        const base = join(root, `whole-${run}`)
        const copiedAfter = copyLatest ? steps.length : at % (steps.length + 1)
        const history = await runHistory(base, steps, copiedAfter, cleanShutdown)
        // Put the copy back in a data dir of its own, and start on it.
        const restoredDir = join(base, 'restored')
        mkdirSync(restoredDir)
        copyFileSync(history.copy, join(restoredDir, DATABASE_FILE_NAME))
        const restored = rig(restoredDir)
        const { verdict } = await restored.guard.start(history.anchor)
        if (history.changedSince > 0 || cleanShutdown) {
          seen.caught += 1
          expect(verdict.kind).toBe('rolled-back')
          expect(restored.stores.rooms.get(history.roomId)).toMatchObject({
            integrity: 'rolled-back',
          })
          expect(restored.stores.grants.listActive(history.roomId)).toEqual([])
        } else {
          seen.current += 1
          expect(verdict.kind).toBe('current')
        }
      }),
      { numRuns: 40 },
    )
    // Both outcomes were reached: the property cannot pass on one alone.
    expect(seen.caught).toBeGreaterThan(5)
    expect(seen.current).toBeGreaterThan(0)
  })

  it('as rooms and grants set back into the newer database (each row sealed), is caught exactly when they changed since', async () => {
    const seen = { caught: 0, current: 0 }
    let run = 0
    await fc.assert(
      fc.asyncProperty(...historyArbs, async (steps, at, copyLatest, cleanShutdown) => {
        run += 1
        const base = join(root, `rows-${run}`)
        const copiedAfter = copyLatest ? steps.length : at % (steps.length + 1)
        const history = await runHistory(base, steps, copiedAfter, cleanShutdown)
        // The newer log, head and counter stay; the rows go back, each
        // with the MAC the key gave it then.
        const db = new DatabaseSync(join(history.live, DATABASE_FILE_NAME))
        try {
          db.exec(`ATTACH '${history.copy}' AS old`)
          db.exec(`UPDATE main.rooms SET policy_json = o.policy_json, revision = o.revision,
                     mac = o.mac, rolled_back = o.rolled_back FROM old.rooms o WHERE o.id = rooms.id`)
          db.exec('DELETE FROM main.grants WHERE id NOT IN (SELECT id FROM old.grants)')
          db.exec(`UPDATE main.grants SET revoked_at = o.revoked_at, mac = o.mac
                     FROM old.grants o WHERE o.id = grants.id`)
        } finally {
          db.close()
        }
        const restarted = rig(history.live)
        const { verdict } = await restarted.guard.start(history.anchor)
        if (history.changedSince > 0) {
          seen.caught += 1
          expect(verdict).toMatchObject({ kind: 'rolled-back', reason: 'rows_changed' })
          expect(restarted.stores.rooms.get(history.roomId)).toMatchObject({
            integrity: 'rolled-back',
          })
          expect(restarted.stores.grants.listActive(history.roomId)).toEqual([])
        } else {
          seen.current += 1
          expect(verdict.kind).toBe('current')
        }
      }),
      { numRuns: 40 },
    )
    expect(seen.caught).toBeGreaterThan(5)
    expect(seen.current).toBeGreaterThan(0)
  })
})
