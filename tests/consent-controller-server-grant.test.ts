import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ConsentController } from '../src/main/core/consent-controller.ts'
import { FakeWindows } from './support/fake-protected-windows.ts'
import { writeNotesConfig } from './support/mcp-gateway-harness.ts'
import { roomGrants } from './support/policy-helpers.ts'
import { createRoom, pendingApprovalFor } from './support/room-helpers.ts'
import { startHarness, type RuntimeHarness } from './support/runtime-harness.ts'

// The protected window itself is a fake here (no Electron binary); the
// runtime, its grants and the tokens are real.
describe('ConsentController: "Always allow" and "Always allow every tool of <server>"', () => {
  let harness: RuntimeHarness

  beforeAll(async () => {
    const root = await mkdtemp(join(tmpdir(), 'assent-server-grant-window-'))
    const fixture = await writeNotesConfig(root)
    harness = await startHarness({ root, mcpConfigPath: fixture.configPath })
  })
  afterAll(async () => {
    await harness?.close()
    await rm(harness.root, { recursive: true, force: true })
  })

  const controllerWith = (windows: FakeWindows) =>
    new ConsentController({
      client: harness.client,
      connection: () => harness.supervisor.current,
      windows,
      preferences: () => ({ lang: 'en', theme: 'light' }),
      enableDelayMs: 0,
    })

  it("shows the server's tool list with the offer, and records a server-wide grant on the person's choice", async () => {
    const windows = new FakeWindows()
    const controller = controllerWith(windows)
    const room = await createRoom(harness)
    const view = await pendingApprovalFor(
      harness,
      room.id,
      'mcp notes write_note {"name": "window.txt", "text": "x"}',
    )
    const outcome = controller.reviewApproval([view.approval.id])
    const window = await windows.nextShown()
    expect(window.views[0]).toMatchObject({
      subject: 'approval',
      serverAlwaysAllow: {
        offered: true,
        toolNames: ['read_note', 'write_note', 'write_note.preview'],
      },
    })
    controller.handleDecision(window.promptId, 'allow-always-server', window)
    await expect(outcome).resolves.toMatchObject({
      status: 'decided',
      decision: 'allow-always-server',
    })
    const grants = await roomGrants(harness, room.id)
    expect(grants.map((grant) => grant.scope)).toEqual(['mcp-server'])
  })

  // An "always" the window did not show is refused by main itself, before
  // any token is minted: whether the runtime would honour it when the
  // answer arrives is another question than whether the person saw it.
  it('ignores "Always allow" from a window that did not offer it', async () => {
    const windows = new FakeWindows()
    const controller = controllerWith(windows)
    const room = await createRoom(harness)
    // A hook always needs the person: no "always" is offered for it.
    const view = await pendingApprovalFor(harness, room.id, 'write .git/hooks/pre-commit x')
    expect(view.alwaysAllowAvailable).toBe(false)
    const outcome = controller.reviewApproval([view.approval.id])
    const window = await windows.nextShown()
    const shown = window.views[0]
    expect(shown?.subject === 'approval' && shown.alwaysAllow.offered).toBe(false)
    controller.handleDecision(window.promptId, 'allow-always', window)
    controller.handleDecision(window.promptId, 'deny', window)
    await expect(outcome).resolves.toMatchObject({ status: 'decided', decision: 'deny' })
    expect(await roomGrants(harness, room.id)).toEqual([])
  })

  it('ignores the server-wide answer from a window that did not offer it', async () => {
    const windows = new FakeWindows()
    const controller = controllerWith(windows)
    const room = await createRoom(harness)
    const view = await pendingApprovalFor(harness, room.id, 'write offered.txt x')
    const outcome = controller.reviewApproval([view.approval.id])
    const window = await windows.nextShown()
    const shown = window.views[0]
    expect(shown?.subject === 'approval' && shown.serverAlwaysAllow).toBeUndefined()
    controller.handleDecision(window.promptId, 'allow-always-server', window)
    // The positive step: had the answer above been taken, this one would
    // find the prompt used.
    controller.handleDecision(window.promptId, 'deny', window)
    await expect(outcome).resolves.toMatchObject({ status: 'decided', decision: 'deny' })
    expect(await roomGrants(harness, room.id)).toEqual([])
  })
})
