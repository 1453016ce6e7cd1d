import { existsSync } from 'node:fs'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { decide, toolCallsOf, waitForPendingApproval } from './support/policy-helpers.ts'
import { createRoom, send, turnSettled } from './support/room-helpers.ts'
import { startHarness, type RuntimeHarness } from './support/runtime-harness.ts'
import { startLinkFlipper, type LinkFlipper } from './support/link-flipper.ts'

// The built-in MCP filesystem server binds a write to what its preview
// observed through the write's key ({args, paths}): the write resolves its
// path again (gated-mcp-call compares the preview once more after the
// person's allow, but the write resolves after that and after the wait for
// the disk), and when the resolution differs the key finds no preview and
// the write is refused (runInWorkspace in built-in-filesystem-server.ts),
// never made unbound: a link swapped in between never lands the write the
// person allowed for one file in another, here a git hook. Assent's own
// write_file refuses the same (target_changed: the judged path differs).

let harness: RuntimeHarness
let flipper: LinkFlipper | undefined

beforeAll(async () => {
  harness = await startHarness()
})
afterAll(async () => {
  await flipper?.stop()
  await harness?.close()
})

const MAX_ATTEMPTS = 80

describe("a write the person allowed through the built-in filesystem server's MCP tool", () => {
  it('lands only in the file the person was shown, never in a git hook', async () => {
    const { workspace } = harness
    await mkdir(join(workspace, '.git', 'hooks'), { recursive: true })
    await writeFile(join(workspace, 'inside.txt'), 'an ordinary file\n')
    const hook = join(workspace, '.git', 'hooks', 'pre-commit')
    const shownInside = `Replaces ${join(workspace, 'inside.txt')}`
    const room = await createRoom(harness)
    flipper = await startLinkFlipper(workspace, 'flip.txt', 'inside.txt', '.git/hooks/pre-commit')

    let allowed = 0
    for (let attempt = 0; attempt < MAX_ATTEMPTS && !existsSync(hook); attempt += 1) {
      const content = `echo attempt ${attempt}`
      const turnId = await send(
        harness,
        room.id,
        `mcp filesystem write_file ${JSON.stringify({ path: 'flip.txt', content })}`,
      )
      const view = await waitForPendingApproval(harness, room.id, turnId)
      const preview = view.action.mcp?.preview ?? ''
      // The person allows only a write shown as replacing inside.txt.
      const shownOrdinary = preview.startsWith(shownInside)
      if (shownOrdinary) allowed += 1
      const decision = shownOrdinary ? 'allow-once' : 'deny'
      expect((await decide(harness, view, decision)).status).toBe(200)
      await turnSettled(harness, room.id, turnId)
      if (existsSync(hook)) {
        const [call] = await toolCallsOf(harness, room.id, turnId)
        expect(call?.approvalId).toBe(view.approval.id)
        expect(shownOrdinary).toBe(true)
      }
    }
    await flipper.stop()
    expect(allowed).toBeGreaterThan(0)
    const written = existsSync(hook) ? await readFile(hook, 'utf8') : null
    expect(written).toBeNull()
  }, 600_000)
})
