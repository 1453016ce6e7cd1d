import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { breakFileAnchor } from './support/integrity-helpers.ts'
import { writeNotesConfig } from './support/mcp-gateway-harness.ts'
import { auditEvents, decide, roomGrants, setMode } from './support/policy-helpers.ts'
import { createRoom, pendingApprovalFor } from './support/room-helpers.ts'
import { startHarness, type RuntimeHarness } from './support/runtime-harness.ts'
import { TEST_TIMEOUT_MS } from '../scripts/test-timing.ts'

// docs/integrity.md#rollback: while the anchor lags, anything that widens
// is refused with rollback_anchor_unavailable (HTTP 503). Each decision
// that writes a grant is one: "Always allow" this tool, and "Always allow
// every tool of <server>" (scope mcp-server), which widens further.

const harnesses: RuntimeHarness[] = []
afterEach(async () => {
  for (const harness of harnesses.splice(0)) {
    await harness.close()
    await rm(harness.root, { recursive: true, force: true })
  }
})

describe(
  'each grant-writing decision while the rollback anchor lags',
  { timeout: TEST_TIMEOUT_MS * 2 },
  () => {
    it('is refused with 503 rollback_anchor_unavailable and writes no grant, and goes through once the anchor can be written', async () => {
      const root = await mkdtemp(join(tmpdir(), 'assent-anchor-grants-'))
      const fixture = await writeNotesConfig(root)
      const harness = await startHarness({ root, mcpConfigPath: fixture.configPath })
      harnesses.push(harness)
      const room = await createRoom(harness)
      await setMode(harness, room.id, 'full-access')

      const anchor = breakFileAnchor(harness.dataDir)
      // A narrowing goes through, and leaves the anchor behind.
      await setMode(harness, room.id, 'ask-for-approval')
      expect(
        (await auditEvents(harness)).filter((event) => event.type === 'rollback_anchor_lagging'),
      ).toHaveLength(1)

      const view = await pendingApprovalFor(
        harness,
        room.id,
        'mcp notes write_note {"name": "lagging.txt", "text": "x"}',
      )
      expect(view.serverAlwaysAllowAvailable).toBe(true)
      const refused = []
      for (const decision of ['allow-always', 'allow-always-server'] as const) {
        refused.push({ decision, answer: await decide(harness, view, decision) })
      }
      const grants = await roomGrants(harness, room.id)
      // Restore before asserting, so the harness can shut down cleanly.
      anchor.restore()
      expect(refused).toEqual([
        {
          decision: 'allow-always',
          answer: expect.objectContaining({
            status: 503,
            body: expect.objectContaining({ code: 'rollback_anchor_unavailable' }),
          }),
        },
        {
          decision: 'allow-always-server',
          answer: expect.objectContaining({
            status: 503,
            body: expect.objectContaining({ code: 'rollback_anchor_unavailable' }),
          }),
        },
      ])
      expect(grants).toEqual([])
      // The anchor writable again: the widest goes through, its grant written.
      expect(await decide(harness, view, 'allow-always-server')).toMatchObject({ status: 200 })
      expect((await roomGrants(harness, room.id)).map((grant) => grant.scope)).toEqual([
        'mcp-server',
      ])
    })
  },
)
