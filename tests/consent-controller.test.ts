import { randomUUID } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { mkdir, rename } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  ConsentController,
  type ConsentControllerOptions,
} from '../src/main/core/consent-controller.ts'
import { ConsentTokenVerifier, parseConsentToken } from '../src/consent/consent-token.ts'
import type { ApprovalDecision } from '../src/contracts/consent.ts'
import { MODE_PRESETS } from '../src/runtime/policy/permission-modes.ts'
import { tamperWithRoomPolicy } from './support/integrity-helpers.ts'
import { FakeWindow, FakeWindows } from './support/fake-protected-windows.ts'
import { eventually, startHarness, type RuntimeHarness } from './support/runtime-harness.ts'
import { createRoom, pendingApprovalFor } from './support/room-helpers.ts'
import { scaledMs } from '../scripts/test-timing.ts'

let harness: RuntimeHarness

beforeAll(async () => {
  harness = await startHarness()
})
afterAll(async () => {
  await harness?.close()
})

/** A controller on `runtime` (the shared harness unless given), with its
 *  buttons enabled at once; `extra` replaces any other option. */
function controllerWith(
  windows: FakeWindows,
  extra: Partial<ConsentControllerOptions> = {},
  runtime: RuntimeHarness = harness,
) {
  return new ConsentController({
    client: runtime.client,
    connection: () => runtime.supervisor.current,
    windows,
    preferences: () => ({ lang: 'en', theme: 'light' }),
    enableDelayMs: 0,
    ...extra,
  })
}

function windowShown(windows: FakeWindows): Promise<FakeWindow> {
  return windows.nextShown()
}

