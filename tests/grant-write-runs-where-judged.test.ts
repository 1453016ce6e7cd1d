import { existsSync } from 'node:fs'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  decide,
  roomApprovals,
  roomGrants,
  toolCallsOf,
  waitForPendingApproval,
} from './support/policy-helpers.ts'
import { createRoom, send, timeline, turnSettled } from './support/room-helpers.ts'
import { eventually, startHarness, type RuntimeHarness } from './support/runtime-harness.ts'
import { startLinkFlipper, type LinkFlipper } from './support/link-flipper.ts'

// A write_file grant is honoured only after the person-only rule judged
// the call (grantThatMayAnswer in ToolCallRunner.decideAndRun), on the
// path the first sandbox check resolved. ToolCallRunner.execute resolves
// the path again right before the write and runs it only if that is still
// the path judged, bound to the file observed before the grant answered
// (judged-target.ts: `target_changed` otherwise). A link swapped between
// the two never makes a grant write git's hooks.

let harness: RuntimeHarness
let flipper: LinkFlipper | undefined

beforeAll(async () => {
  harness = await startHarness()
})
afterAll(async () => {
  await flipper?.stop()
  await harness?.close()
})

const HOOK = 'echo the agent ran here'
const WRITES_PER_TURN = 40
const MAX_TURNS = 8

describe('an allow-always grant for write_file, with a link swapped while the grant answers', () => {
  it('never writes a git hook', async () => {
    const { workspace } = harness
    await mkdir(join(workspace, '.git', 'hooks'), { recursive: true })
    await writeFile(join(workspace, 'inside.txt'), 'an ordinary file\n')
    const hook = join(workspace, '.git', 'hooks', 'pre-commit')
    const room = await createRoom(harness)

    // The person allows an ordinary write "always": a write_file grant.
    const first = await send(harness, room.id, 'write granted.txt first')
    const view = await waitForPendingApproval(harness, room.id, first)
    expect((await decide(harness, view, 'allow-always')).status).toBe(200)
    await turnSettled(harness, room.id, first)
    expect(await roomGrants(harness, room.id)).toMatchObject([
      { toolName: 'write_file', scope: 'tool' },
    ])

    flipper = await startLinkFlipper(workspace, 'flip.txt', 'inside.txt', '.git/hooks/pre-commit')
    const lines = Array.from({ length: WRITES_PER_TURN }, () => `write flip.txt ${HOOK}`).join('\n')
    let answeredByGrant = 0
    let askedForHook = 0
    for (let turn = 0; turn < MAX_TURNS && !existsSync(hook); turn += 1) {
      const turnId = await send(harness, room.id, lines)
      // A call judged while the link led to the hook is left to the
      // person (as it should be): the person says no, and the turn goes on.
      await eventually(async () => {
        const pending = (await roomApprovals(harness, room.id)).find(
          (approval) => approval.turnId === turnId && approval.status === 'pending',
        )
        if (pending) {
          askedForHook += 1
          const asked = await harness.client.getApproval(pending.id)
          const denied = await decide(harness, asked, 'deny')
          if (denied.status !== 200) throw new Error(`deny answered ${denied.status}`)
          return undefined
        }
        const current = (await timeline(harness, room.id)).turns.find((t) => t.id === turnId)
        return current?.status === 'done' || current?.status === 'failed' ? true : undefined
      }, `turn ${turnId} to settle`)
      const calls = await toolCallsOf(harness, room.id, turnId)
      for (const call of calls) {
        if (call.status === 'succeeded' && call.approvalId === null) answeredByGrant += 1
      }
    }
    await flipper.stop()
    // The rig did what it means to: the grant answered writes through the
    // link, and the rule left those it saw lead to the hook to the person.
    expect(answeredByGrant).toBeGreaterThan(0)
    expect(askedForHook).toBeGreaterThan(0)
    // No grant answers for git's hooks.
    const written = existsSync(hook) ? await readFile(hook, 'utf8') : null
    expect(written).toBeNull()
  }, 600_000)
})
