import fc from 'fast-check'
import { copyFileSync, mkdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { describe, expect, it } from 'vitest'
import { ANCHOR_FILE_NAME } from '../../main/core/file-secret-store.ts'
import { DATABASE_FILE_NAME } from '../store/database.ts'
import {
  dirs,
  keeper,
  rig,
  newRoom,
  newGrant,
  setMode,
  useRollbackRig,
} from '../../../tests/support/rollback-rig.ts'

// Real parts throughout: a SQLite file, the counter in its sealed head, and the
// anchor in the file store (tests/support/rollback-rig.ts).
useRollbackRig()

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
  rmSync(join(dirs.anchorDir, ANCHOR_FILE_NAME), { recursive: true, force: true })
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
        const base = join(dirs.root, `whole-${run}`)
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
        const base = join(dirs.root, `rows-${run}`)
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
