import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { DatabaseSync } from 'node:sqlite'
import { afterEach, beforeEach, expect } from 'vitest'
import { FileSecretStore, ANCHOR_FILE_NAME } from '../../src/main/core/file-secret-store.ts'
import { RollbackAnchorKeeper } from '../../src/main/core/rollback-anchor-keeper.ts'
import type { Grant } from '../../src/contracts/room.ts'
import { EventBus, type RuntimeEvent } from '../../src/runtime/events/event-bus.ts'
import { policyForMode } from '../../src/runtime/policy/permission-modes.ts'
import { SqliteAuditLog } from '../../src/runtime/store/audit-log.ts'
import { inTransaction, openDatabase } from '../../src/runtime/store/database.ts'
import { durabilityOf } from '../../src/runtime/store/durability.ts'
import { IntegrityMac } from '../../src/runtime/store/integrity-mac.ts'
import { SqliteRollbackRepository } from '../../src/runtime/store/rollback-repository.ts'
import { readSealedCounter } from '../../src/runtime/store/sealed-head.ts'
import { sqliteStores } from '../../src/runtime/test-support/sqlite-stores.ts'
import { RollbackGuard } from '../../src/runtime/rollback/rollback-guard.ts'

// Real parts throughout: a SQLite file, the counter in its sealed head, and the
// anchor in the file store (main's keeper, called directly: in one process
// there is no IPC channel; tests/rollback-anchor.test.ts goes through it).

export const MAC = new IntegrityMac(Buffer.alloc(32, 9))
/** The running test's folders, fresh for each one. */
export const dirs = { root: '', anchorDir: '' }
const open: DatabaseSync[] = []

/** A fresh folder and anchor folder per test; every rigged database closed after it. */
export function useRollbackRig(): void {
  beforeEach(() => {
    dirs.root = mkdtempSync(join(tmpdir(), 'assent-guard-'))
    dirs.anchorDir = join(dirs.root, 'anchor')
    mkdirSync(dirs.anchorDir)
  })
  afterEach(() => {
    for (const db of open.splice(0)) if (db.isOpen) db.close()
    rmSync(dirs.root, { recursive: true, force: true })
  })
}

export const keeper = () => new RollbackAnchorKeeper(new FileSecretStore(), dirs.anchorDir)

/** Makes the anchor unwritable the way a real failure would: a directory
 *  where the file goes (reads and renames over it fail). */
export function breakAnchor(): void {
  rmSync(join(dirs.anchorDir, ANCHOR_FILE_NAME), { force: true })
  mkdirSync(join(dirs.anchorDir, ANCHOR_FILE_NAME), { mode: 0o700 })
}
export function repairAnchor(): void {
  rmSync(join(dirs.anchorDir, ANCHOR_FILE_NAME), { recursive: true, force: true })
}

interface RigOptions {
  durable?: () => Promise<void>
}

export function rig(dataDir: string, options: RigOptions = {}) {
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
export type Rig = ReturnType<typeof rig>

let rooms = 0
export function newRoom(
  r: Rig,
  mode: 'ask-for-approval' | 'full-access' = 'ask-for-approval',
): string {
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
export function newGrant(r: Rig, roomId: string): string {
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
export function setMode(r: Rig, roomId: string, mode: 'ask-for-approval' | 'full-access'): void {
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
