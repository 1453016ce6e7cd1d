import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  ConsentController,
  WINDOW_LEFT_PAGE,
  type ConsentControllerOptions,
} from '../src/main/core/consent-controller.ts'
import { FakeWindows, type FakeWindow } from './support/fake-protected-windows.ts'
import { startHarness, type RuntimeHarness } from './support/runtime-harness.ts'
import { createRoom, pendingApprovalFor } from './support/room-helpers.ts'

// Main's own half of the enable delay (docs/architecture.md §3), with an
// injected clock: the preload is not consulted, so each decision below is
// what a compromised renderer could send at that moment.

const DELAY_MS = 600
/** Long enough that nothing expires while a test moves its clock. */
const SETTLE_MS = 150

let harness: RuntimeHarness
beforeAll(async () => {
  harness = await startHarness()
})
afterAll(async () => {
  await harness?.close()
})

/** A clock that starts at the real time (approvals expire by it) and moves
 *  only when the test says so. */
function testClock() {
  const start = Date.now()
  let elapsed = 0
  return {
    now: () => start + elapsed,
    at(ms: number) {
      elapsed = ms
    },
  }
}

function controllerWith(windows: FakeWindows, extra: Partial<ConsentControllerOptions> = {}) {
  return new ConsentController({
    client: harness.client,
    connection: () => harness.supervisor.current,
    windows,
    preferences: () => ({ lang: 'en', theme: 'light' }),
    enableDelayMs: DELAY_MS,
    ...extra,
  })
}

const settle = () => new Promise((resolve) => setTimeout(resolve, SETTLE_MS))

async function approvalStatus(approvalId: string) {
  return (await harness.client.getApproval(approvalId)).approval.status
}

async function openApproval(text: string) {
  const clock = testClock()
  const windows = new FakeWindows()
  const diagnostics: string[] = []
  const controller = controllerWith(windows, {
    now: clock.now,
    monotonicNow: clock.now,
    onDiagnostic: (message) => diagnostics.push(message),
  })
  const room = await createRoom(harness)
  const view = await pendingApprovalFor(harness, room.id, text)
  const outcome = controller.reviewApproval([view.approval.id])
  const window: FakeWindow = await windows.nextShown()
  // Main records the show only once show() resolved and it focused the window.
  await settle()
  // What main said about opening it is not what the tests below look at.
  diagnostics.splice(0)
  return { clock, controller, view, outcome, window, diagnostics }
}

/** What main says when it refuses `answer` on `promptId` for coming early. */
const tooEarly = (answer: string, promptId: string) =>
  `ignored ${answer} before the enable delay had passed (${promptId})`

