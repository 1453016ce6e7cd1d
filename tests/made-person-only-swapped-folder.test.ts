import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { personOnlyAtStart, settleMadePersonOnly } from '../src/runtime/policy/made-person-only.ts'
import { startFolderSwapper } from './support/link-flipper.ts'

// The made-files watch walks a call's roots while the call still runs
// (policy/made-person-only.ts), and what it finds it renames. A call that
// swaps a folder on the way for a link to another repository, between the
// walk and the rename, must not make the watch rename that repository's
// `.git` or its `HEAD`: the rename acts in the folder the walk went
// through, held open, or not at all. Real folders, a real second process
// swapping them.

/** How many walks race the swapper: each one finds the `.git` it remade
 *  and moves it, so every walk is a chance for the swap to land between
 *  finding and renaming. */
const ROUNDS = 400

const folders: string[] = []
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true })
})

describe('the made-files watch renames only in the folder it walked', () => {
  it("leaves another repository's git folder and HEAD as they were while a folder on the way is swapped for a link to it", async () => {
    const base = mkdtempSync(join(tmpdir(), 'assent-made-swapped-'))
    folders.push(base)
    const workspace = join(base, 'workspace')
    const other = join(base, 'other')
    mkdirSync(join(workspace, 'sub'), { recursive: true })
    mkdirSync(join(other, '.git'), { recursive: true })
    writeFileSync(join(other, '.git', 'HEAD'), 'ref: refs/heads/main\n')
    writeFileSync(join(other, '.git', 'config'), '[core]\n')
    const start = personOnlyAtStart([workspace])
    const swapper = await startFolderSwapper(workspace, 'sub', other, '.git')
    let moved = 0
    const failures = new Set<string>()
    try {
      for (let round = 0; round < ROUNDS; round += 1) {
        for (const each of settleMadePersonOnly(start).made) {
          if (each.movedTo === null) failures.add(each.failure ?? '')
          else moved += 1
        }
        expect(readdirSync(other), `round ${round}`).toEqual(['.git'])
        expect(readdirSync(join(other, '.git')).sort(), `round ${round}`).toEqual([
          'HEAD',
          'config',
        ])
      }
    } finally {
      await swapper.stop()
    }
    // The race ran: the watch found and moved what the call made.
    expect(moved, [...failures].join('\n')).toBeGreaterThan(0)
  })
})
