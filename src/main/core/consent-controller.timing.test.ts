import { describe, expect, it } from 'vitest'
import { BUTTON_ENABLE_DELAY_MS } from '../../common/consent-view.ts'
import type { ConsentControllerOptions } from './consent-controller.ts'
import {
  consentHarness,
  settle,
  stateOf,
  tokenFits,
  type ConsentHarness,
} from '../../../tests/support/consent-harness.ts'
import { pendingApproval, permissionsOf } from '../../../tests/support/fake-runtime-client.ts'

/** A harness whose buttons enable after `delayMs`, with one approval open. */
async function reviewing(
  delayMs: number | undefined,
  options: Partial<ConsentControllerOptions> = {},
  createdAt?: number,
) {
  const harness = consentHarness({ enableDelayMs: delayMs, ...options })
  const view = pendingApproval('ap-1', (createdAt ?? harness.clock.wall) - 1_000)
  harness.runtime.approvals.set('ap-1', view)
  const outcome = harness.controller.reviewApproval(['ap-1'])
  await settle()
  return { harness, view, outcome, window: harness.windows.last() }
}

function tooEarly(harness: ConsentHarness, promptId: string, answer = 'allow-once') {
  return `ignored ${answer} before the enable delay had passed (${promptId})`
}

describe('main’s own enable delay', () => {
  it('refuses an allow before the default delay has passed since the view was sent', async () => {
    const { harness, outcome, window } = await reviewing(undefined)
    expect(window.views[0]).toMatchObject({ enableDelayMs: BUTTON_ENABLE_DELAY_MS })
    harness.clock.monotonic += BUTTON_ENABLE_DELAY_MS - 1
    harness.controller.handleDecision(window.promptId, 'allow-once', window)
    expect(window.refusedCount).toBe(1)
    expect(harness.diagnostics).toEqual([tooEarly(harness, window.promptId)])
    expect(await stateOf(outcome)).toBe('pending')
    harness.clock.monotonic += 1
    harness.controller.handleDecision(window.promptId, 'allow-once', window)
    expect(await stateOf(outcome)).toMatchObject({ status: 'decided', decision: 'allow-once' })
  })

  it('takes a deny or a cancel at once, however early', async () => {
    const denied = await reviewing(10_000)
    denied.harness.controller.handleDecision(denied.window.promptId, 'deny', denied.window)
    expect(await stateOf(denied.outcome)).toMatchObject({ status: 'decided', decision: 'deny' })
    const cancelled = await reviewing(10_000)
    cancelled.harness.controller.handleDecision(
      cancelled.window.promptId,
      'cancel',
      cancelled.window,
    )
    expect(await stateOf(cancelled.outcome)).toEqual({ status: 'cancelled' })
  })

  it('times a widening mode change, but not a narrowing one', async () => {
    const harness = consentHarness({ enableDelayMs: 500 })
    harness.runtime.permissions.set('wide', permissionsOf('wide', 'ask-for-approval'))
    harness.runtime.permissions.set('narrow', permissionsOf('narrow', 'full-access'))
    const widening = harness.controller.requestModeChange(['wide', 'full-access'])
    const narrowing = harness.controller.requestModeChange(['narrow', 'ask-for-approval'])
    await settle()
    const [wide, narrow] = harness.windows.opened
    harness.controller.handleDecision(wide!.promptId, 'confirm', wide!)
    harness.controller.handleDecision(narrow!.promptId, 'confirm', narrow!)
    expect(harness.diagnostics).toEqual([tooEarly(harness, wide!.promptId, 'confirm')])
    expect(await stateOf(widening)).toBe('pending')
    expect(await stateOf(narrowing)).toMatchObject({ status: 'changed' })
  })

  // A room whose settings failed their check reads as ask-for-approval;
  // entering plan from it is the narrowing that would seal it again.
  it.each([
    ['whose folder was replaced', { workspaceMoved: true }, { acceptsReplacedWorkspace: true }],
    ['whose settings failed their check', { integrity: 'tampered' }, { resealsRoom: true }],
    ['rolled back', { integrity: 'rolled-back' }, { resealsRoom: true }],
  ] as const)(
    'times a narrowing confirm on a room %s, says so in the view and binds it into the token',
    async (_case, reported, said) => {
      const harness = consentHarness({ enableDelayMs: 500 })
      const from = 'workspaceMoved' in reported ? 'approve-for-me' : 'ask-for-approval'
      const to = 'workspaceMoved' in reported ? 'ask-for-approval' : 'plan'
      const permissions = { ...permissionsOf('room-1', from), ...reported }
      harness.runtime.permissions.set('room-1', permissions)
      const narrowing = harness.controller.requestModeChange(['room-1', to])
      await settle()
      const window = harness.windows.last()
      expect(window.views[0]).toMatchObject({ fromMode: from, toMode: to, ...said })
      harness.controller.handleDecision(window.promptId, 'confirm', window)
      expect(harness.diagnostics).toEqual([tooEarly(harness, window.promptId, 'confirm')])
      expect(await stateOf(narrowing)).toBe('pending')
      harness.clock.monotonic += 500
      harness.controller.handleDecision(window.promptId, 'confirm', window)
      expect(await stateOf(narrowing)).toMatchObject({ status: 'changed' })
      const [sent] = harness.runtime.permissionChanges
      expect(sent?.change).toEqual({
        clientRequestId: sent?.change.clientRequestId,
        expectedRevision: 3,
        mode: to,
        ...said,
      })
      const subject = { roomId: 'room-1', ...sent!.change, instanceId: 'instance-1' }
      const { [Object.keys(said)[0] as keyof typeof said]: _said, ...unsaid } = subject
      const fits = (bound: object) =>
        tokenFits(
          sent!.token,
          { kind: 'room-permission', subject: bound } as never,
          harness.clock.wall,
        )
      expect(fits(subject)).toBe(true)
      expect(fits(unsaid)).toBe(false)
    },
  )

  it('restarts the delay when the window regains focus', async () => {
    const { harness, outcome, window } = await reviewing(100)
    harness.clock.monotonic += 80
    window.regainFocus()
    harness.clock.monotonic += 70
    harness.controller.handleDecision(window.promptId, 'allow-once', window)
    expect(window.refusedCount).toBe(1)
    harness.clock.monotonic += 30
    harness.controller.handleDecision(window.promptId, 'allow-once', window)
    expect(await stateOf(outcome)).toMatchObject({ status: 'decided' })
  })

  it('times a reloaded page afresh from its drawing, not from a focus while it draws', async () => {
    const { harness, outcome, window } = await reviewing(100)
    harness.clock.monotonic += 1_000
    let drawn: () => void = () => undefined
    window.beforeShown = () => new Promise((resolve) => (drawn = resolve))
    window.drawnAt = () => harness.clock.monotonic
    window.resetPage(true)
    await settle()
    expect(window.views).toHaveLength(2)
    window.regainFocus()
    harness.clock.monotonic += 500
    harness.controller.handleDecision(window.promptId, 'allow-once', window)
    expect(window.refusedCount).toBe(1)
    drawn()
    await settle()
    harness.controller.handleDecision(window.promptId, 'allow-once', window)
    expect(window.refusedCount).toBe(2)
    harness.clock.monotonic += 100
    harness.controller.handleDecision(window.promptId, 'allow-once', window)
    expect(await stateOf(outcome)).toMatchObject({ status: 'decided' })
  })

  it('times from when the page drew the view, but never from before it was sent', async () => {
    const late = consentHarness({ enableDelayMs: 100 })
    const early = consentHarness({ enableDelayMs: 100 })
    late.windows.prepare = (window) => (window.drawnAt = () => late.clock.monotonic + 50)
    early.windows.prepare = (window) => (window.drawnAt = () => early.clock.monotonic - 500)
    const reviews = [late, early].map((harness) => {
      harness.runtime.approvals.set('ap-1', pendingApproval('ap-1', harness.clock.wall - 1_000))
      return harness.controller.reviewApproval(['ap-1'])
    })
    await settle()
    const decide = (harness: ConsentHarness) => {
      const window = harness.windows.last()
      harness.controller.handleDecision(window.promptId, 'allow-once', window)
      return window.refusedCount
    }
    late.clock.monotonic += 149
    early.clock.monotonic += 99
    expect([decide(late), decide(early)]).toEqual([1, 1])
    late.clock.monotonic += 1
    early.clock.monotonic += 1
    expect([decide(late), decide(early)]).toEqual([1, 1])
    for (const outcome of reviews)
      expect(await stateOf(outcome)).toMatchObject({ status: 'decided' })
  })

  it('runs on the real clocks when given none', async () => {
    const { harness, view, outcome, window } = await reviewing(
      0,
      { now: undefined, monotonicNow: undefined },
      Date.now(),
    )
    const before = Date.now()
    harness.controller.handleDecision(window.promptId, 'allow-once', window)
    expect(await stateOf(outcome)).toMatchObject({ status: 'decided' })
    const token = harness.runtime.decisions[0]?.token ?? null
    const subject = {
      approvalId: 'ap-1',
      decision: 'allow-once',
      actionDigest: view.actionDigest,
      instanceId: 'instance-1',
    } as const
    // Minted on the wall clock: valid now, which a token minted on any
    // other clock would not be.
    expect(tokenFits(token, { kind: 'approval', subject }, before)).toBe(true)
  })
})