describe('main refuses a widening answer that comes sooner than the enable delay', () => {
  it('refuses allow-once a millisecond early and takes it on time, whatever the preload says', async () => {
    const { clock, controller, view, outcome, window, diagnostics } =
      await openApproval('write early.txt x')
    clock.at(DELAY_MS - 1)
    // Refused as it arrives: nothing waits to see whether a decision lands.
    controller.handleDecision(window.promptId, 'allow-once', window)
    controller.handleDecision(window.promptId, 'allow-always', window)
    expect(diagnostics).toEqual([
      tooEarly('allow-once', window.promptId),
      tooEarly('allow-always', window.promptId),
    ])
    expect(window.closed).toBe(false)
    expect(await approvalStatus(view.approval.id)).toBe('pending')

    clock.at(DELAY_MS)
    controller.handleDecision(window.promptId, 'allow-once', window)
    await expect(outcome).resolves.toMatchObject({ status: 'decided', decision: 'allow-once' })
  })

  it('tells the window each time it refuses, so the page re-arms its buttons', async () => {
    const { clock, controller, outcome, window } = await openApproval('write rearm.txt x')
    clock.at(DELAY_MS - 1)
    controller.handleDecision(window.promptId, 'allow-once', window)
    expect(window.refusedCount).toBe(1)
    window.focused = false
    clock.at(DELAY_MS)
    controller.handleDecision(window.promptId, 'allow-once', window)
    expect(window.refusedCount).toBe(2)
    window.focused = true
    controller.handleDecision(window.promptId, 'allow-once', window)
    await expect(outcome).resolves.toMatchObject({ status: 'decided', decision: 'allow-once' })
    expect(window.refusedCount).toBe(2)
  })

  it('times the delay on the monotonic clock: a wall clock set forward does not shorten it', async () => {
    const monotonic = testClock()
    const wall = testClock()
    const windows = new FakeWindows()
    const controller = controllerWith(windows, { now: wall.now, monotonicNow: monotonic.now })
    const room = await createRoom(harness)
    const view = await pendingApprovalFor(harness, room.id, 'write wall-clock.txt x')
    const outcome = controller.reviewApproval([view.approval.id])
    const window = await windows.nextShown()
    await settle()
    // The system clock jumps an hour ahead (NTP, the person, a resume).
    wall.at(60 * 60 * 1_000)
    monotonic.at(DELAY_MS - 1)
    controller.handleDecision(window.promptId, 'allow-once', window)
    expect(await approvalStatus(view.approval.id)).toBe('pending')
    monotonic.at(DELAY_MS)
    wall.at(0)
    controller.handleDecision(window.promptId, 'allow-once', window)
    await expect(outcome).resolves.toMatchObject({ status: 'decided', decision: 'allow-once' })
  })

  it('starts the delay when the page reported it drew the view, not when the view was sent', async () => {
    const clock = testClock()
    const windows = new FakeWindows()
    const controller = controllerWith(windows, { now: clock.now, monotonicNow: clock.now })
    const drawnAfterMs = 400
    const open = windows.open.bind(windows)
    windows.open = async (promptId: string) => {
      const window = await open(promptId)
      window.drawnAt = () => clock.now() + drawnAfterMs
      return window
    }
    const room = await createRoom(harness)
    const view = await pendingApprovalFor(harness, room.id, 'write drawn.txt x')
    const outcome = controller.reviewApproval([view.approval.id])
    const window = await windows.nextShown()
    await settle()
    clock.at(drawnAfterMs + DELAY_MS - 1)
    controller.handleDecision(window.promptId, 'allow-once', window)
    expect(await approvalStatus(view.approval.id)).toBe('pending')
    clock.at(drawnAfterMs + DELAY_MS)
    controller.handleDecision(window.promptId, 'allow-once', window)
    await expect(outcome).resolves.toMatchObject({ status: 'decided', decision: 'allow-once' })
  })

  it('takes a deny at once: it widens nothing', async () => {
    const { controller, outcome, window } = await openApproval('write deny-now.txt x')
    controller.handleDecision(window.promptId, 'deny', window)
    await expect(outcome).resolves.toMatchObject({ status: 'decided', decision: 'deny' })
  })

  it('times the delay again from the latest focus of the window', async () => {
    const { clock, controller, view, outcome, window, diagnostics } =
      await openApproval('write refocus.txt x')
    clock.at(5_000)
    window.regainFocus()
    clock.at(5_000 + DELAY_MS - 1)
    controller.handleDecision(window.promptId, 'allow-once', window)
    expect(diagnostics).toEqual([tooEarly('allow-once', window.promptId)])
    expect(await approvalStatus(view.approval.id)).toBe('pending')
    clock.at(5_000 + DELAY_MS)
    controller.handleDecision(window.promptId, 'allow-once', window)
    await expect(outcome).resolves.toMatchObject({ status: 'decided', decision: 'allow-once' })
  })

  it('refuses widening a room early, and takes narrowing it at once', async () => {
    const clock = testClock()
    const windows = new FakeWindows()
    const diagnostics: string[] = []
    const controller = controllerWith(windows, {
      now: clock.now,
      monotonicNow: clock.now,
      onDiagnostic: (message) => diagnostics.push(message),
    })
    const room = await createRoom(harness)
    const widen = controller.requestModeChange([room.id, 'full-access'])
    const window = await windows.nextShown()
    await settle()
    diagnostics.splice(0)
    controller.handleDecision(window.promptId, 'confirm', window)
    expect(diagnostics).toEqual([tooEarly('confirm', window.promptId)])
    expect((await harness.client.getPermissions(room.id)).mode).toBe('ask-for-approval')
    clock.at(DELAY_MS)
    controller.handleDecision(window.promptId, 'confirm', window)
    await expect(widen).resolves.toMatchObject({ status: 'changed' })

    const narrow = controller.requestModeChange([room.id, 'ask-for-approval'])
    const second = await windows.nextShown()
    await settle()
    controller.handleDecision(second.promptId, 'confirm', second)
    await expect(narrow).resolves.toMatchObject({
      status: 'changed',
      permissions: { mode: 'ask-for-approval' },
    })
  })
})

