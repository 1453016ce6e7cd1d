import { existsSync, mkdtempSync, readdirSync, realpathSync, rmSync } from 'node:fs'
import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { decide, toolCallsOf, waitForPendingApproval } from './support/policy-helpers.ts'
import { hookToolDiskWait, type ToolDiskWait } from './support/tool-disk-wait.ts'
import { startInProcessRuntime } from './support/in-process-runtime.ts'
import { createRoom, send, turnSettled } from './support/room-helpers.ts'
import type { RuntimeHarness } from './support/runtime-harness.ts'
import { undoMove, WORKSPACE_MOVES } from './support/workspace-moves.ts'

/**
 * A built-in tool checks the workspace, marks its call running and waits
 * until that is on disk before it acts. A folder moved during that wait
 * (made to land exactly then, by wrapping the real group commit of a real
 * runtime in this process) must not be acted in: a file tool walks the
 * path again from `/` and would write whatever folder is there now, or
 * make a removed one again. Each allower, each move; and the same for a
 * folder the person let the turn write (a permission request). (External agents'
 * side: external-turn-asker.test.ts; the MCP door checks after its wait,
 * a command at its sandbox's start.)
 */

let runtime: RuntimeHarness
let diskWait: ToolDiskWait

beforeAll(async () => {
  diskWait = hookToolDiskWait()
  runtime = await startInProcessRuntime({})
})
afterAll(async () => {
  diskWait?.restore()
  await runtime?.close()
})

const ALLOWERS = [
  { name: 'an "always allow" grant', makeGrant: true },
  { name: "the person's allow-once", makeGrant: false },
] as const

let folders = 0

describe.each(ALLOWERS)('a write allowed by $name', ({ makeGrant }) => {
  it.each(WORKSPACE_MOVES)(
    'is refused, and nothing lands, when the folder is $name during the wait for the disk',
    async (move) => {
      folders += 1
      const folder = join(runtime.root, `W-${folders}`)
      await mkdir(folder)
      const real = realpathSync(folder)
      const elsewhere = realpathSync(mkdtempSync(join(runtime.root, 'elsewhere-')))
      const room = await createRoom(runtime, { workspace: real })
      if (makeGrant) {
        const first = await send(runtime, room.id, 'write first.txt 1')
        const view = await waitForPendingApproval(runtime, room.id, first)
        expect((await decide(runtime, view, 'allow-always')).status).toBe(200)
        await turnSettled(runtime, room.id, first)
      }
      let moved = false
      diskWait.once(() => {
        move.apply(real, elsewhere)
        moved = true
      })
      try {
        const turnId = await send(runtime, room.id, 'write notes.txt x')
        if (!makeGrant) {
          const view = await waitForPendingApproval(runtime, room.id, turnId)
          expect((await decide(runtime, view, 'allow-once')).status).toBe(200)
        }
        await turnSettled(runtime, room.id, turnId)
        const [call] = await toolCallsOf(runtime, room.id, turnId)
        expect(moved).toBe(true)
        expect(call).toMatchObject({ status: 'refused', result: { code: 'workspace_moved' } })
        // Nothing at the path (a folder put there, or made again) and
        // nothing in the folder a link leads to.
        const atPath = existsSync(real) ? readdirSync(real) : []
        expect(atPath.filter((name) => name === 'notes.txt')).toEqual([])
        expect(readdirSync(elsewhere)).toEqual([])
      } finally {
        diskWait.once(undefined)
        undoMove(real)
        rmSync(elsewhere, { recursive: true, force: true })
      }
    },
  )
})

describe('a write into a folder the person let the turn write', () => {
  it.each(WORKSPACE_MOVES)(
    'is refused, and nothing lands, when that folder is $name during the wait for the disk',
    async (move) => {
      const widened = realpathSync(mkdtempSync(join('/var/tmp', 'assent-widened-')))
      const elsewhere = realpathSync(mkdtempSync(join(runtime.root, 'elsewhere-')))
      const room = await createRoom(runtime)
      let moved = false
      try {
        const turnId = await send(
          runtime,
          room.id,
          `permit write ${widened}\nwrite ${widened}/landed.txt payload`,
        )
        const permission = await waitForPendingApproval(runtime, room.id, turnId)
        expect(permission.approval.permission?.widen).toEqual({
          type: 'write-directory',
          path: widened,
        })
        expect((await decide(runtime, permission, 'allow-once')).status).toBe(200)
        // The next question of the turn: the write, let in through that folder.
        const write = await waitForPendingApproval(runtime, room.id, turnId)
        diskWait.once(() => {
          move.apply(widened, elsewhere)
          moved = true
        })
        expect((await decide(runtime, write, 'allow-once')).status).toBe(200)
        await turnSettled(runtime, room.id, turnId)
        const calls = await toolCallsOf(runtime, room.id, turnId)
        expect(moved).toBe(true)
        expect(calls.find((call) => call.toolName === 'write_file')).toMatchObject({
          status: 'refused',
          result: { code: 'workspace_moved' },
        })
        const atPath = existsSync(widened) ? readdirSync(widened) : []
        expect(atPath).toEqual([])
        expect(readdirSync(`${widened}.old`)).toEqual([])
        expect(readdirSync(elsewhere)).toEqual([])
      } finally {
        diskWait.once(undefined)
        if (moved) undoMove(widened)
        rmSync(widened, { recursive: true, force: true })
        rmSync(elsewhere, { recursive: true, force: true })
      }
    },
  )
})
