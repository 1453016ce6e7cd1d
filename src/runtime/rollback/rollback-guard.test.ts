import { copyFileSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { describe, expect, it } from 'vitest'
import { policyForMode } from '../policy/permission-modes.ts'
import { DATABASE_FILE_NAME } from '../store/database.ts'
import {
  dirs,
  keeper,
  breakAnchor,
  rig,
  newRoom,
  newGrant,
  setMode,
  useRollbackRig,
} from '../../../tests/support/rollback-rig.ts'

// Real parts throughout: a SQLite file, the counter in its sealed head, and the
// anchor in the file store (tests/support/rollback-rig.ts).
useRollbackRig()

describe('the rollback guard at start', () => {
  it('stores the anchor at 0 on a new or upgraded data dir before anything counts', async () => {
    const r = rig(join(dirs.root, 'data'))
    await expect(r.guard.start(null)).resolves.toEqual({ verdict: { kind: 'initialise' } })
    expect(await keeper().read()).toBe(0)
    expect(r.counter()).toBe('absent')
    expect(r.auditTypes()).toEqual([])
  })

  it('does not start when the anchor cannot be stored on a new data dir', async () => {
    breakAnchor()
    const r = rig(join(dirs.root, 'data'))
    await expect(r.guard.start(null)).rejects.toThrow()
  })

  it('finds a data dir that never counted a change current, its anchor at 0', async () => {
    const dataDir = join(dirs.root, 'data')
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
    const dataDir = join(dirs.root, 'data')
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
    const dataDir = join(dirs.root, 'data')
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
    const dataDir = join(dirs.root, 'data')
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
    const dataDir = join(dirs.root, 'data')
    const r = rig(dataDir)
    await r.guard.start(null)
    const roomId = newRoom(r)
    r.db.prepare('UPDATE rooms SET policy_json = ? WHERE id = ?').run('{"edited":1}', roomId)
    const result = await rig(dataDir).guard.start(50)
    expect(result).toMatchObject({ record: { roomIds: [] } })
    expect(rig(dataDir).stores.rooms.get(roomId)).toMatchObject({ integrity: 'tampered' })
  })

  it('calls a counter edited without the key rolled back, whatever value it claims', async () => {
    const dataDir = join(dirs.root, 'data')
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
    const live = join(dirs.root, 'live')
    const r = rig(live)
    await r.guard.start(null)
    const roomId = newRoom(r, 'full-access')
    const copy = join(dirs.root, 'copy.sqlite')
    r.db.exec(`VACUUM INTO '${copy}'`)
    setMode(r, roomId, 'ask-for-approval')
    await r.guard.settled()
    const anchor = (await keeper().read()) ?? null
    const restoredDir = join(dirs.root, 'restored')
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