describe('a review the workbench asks for without a press just before', () => {
  it('is shown without focus and asks for attention, and focused only after a press', async () => {
    let pressed = false
    const windows = new FakeWindows()
    const controller = controllerWith(windows, { mayTakeFocus: () => pressed })
    const room = await createRoom(harness)
    const view = await pendingApprovalFor(harness, room.id, 'write unfocused.txt x')
    const outcome = controller.reviewApproval([view.approval.id])
    const window = await windows.nextShown()
    await settle()
    expect(window.shownHow).toEqual([{ activate: false }])
    expect(window.focusCount).toBe(0)
    // Asked for again, still without a press: attention, never focus.
    void controller.reviewApproval([view.approval.id])
    expect(window.attentionCount).toBe(1)
    expect(window.focusCount).toBe(0)
    pressed = true
    void controller.reviewApproval([view.approval.id])
    expect(window.focusCount).toBe(1)
    controller.handleDecision(window.promptId, 'deny', window)
    await expect(outcome).resolves.toMatchObject({ status: 'decided', decision: 'deny' })
  })

  it('is shown focused when the press came just before', async () => {
    const windows = new FakeWindows()
    const controller = controllerWith(windows, { mayTakeFocus: () => true })
    const room = await createRoom(harness)
    const view = await pendingApprovalFor(harness, room.id, 'write focused.txt x')
    const outcome = controller.reviewApproval([view.approval.id])
    const window = await windows.nextShown()
    await settle()
    expect(window.shownHow).toEqual([{ activate: true }])
    expect(window.focusCount).toBe(1)
    controller.handleDecision(window.promptId, 'deny', window)
    await outcome
  })
})

describe('a protected window whose page was reset', () => {
  it('shows its prompt again after a reload, timed afresh', async () => {
    const { clock, controller, outcome, window, view } = await openApproval('write reload.txt x')
    clock.at(10_000)
    window.resetPage(true)
    await settle()
    expect(window.views).toHaveLength(2)
    expect(window.views[1]).toEqual(window.views[0])
    controller.handleDecision(window.promptId, 'allow-once', window)
    await settle()
    expect(await approvalStatus(view.approval.id)).toBe('pending')
    clock.at(10_000 + DELAY_MS)
    controller.handleDecision(window.promptId, 'allow-once', window)
    await expect(outcome).resolves.toMatchObject({ status: 'decided', decision: 'allow-once' })
  })

  it('closes, and says why, when the window left the consent page', async () => {
    const { outcome, window, view } = await openApproval('write navigated.txt x')
    window.resetPage(false)
    await expect(outcome).resolves.toEqual({ status: 'closed', reason: WINDOW_LEFT_PAGE })
    expect(window.closed).toBe(true)
    expect(await approvalStatus(view.approval.id)).toBe('pending')
  })
})
