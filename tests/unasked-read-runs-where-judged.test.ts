import { randomUUID } from 'node:crypto'
import { symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { outsideDir, roomApprovals, setMode, toolCallsOf } from './support/policy-helpers.ts'
import { createRoom, send, turnSettled } from './support/room-helpers.ts'
import { startHarness, type RuntimeHarness } from './support/runtime-harness.ts'
import { startLinkFlipper, type LinkFlipper } from './support/link-flipper.ts'

// A read that runs unasked (plan mode, or any mode whose reads run) is
// judged on the path the first sandbox check resolved (privateReadReason in
// ToolCallRunner.decideAndRun); ToolCallRunner.execute resolves the path
// again right before it runs, and runs the call only if that is still the
// path judged (judged-target.ts: `target_changed` otherwise), and read_file
// refuses, as a workspace read, a real path outside the workspace. A link
// swapped between the two resolutions never shows the agent a file outside
// the workspace that nobody was asked about.

let harness: RuntimeHarness
let flipper: LinkFlipper | undefined
const SECRET = `outside-secret-${randomUUID()}`

beforeAll(async () => {
  harness = await startHarness()
})
afterAll(async () => {
  await flipper?.stop()
  await harness?.close()
})

const ATTEMPTS_PER_TURN = 40
const MAX_TURNS = 12

describe('an unasked read in plan mode, with a link swapped while it is judged', () => {
  it('never returns the content of a file outside the workspace', async () => {
    const outside = await outsideDir(harness)
    const victim = join(outside, 'victim.txt')
    await writeFile(victim, `${SECRET}\n`)
    await writeFile(join(harness.workspace, 'inside.txt'), 'inside the workspace\n')
    const room = await createRoom(harness)
    await setMode(harness, room.id, 'plan')

    // Control: the same link standing still is a private read, refused in
    // plan mode without anyone asked.
    await symlink(victim, join(harness.workspace, 'still.txt'))
    const still = await send(harness, room.id, 'read still.txt')
    await turnSettled(harness, room.id, still)
    const [stillCall] = await toolCallsOf(harness, room.id, still)
    expect(stillCall?.status).toBe('denied')
    expect(JSON.stringify(stillCall)).not.toContain(SECRET)

    flipper = await startLinkFlipper(harness.workspace, 'flip.txt', 'inside.txt', victim)
    const lines = Array.from({ length: ATTEMPTS_PER_TURN }, () => 'read flip.txt').join('\n')
    let leaked: unknown = null
    let readInside = 0
    for (let turn = 0; turn < MAX_TURNS && leaked === null; turn += 1) {
      const turnId = await send(harness, room.id, lines)
      await turnSettled(harness, room.id, turnId)
      const calls = await toolCallsOf(harness, room.id, turnId)
      for (const call of calls) {
        const text = JSON.stringify(call.result)
        if (text.includes('inside the workspace')) readInside += 1
        if (text.includes(SECRET)) leaked ??= call
      }
    }
    await flipper.stop()
    // The rig did run reads that succeeded through the link.
    expect(readInside).toBeGreaterThan(0)
    expect(await roomApprovals(harness, room.id)).toEqual([])
    expect(leaked).toBeNull()
  }, 600_000)
})
