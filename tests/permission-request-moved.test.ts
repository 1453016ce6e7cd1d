import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, readdir, realpath, rename, rm, symlink } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startInProcessRuntime } from './support/in-process-runtime.ts'
import {
  decide,
  roomApprovals,
  roomGrants,
  waitForPendingApproval,
} from './support/policy-helpers.ts'
import { RecordingModel } from './support/recording-model.ts'
import { createRoom, send, timeline, turnSettled } from './support/room-helpers.ts'
import { eventually, type RuntimeHarness } from './support/runtime-harness.ts'
import { bubblewrapRequired } from './support/bubblewrap.ts'

// A folder a permission request let a turn write counts only while it is
// the real directory the person was shown, and no grant speaks for a
// command that could write there: through a real runtime and a real
// bubblewrap, which is what would bind the folder for a command.

const HAS_BWRAP = await bubblewrapRequired()

let harness: RuntimeHarness
const made: string[] = []

beforeAll(async () => {
  harness = await startInProcessRuntime({ model: new RecordingModel() })
})
afterAll(async () => {
  await harness?.close()
  // A case that renames the folder away leaves it at `<folder>.old`.
  for (const folder of made) {
    for (const left of [folder, `${folder}.old`]) await rm(left, { recursive: true, force: true })
  }
})

/** A folder outside /tmp: every contained command gets an empty /tmp of
 *  its own, where a write through a link would land nowhere and so prove
 *  nothing. */
async function folderOutsideTmp(name: string): Promise<string> {
  const folder = await realpath(await mkdtemp(join('/var/tmp', `assent-${name}-`)))
  made.push(folder)
  return folder
}

/** Allows, as the person, every approval the turn asks until it settles. */
async function personAllowsEverything(roomId: string, turnId: string): Promise<void> {
  const decided = new Set<string>()
  await eventually(async () => {
    const pending = (await roomApprovals(harness, roomId)).filter(
      (approval) =>
        approval.turnId === turnId && approval.status === 'pending' && !decided.has(approval.id),
    )
    for (const approval of pending) {
      decided.add(approval.id)
      await decide(harness, await harness.client.getApproval(approval.id), 'allow-once')
    }
    const turn = (await timeline(harness, roomId)).turns.find((each) => each.id === turnId)
    return turn?.status === 'done' || turn?.status === 'failed' ? true : undefined
  }, `turn ${turnId} settled with every question allowed`)
}

/** How a widened folder stops being the one the person was shown. */
const MOVES: ReadonlyArray<
  readonly [string, (folder: string, elsewhere: string) => Promise<void>]
> = [
  [
    'renamed away and replaced by a link to another folder',
    async (folder, elsewhere) => {
      await rename(folder, `${folder}.old`)
      await symlink(elsewhere, folder)
    },
  ],
  [
    'replaced by another folder of the same name',
    async (folder) => {
      await rename(folder, `${folder}.old`)
      await mkdir(folder)
    },
  ],
  ['removed', (folder) => rename(folder, `${folder}.old`)],
]

/** What the turn does in the widened folder once the person allowed it. */
const DOORS = [
  { name: 'a write', line: (folder: string) => `write ${folder}/landed.txt x` },
  { name: 'a command', line: (folder: string) => `run touch ${folder}/landed.txt` },
] as const

describe.runIf(HAS_BWRAP).each(MOVES)('a widened folder %s', (_name, move) => {
  it.each(DOORS)(
    'holds nothing for $name, though the person allows everything: nothing lands anywhere',
    async (door) => {
      const folder = await folderOutsideTmp('widened')
      const elsewhere = await folderOutsideTmp('elsewhere')
      const room = await createRoom(harness)
      const turnId = await send(
        harness,
        room.id,
        [`permit write ${folder}`, door.line(folder)].join('\n'),
      )
      const request = await waitForPendingApproval(harness, room.id, turnId)
      expect(request.approval.permission?.widen).toEqual({ type: 'write-directory', path: folder })
      // While the person decides, the folder stops being the one shown.
      await move(folder, elsewhere)
      await personAllowsEverything(room.id, turnId)
      await turnSettled(harness, room.id, turnId)
      expect(existsSync(join(folder, 'landed.txt'))).toBe(false)
      expect(existsSync(join(`${folder}.old`, 'landed.txt'))).toBe(false)
      expect(await readdir(elsewhere)).toEqual([])
    },
  )
})

describe.runIf(HAS_BWRAP)('a command grant while the turn has a widened folder', () => {
  it('answers before the widening, and not after it: the command is asked again', async () => {
    const folder = await folderOutsideTmp('widened')
    const room = await createRoom(harness)
    const line = `run touch ${folder}/unasked.txt`
    const first = await send(harness, room.id, line)
    const asked = await waitForPendingApproval(harness, room.id, first)
    expect((await decide(harness, asked, 'allow-always')).status).toBe(200)
    await turnSettled(harness, room.id, first)
    expect(await roomGrants(harness, room.id)).toMatchObject([{ toolName: 'run_command' }])
    // Contained to the workspace, the command could not write there.
    expect(existsSync(join(folder, 'unasked.txt'))).toBe(false)

    const turnId = await send(harness, room.id, [`permit write ${folder}`, line].join('\n'))
    const request = await waitForPendingApproval(harness, room.id, turnId)
    expect((await decide(harness, request, 'allow-once')).status).toBe(200)
    const command = await eventually(async () => {
      const pending = (await roomApprovals(harness, room.id)).find(
        (approval) => approval.turnId === turnId && approval.status === 'pending',
      )
      return pending ? harness.client.getApproval(pending.id) : undefined
    }, 'the command asked again')
    expect(command.approval.toolName).toBe('run_command')
    // The person is shown the widened folder among where it may write.
    expect(command.action.containment).toMatchObject({
      writableRoots: expect.arrayContaining([folder]),
    })
    expect((await decide(harness, command, 'deny')).status).toBe(200)
    await turnSettled(harness, room.id, turnId)
    expect(existsSync(join(folder, 'unasked.txt'))).toBe(false)
  })
})
