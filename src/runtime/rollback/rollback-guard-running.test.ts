import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { Refusal } from '../domain/refusal.ts'
import { policyForMode } from '../policy/permission-modes.ts'
import { inTransaction } from '../store/database.ts'
import {
  dirs,
  keeper,
  breakAnchor,
  repairAnchor,
  rig,
  newRoom,
  newGrant,
  setMode,
  useRollbackRig,
} from '../../../tests/support/rollback-rig.ts'

// Real parts throughout: a SQLite file, the counter in its sealed head, and the
// anchor in the file store (tests/support/rollback-rig.ts).
useRollbackRig()

describe('the rollback guard while running', () => {
  it('advances the anchor only after the change is on disk', async () => {
    let release: () => void = () => undefined
    const onDisk = new Promise<void>((resolve) => (release = resolve))
    let durableCalls = 0
    const r = rig(join(dirs.root, 'data'), {
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
    const r = rig(join(dirs.root, 'data'))
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
    const r = rig(join(dirs.root, 'data'))
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
    const r = rig(join(dirs.root, 'data'))
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
    const r = rig(join(dirs.root, 'data'))
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
    const r = rig(join(dirs.root, 'data'))
    await r.guard.start(null)
    breakAnchor()
    newRoom(r, 'full-access')
    await r.guard.settled()
    expect(r.auditTypes().filter((type) => type === 'rollback_anchor_lagging')).toHaveLength(1)
  })

  it('does not anchor a change that is not on disk, and says why', async () => {
    let diskFails = false
    const r = rig(join(dirs.root, 'data'), {
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
    const r = rig(join(dirs.root, 'data'), { durable: async () => undefined })
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
    const r = rig(join(dirs.root, 'data'))
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
    const r = rig(join(dirs.root, 'data'))
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
