import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { DatabaseSync } from 'node:sqlite'
import type { WorkspaceIdentity } from '../../contracts/room.ts'
import type { IntegrityProblem } from '../ports/audit-trail.ts'
import { policyForMode } from '../policy/permission-modes.ts'
import type { RoomRow } from '../ports/room-store.ts'
import { SqliteAuditLog } from './audit-log.ts'
import { IntegrityMac } from './integrity-mac.ts'
import { permissionsDigest } from './permission-digest.ts'
import { openTempDatabase, sqliteStores, type SqliteStores } from '../test-support/sqlite-stores.ts'

const MAC = new IntegrityMac(Buffer.alloc(32, 3))
const IDENTITY: WorkspaceIdentity = { realPath: '/home/ada/project', dev: '2049', ino: '131073' }

let db: DatabaseSync
let close: () => void
let stores: SqliteStores
let problems: IntegrityProblem[]

beforeEach(() => {
  ;({ db, close } = openTempDatabase('assent-room-seal-'))
  problems = []
  stores = sqliteStores(db, {
    mac: MAC,
    audit: new SqliteAuditLog(db, { mac: MAC }),
    onTampered: (problem) => problems.push(problem),
  })
})

afterEach(() => close())

function room(id: string, identity?: WorkspaceIdentity): RoomRow {
  return {
    id,
    kind: 'direct',
    agentId: 'assistant',
    workspace: '/home/ada/project',
    ...(identity === undefined ? {} : { workspaceIdentity: identity }),
    title: 'Room',
    policy: policyForMode('ask-for-approval'),
    revision: 0,
    createdAt: 1,
  }
}

describe("a room's sealed workspace identity", () => {
  it('reads back as it was pinned, and its creation record names it', () => {
    stores.rooms.create(room('r1', IDENTITY))
    expect(stores.rooms.get('r1')).toMatchObject({ integrity: 'ok', workspaceIdentity: IDENTITY })
    expect(stores.rooms.sealedCreation('r1')).toMatchObject({ workspaceIdentity: IDENTITY })
  })

  it.each([
    ['another inode', 'UPDATE rooms SET workspace_ino = ? WHERE id = ?', ['999']],
    [
      'no identity at all',
      'UPDATE rooms SET workspace_dev = NULL, workspace_ino = NULL WHERE id = ?',
      [],
    ],
  ])(
    'breaks the seal when edited on disk to %s, and reads with no identity',
    (_name, sql, args) => {
      stores.rooms.create(room('r1', IDENTITY))
      db.prepare(sql).run(...args, 'r1')
      const read = stores.rooms.get('r1')
      expect(read?.integrity).toBe('tampered')
      expect(read?.workspaceIdentity).toBeUndefined()
      expect(problems).toMatchObject([{ rowId: 'r1', problem: 'mac_mismatch' }])
    },
  )

  it('pins a room made without one, once, and only to its own workspace path', () => {
    stores.rooms.create(room('r1'))
    expect(stores.rooms.get('r1')).toMatchObject({ integrity: 'ok' })
    expect(stores.rooms.get('r1')?.workspaceIdentity).toBeUndefined()
    expect(stores.rooms.pinWorkspace('r1', { ...IDENTITY, realPath: '/elsewhere' }, 2)).toBe(false)
    expect(stores.rooms.pinWorkspace('r1', IDENTITY, 2)).toBe(true)
    expect(stores.rooms.get('r1')).toMatchObject({ integrity: 'ok', workspaceIdentity: IDENTITY })
    expect(stores.rooms.pinWorkspace('r1', { ...IDENTITY, ino: '7' }, 3)).toBe(false)
    expect(stores.rooms.get('r1')?.workspaceIdentity).toEqual(IDENTITY)
    expect(problems).toEqual([])
  })

  it('never pins a row edited on disk', () => {
    stores.rooms.create(room('r1'))
    db.prepare("UPDATE rooms SET policy_json = '{}' WHERE id = ?").run('r1')
    expect(stores.rooms.pinWorkspace('r1', IDENTITY, 2)).toBe(false)
    expect(db.prepare('SELECT workspace_dev FROM rooms WHERE id = ?').get('r1')).toEqual({
      workspace_dev: null,
    })
  })

  it('keeps the rollback digest as it was, so a database from before identities still matches its sealed head', () => {
    stores.rooms.create(room('r1'))
    const before = permissionsDigest(db)
    expect(stores.rooms.pinWorkspace('r1', IDENTITY, 2)).toBe(true)
    expect(permissionsDigest(db)).toBe(before)
  })
})