describe('ConsentController', () => {
  it('shows the canonical action and allows only after a decision from its own window', async () => {
    const windows = new FakeWindows()
    const controller = controllerWith(windows)
    const room = await createRoom(harness)
    const view = await pendingApprovalFor(harness, room.id, 'write allowed.txt from-window')
    const outcome = controller.reviewApproval([view.approval.id])
    const window = await windowShown(windows)
    const shown = window.views[0]
    expect(shown).toMatchObject({
      subject: 'approval',
      toolName: 'write_file',
      digestPrefix: view.actionDigest.slice(0, 12),
      roomLabel: 'Test room',
    })
    expect(shown?.subject === 'approval' && shown.argumentsText).toContain('from-window')
    controller.handleDecision(window.promptId, 'allow-once', window)
    await expect(outcome).resolves.toMatchObject({ status: 'decided', decision: 'allow-once' })
    expect(window.closed).toBe(true)
    const path = join(harness.workspace, 'allowed.txt')
    await eventually(
      () => (existsSync(path) && readFileSync(path, 'utf8') === 'from-window') || undefined,
      'the file with the approved content',
    )
  })

  it('refuses any forged argument from the workbench with an error the renderer sees', async () => {
    const controller = controllerWith(new FakeWindows())
    const forgeries: unknown[] = [
      ['id-1', { decision: 'allow', source: 'policy' }],
      [{ approvalId: 'id-1', decision: 'allow-once' }],
      ['id-1', 'allow-once'],
      [],
      'id-1',
      ['../approvals/x'],
    ]
    for (const args of forgeries) {
      await expect(controller.reviewApproval(args), JSON.stringify(args)).rejects.toMatchObject({
        code: 'invalid_arguments',
        message: expect.stringMatching(/decisions are made only in the protected window/),
      })
    }
    await expect(
      controller.requestModeChange(['room', 'full-access', { source: 'policy' }]),
    ).rejects.toMatchObject({ code: 'invalid_arguments' })
  })

  it('ignores decisions from another window, a hidden or unfocused window, or a second answer', async () => {
    const windows = new FakeWindows()
    const controller = controllerWith(windows)
    const room = await createRoom(harness)
    const view = await pendingApprovalFor(harness, room.id, 'write guarded.txt x')
    const outcome = controller.reviewApproval([view.approval.id])
    const window = await windowShown(windows)
    controller.handleDecision(window.promptId, 'allow-once', new FakeWindow(window.promptId))
    window.focused = false
    controller.handleDecision(window.promptId, 'allow-once', window)
    window.focused = true
    window.visible = false
    controller.handleDecision(window.promptId, 'allow-once', window)
    window.visible = true
    controller.handleDecision(window.promptId, 'confirm', window)
    controller.handleDecision('another-prompt', 'allow-once', window)
    expect((await harness.client.getApproval(view.approval.id)).approval.status).toBe('pending')
    // The later positive step, instead of a wait: had any allow-once above
    // been taken, it would have answered the prompt and this deny would not.
    controller.handleDecision(window.promptId, 'deny', window)
    controller.handleDecision(window.promptId, 'allow-once', window)
    await expect(outcome).resolves.toMatchObject({ status: 'decided', decision: 'deny' })
    expect((await harness.client.getApproval(view.approval.id)).approval.status).toBe('denied')
  })

  it('changes nothing when the window is closed or cancelled', async () => {
    const windows = new FakeWindows()
    const controller = controllerWith(windows)
    const room = await createRoom(harness)
    const view = await pendingApprovalFor(harness, room.id, 'write closed.txt x')
    const closed = controller.reviewApproval([view.approval.id])
    ;(await windowShown(windows)).close()
    await expect(closed).resolves.toEqual({ status: 'cancelled' })
    const cancelled = controller.reviewApproval([view.approval.id])
    const window = await windowShown(windows)
    controller.handleDecision(window.promptId, 'cancel', window)
    await expect(cancelled).resolves.toEqual({ status: 'cancelled' })
    expect((await harness.client.getApproval(view.approval.id)).approval.status).toBe('pending')
    const mode = controller.requestModeChange([room.id, 'full-access'])
    const modeWindow = await windowShown(windows)
    modeWindow.close()
    await expect(mode).resolves.toEqual({ status: 'cancelled' })
    expect(await harness.client.getPermissions(room.id)).toMatchObject({
      mode: 'ask-for-approval',
      revision: 0,
    })
  })

  it('focuses the open window on a second request for the same subject instead of opening another', async () => {
    const windows = new FakeWindows()
    const controller = controllerWith(windows)
    const room = await createRoom(harness)
    const view = await pendingApprovalFor(harness, room.id, 'write twice.txt x')
    const first = controller.reviewApproval([view.approval.id])
    const second = controller.reviewApproval([view.approval.id])
    const window = await windowShown(windows)
    const focusedBefore = window.focusCount
    const third = controller.reviewApproval([view.approval.id])
    expect(windows.opened).toHaveLength(1)
    expect(window.focusCount).toBe(focusedBefore + 1)
    controller.handleDecision(window.promptId, 'deny', window)
    const [a, b, c] = await Promise.all([first, second, third])
    expect(c).toEqual(a)
    expect(a).toEqual(b)
  })

  it('closes the window and mints nothing when the approval expires while it is open', async () => {
    // Long enough for a busy machine to open the review before it expires
    // (the test waits for the expiry, so no longer than that).
    const short = await startHarness({ approvalTtlMs: scaledMs(10_000) })
    try {
      const windows = new FakeWindows()
      const controller = controllerWith(windows, {}, short)
      const room = await createRoom(short)
      const view = await pendingApprovalFor(short, room.id, 'write expiring.txt x')
      const outcome = controller.reviewApproval([view.approval.id])
      const window = await windowShown(windows)
      await expect(outcome).resolves.toEqual({ status: 'expired' })
      expect(window.closed).toBe(true)
      controller.handleDecision(window.promptId, 'allow-once', window)
      // The runtime's own sweep (every EXPIRY_SWEEP_MS) settles it; had the
      // late click minted anything, it would settle as allowed instead.
      const settled = await eventually(async () => {
        const { approval } = await short.client.getApproval(view.approval.id)
        return approval.status === 'pending' ? undefined : approval.status
      }, 'the runtime to settle the approval')
      expect(settled).toBe('expired')
      expect(existsSync(join(short.workspace, 'expiring.txt'))).toBe(false)
    } finally {
      await short.close()
    }
  })

  it('closes every prompt when the runtime restarts, and mints nothing for the old instance', async () => {
    const restarting = await startHarness()
    try {
      const windows = new FakeWindows()
      const controller = controllerWith(windows, {}, restarting)
      const room = await createRoom(restarting)
      const view = await pendingApprovalFor(restarting, room.id, 'write restart.txt x')
      const outcome = controller.reviewApproval([view.approval.id])
      const window = await windowShown(windows)
      await restarting.restart()
      controller.handleDecision(window.promptId, 'allow-once', window)
      await expect(outcome).resolves.toEqual({
        status: 'closed',
        reason: { code: 'runtime_restarted', detail: 'the runtime restarted' },
      })
      controller.closeAll({ code: 'runtime_restarted', detail: 'restart' })
      expect(controller.openPromptCount).toBe(0)
      expect(existsSync(join(restarting.workspace, 'restart.txt'))).toBe(false)
    } finally {
      await restarting.close()
    }
  })

  it('changes a room mode only through the window, bound to the revision it showed', async () => {
    const windows = new FakeWindows()
    const controller = controllerWith(windows)
    const room = await createRoom(harness)
    const outcome = controller.requestModeChange([room.id, 'approve-for-me'])
    const window = await windowShown(windows)
    expect(window.views[0]).toMatchObject({
      subject: 'mode-change',
      fromMode: 'ask-for-approval',
      toMode: 'approve-for-me',
    })
    controller.handleDecision(window.promptId, 'allow-once', window)
    controller.handleDecision(window.promptId, 'confirm', window)
    await expect(outcome).resolves.toMatchObject({
      status: 'changed',
      permissions: { mode: 'approve-for-me', revision: 1 },
    })
    await expect(controller.requestModeChange([room.id, 'approve-for-me'])).resolves.toMatchObject({
      status: 'unchanged',
    })
  })

  it('lets the person confirm the mode a tampered room reads as, which makes it trusted again', async () => {
    const windows = new FakeWindows()
    const controller = controllerWith(windows)
    const room = await createRoom(harness)
    await tamperWithRoomPolicy(harness, room.id)
    const outcome = controller.requestModeChange([room.id, 'ask-for-approval'])
    const window = await windowShown(windows)
    expect(window.views[0]).toMatchObject({
      subject: 'mode-change',
      fromMode: 'ask-for-approval',
      toMode: 'ask-for-approval',
    })
    controller.handleDecision(window.promptId, 'confirm', window)
    await expect(outcome).resolves.toMatchObject({
      status: 'changed',
      permissions: { mode: 'ask-for-approval', revision: 1, integrity: 'ok' },
    })
  })

  it('shows the workspace folder and lets the person accept one replaced under the same name by confirming the same mode', async () => {
    const windows = new FakeWindows()
    const controller = controllerWith(windows)
    const workspace = join(harness.root, `replaced-${randomUUID()}`)
    await mkdir(workspace)
    const room = await createRoom(harness, { workspace })
    await rename(workspace, `${workspace}.old`)
    await mkdir(workspace)
    expect(await harness.client.getPermissions(room.id)).toMatchObject({
      mode: 'ask-for-approval',
      workspaceMoved: true,
    })

    const outcome = controller.requestModeChange([room.id, 'ask-for-approval'])
    const window = await windowShown(windows)
    expect(window.views[0]).toMatchObject({
      subject: 'mode-change',
      toMode: 'ask-for-approval',
      workspace,
    })
    controller.handleDecision(window.promptId, 'confirm', window)
    const changed = await outcome
    expect(changed).toMatchObject({ status: 'changed', permissions: { revision: 1 } })
    expect(changed.status === 'changed' && 'workspaceMoved' in changed.permissions).toBe(false)
    await expect(
      controller.requestModeChange([room.id, 'ask-for-approval']),
    ).resolves.toMatchObject({ status: 'unchanged' })
  })

  it('enters plan mode with no window and no token, and needs the window to leave it', async () => {
    const windows = new FakeWindows()
    const controller = controllerWith(windows)
    const room = await createRoom(harness)
    await expect(controller.requestModeChange([room.id, 'plan'])).resolves.toMatchObject({
      status: 'changed',
      permissions: { mode: 'plan', revision: 1, policy: MODE_PRESETS.plan },
    })
    expect(windows.opened).toHaveLength(0)

    const leaving = controller.requestModeChange([room.id, 'ask-for-approval'])
    const window = await windowShown(windows)
    expect(window.views[0]).toMatchObject({
      subject: 'mode-change',
      fromMode: 'plan',
      toMode: 'ask-for-approval',
    })
    controller.handleDecision(window.promptId, 'confirm', window)
    await expect(leaving).resolves.toMatchObject({
      status: 'changed',
      permissions: { mode: 'ask-for-approval', revision: 2 },
    })
  })

  it('refuses, with the enable delay, to let plan mode be left sooner than the person could see it', async () => {
    const windows = new FakeWindows()
    // Main's clock, moved by hand; it starts at the real time so the token
    // it mints is not already expired for the runtime.
    let now = Date.now()
    const controller = controllerWith(windows, {
      enableDelayMs: 600,
      now: () => now,
      monotonicNow: () => now,
    })
    const room = await createRoom(harness)
    await controller.requestModeChange([room.id, 'plan'])
    const leaving = controller.requestModeChange([room.id, 'full-access'])
    const window = await windowShown(windows)
    controller.handleDecision(window.promptId, 'confirm', window)
    expect((await harness.client.getPermissions(room.id)).mode).toBe('plan')
    now += 600
    controller.handleDecision(window.promptId, 'confirm', window)
    await expect(leaving).resolves.toMatchObject({ status: 'changed' })
    expect((await harness.client.getPermissions(room.id)).mode).toBe('full-access')
  })

  it('opens the window to enter plan mode in a room edited outside Assent, which needs vouching for', async () => {
    const windows = new FakeWindows()
    const controller = controllerWith(windows)
    const room = await createRoom(harness)
    await tamperWithRoomPolicy(harness, room.id)
    const outcome = controller.requestModeChange([room.id, 'plan'])
    const window = await windowShown(windows)
    expect(window.views[0]).toMatchObject({ subject: 'mode-change', toMode: 'plan' })
    controller.handleDecision(window.promptId, 'confirm', window)
    await expect(outcome).resolves.toMatchObject({
      status: 'changed',
      permissions: { mode: 'plan', integrity: 'ok' },
    })
  })

  it('mints a token that lives 30 seconds', async () => {
    const windows = new FakeWindows()
    let minted: string | undefined
    const client = Object.create(harness.client) as typeof harness.client
    client.decideApproval = async (id, decision, token, digest) => {
      minted = token
      return harness.client.decideApproval(id, decision, token, digest)
    }
    const now = Date.now()
    const controller = controllerWith(windows, { client, now: () => now })
    const room = await createRoom(harness)
    const view = await pendingApprovalFor(harness, room.id, 'write lifetime.txt x')
    const outcome = controller.reviewApproval([view.approval.id])
    const window = await windowShown(windows)
    controller.handleDecision(window.promptId, 'deny', window)
    await outcome
    expect(parseConsentToken(minted ?? '')?.expiresAtMs).toBe(now + 30_000)
  })
  it('mints a token bound to the approval, the decision, the digest shown and the live instance', async () => {
    const windows = new FakeWindows()
    const sent: Array<{ token: string; decision: ApprovalDecision; digest: string }> = []
    const client = Object.create(harness.client) as typeof harness.client
    client.decideApproval = async (id, decision, token, digest) => {
      sent.push({ token, decision, digest })
      return harness.client.decideApproval(id, decision, token, digest)
    }
    const controller = controllerWith(windows, { client })
    const room = await createRoom(harness)
    const view = await pendingApprovalFor(harness, room.id, 'write bound.txt x')
    const outcome = controller.reviewApproval([view.approval.id])
    const window = await windowShown(windows)
    const shown = window.views[0]
    const shownPrefix = shown?.subject === 'approval' ? shown.digestPrefix : undefined
    const { consentKey, instanceId } = harness.connection()
    controller.handleDecision(window.promptId, 'allow-once', window)
    await expect(outcome).resolves.toMatchObject({ status: 'decided', decision: 'allow-once' })
    expect(sent).toHaveLength(1)
    const [{ token, decision, digest }] = sent as [(typeof sent)[number]]
    expect(decision).toBe('allow-once')
    // The digest main binds is the one whose prefix the window displayed.
    expect(digest).toBe(view.actionDigest)
    expect(shownPrefix).toBe(digest.slice(0, 12))
    const subject = { approvalId: view.approval.id, decision, actionDigest: digest, instanceId }
    // A fresh verifier per check: verify() burns the nonce even on a mismatch.
    const verifies = (changes: Partial<typeof subject>) =>
      new ConsentTokenVerifier({ key: consentKey, now: Date.now }).verify(token, {
        kind: 'approval',
        subject: { ...subject, ...changes },
      })
    expect(verifies({})).toBe(true)
    const otherDigest = `${digest.slice(0, -1)}${digest.endsWith('0') ? '1' : '0'}`
    for (const changes of [
      { actionDigest: otherDigest },
      { actionDigest: view.actionDigest.replace(/^./, (c) => (c === 'a' ? 'b' : 'a')) },
      { decision: 'allow-always' as const },
      { decision: 'deny' as const },
      { instanceId: `${instanceId}-previous` },
      { approvalId: `${view.approval.id}x` },
    ]) {
      expect(verifies(changes), JSON.stringify(changes)).toBe(false)
    }
  })
  it('reports a failure, not a decision, when the runtime answers a decision off-contract', async () => {
    const windows = new FakeWindows()
    const client = Object.create(harness.client) as typeof harness.client
    client.decideApproval = async () => ({ status: 200, body: { approval: { status: 'allowed' } } })
    const controller = controllerWith(windows, { client })
    const room = await createRoom(harness)
    const view = await pendingApprovalFor(harness, room.id, 'write offcontract.txt x')
    const outcome = controller.reviewApproval([view.approval.id])
    const window = await windowShown(windows)
    controller.handleDecision(window.promptId, 'allow-once', window)
    await expect(outcome).resolves.toEqual({
      status: 'failed',
      error: {
        code: 'runtime_unreadable',
        detail: expect.stringMatching(/did not match its contract/),
      },
    })
    expect(window.closed).toBe(true)
  })
})
