import { afterEach, describe, expect, it, vi } from 'vitest'
import {
  CONSENT_LIFETIME_MS,
  mintConsentToken,
  parseConsentToken,
} from '../../consent/consent-token.ts'
import type { ApprovalDecision, ConsentBinding } from '../../contracts/consent.ts'
import { RuntimeRequestError } from './runtime-client.ts'
import {
  CONSENT_KEY,
  consentHarness,
  settle,
  stateOf,
  tokenFits,
  type ConsentHarness,
} from '../../../tests/support/consent-harness.ts'
import { pendingApproval, permissionsOf } from '../../../tests/support/fake-runtime-client.ts'

const FIXED_RANDOM = (size: number) => Buffer.alloc(size, 7)

/** Stores a pending approval and opens its review; resolves once shown. */
async function review(harness: ConsentHarness, approvalId = 'ap-1', ttlMs = 120_000) {
  const view = pendingApproval(approvalId, harness.clock.wall - 1_000, ttlMs)
  harness.runtime.approvals.set(approvalId, view)
  const outcome = harness.controller.reviewApproval([approvalId])
  await settle()
  return { view, outcome, window: harness.windows.last() }
}

function bindingOf(
  approvalId: string,
  decision: ApprovalDecision,
  actionDigest: string,
): ConsentBinding {
  return {
    kind: 'approval',
    subject: { approvalId, decision, actionDigest, instanceId: 'instance-1' },
  }
}

/** A promise the test resolves when it chooses. */
function held<T>() {
  let release: (value: T) => void = () => undefined
  const promise = new Promise<T>((resolve) => (release = resolve))
  return { promise, release }
}

afterEach(() => {
  vi.useRealTimers()
})

describe('the consent controller deciding an approval', () => {
  it('sends a token bound to exactly the approval shown, with its digest, at the decision', async () => {
    const harness = consentHarness({ randomBytes: FIXED_RANDOM })
    const { view, outcome, window } = await review(harness)
    expect(harness.windows.sizes).toEqual([{ width: 560, height: 680 }])
    expect(window.views).toHaveLength(1)
    expect(window.views[0]).toMatchObject({
      subject: 'approval',
      promptId: window.promptId,
      roomLabel: 'Room room-1',
      lang: 'en',
      theme: 'light',
      enableDelayMs: 0,
    })
    harness.clock.wall += 250
    harness.controller.handleDecision(window.promptId, 'allow-always', window)
    expect(await stateOf(outcome)).toMatchObject({
      status: 'decided',
      decision: 'allow-always',
      approval: { id: 'ap-1', status: 'allowed' },
    })
    const [sent, ...others] = harness.runtime.decisions
    expect(others).toEqual([])
    expect(sent).toMatchObject({
      approvalId: 'ap-1',
      decision: 'allow-always',
      actionDigest: view.actionDigest,
    })
    const binding = bindingOf('ap-1', 'allow-always', view.actionDigest)
    const now = harness.clock.wall
    expect(sent?.token).toBe(
      mintConsentToken({ key: CONSENT_KEY, now, randomBytes: FIXED_RANDOM, binding }),
    )
    expect(parseConsentToken(sent?.token ?? '')?.expiresAtMs).toBe(now + CONSENT_LIFETIME_MS)
    expect(tokenFits(sent?.token ?? null, binding, now)).toBe(true)
    expect(
      tokenFits(sent?.token ?? null, bindingOf('ap-1', 'allow-once', view.actionDigest), now),
    ).toBe(false)
    expect(window.closed).toBe(true)
    expect(harness.controller.openPromptCount).toBe(0)
  })

  it('sends a deny the same way, and nothing for a cancel', async () => {
    const harness = consentHarness()
    const denied = await review(harness, 'ap-deny')
    harness.controller.handleDecision(denied.window.promptId, 'deny', denied.window)
    expect(await stateOf(denied.outcome)).toMatchObject({ status: 'decided', decision: 'deny' })
    const token = harness.runtime.decisions[0]?.token ?? null
    const binding = bindingOf('ap-deny', 'deny', denied.view.actionDigest)
    expect(tokenFits(token, binding, harness.clock.wall)).toBe(true)

    const cancelled = await review(harness, 'ap-cancel')
    harness.controller.handleDecision(cancelled.window.promptId, 'cancel', cancelled.window)
    expect(await stateOf(cancelled.outcome)).toEqual({ status: 'cancelled' })
    expect(cancelled.window.closed).toBe(true)
    await settle()
    expect(harness.runtime.decisions).toHaveLength(1)
    expect(harness.runtime.raws).toEqual([])
  })

  it('passes on the runtime’s refusal with its code, and an expiry as expired', async () => {
    const harness = consentHarness()
    harness.runtime.answerDecision = async () => ({
      status: 409,
      body: { error: 'approval ap-1 was already decided', code: 'approval_decided' },
    })
    const refused = await review(harness)
    harness.controller.handleDecision(refused.window.promptId, 'allow-once', refused.window)
    expect(await stateOf(refused.outcome)).toEqual({
      status: 'failed',
      error: { code: 'approval_decided', detail: 'approval ap-1 was already decided' },
    })
    expect(refused.window.closed).toBe(true)

    harness.runtime.answerDecision = async () => ({
      status: 409,
      body: { error: 'expired', code: 'approval_expired' },
    })
    const late = await review(harness, 'ap-2')
    harness.controller.handleDecision(late.window.promptId, 'allow-once', late.window)
    expect(await stateOf(late.outcome)).toEqual({ status: 'expired' })
  })

  it('ends the prompt failed, with the error’s code, when sending the decision throws', async () => {
    const harness = consentHarness()
    harness.runtime.answerDecision = async () => {
      throw new RuntimeRequestError(503, 'the runtime is not running')
    }
    const { outcome, window } = await review(harness)
    harness.controller.handleDecision(window.promptId, 'allow-once', window)
    expect(await stateOf(outcome)).toEqual({
      status: 'failed',
      error: { code: 'runtime_down', detail: 'the runtime is not running' },
    })
    expect(window.closed).toBe(true)
    expect(harness.controller.openPromptCount).toBe(0)
  })

  it('mints nothing for a runtime that restarted or stopped after the window opened', async () => {
    const harness = consentHarness()
    const restarted = await review(harness, 'ap-1')
    harness.connection = { ...harness.connection!, instanceId: 'instance-2' }
    harness.controller.handleDecision(restarted.window.promptId, 'allow-once', restarted.window)
    expect(await stateOf(restarted.outcome)).toMatchObject({
      status: 'closed',
      reason: { code: 'runtime_restarted' },
    })
    const stopped = await review(harness, 'ap-2')
    harness.connection = undefined
    harness.controller.handleDecision(stopped.window.promptId, 'allow-once', stopped.window)
    expect(await stateOf(stopped.outcome)).toMatchObject({
      status: 'closed',
      reason: { code: 'runtime_restarted' },
    })
    expect(harness.runtime.decisions).toEqual([])
  })

  it('takes one decision per prompt: a second one, while the first is sent, is ignored', async () => {
    const harness = consentHarness()
    const answer = held<void>()
    const answerDecision = harness.runtime.answerDecision
    harness.runtime.answerDecision = async (sent) => {
      await answer.promise
      return answerDecision(sent)
    }
    const { outcome, window } = await review(harness)
    harness.controller.handleDecision(window.promptId, 'allow-once', window)
    harness.controller.handleDecision(window.promptId, 'deny', window)
    expect(harness.diagnostics).toEqual([
      `ignored a decision for prompt ${window.promptId}: not open, not this window, or used`,
    ])
    expect(window.refusedCount).toBe(0)
    // The person closes the window, and main closes the review, while the
    // decision is on its way: the outcome is still the decision's.
    window.close()
    harness.controller.closeApprovalReview('ap-1', {
      code: 'rejected_by_message',
      detail: 'sent a message',
    })
    window.resetPage(true)
    expect(await stateOf(outcome)).toBe('pending')
    expect(window.views).toHaveLength(1)
    answer.release()
    expect(await stateOf(outcome)).toMatchObject({ status: 'decided', decision: 'allow-once' })
    expect(harness.runtime.decisions.map((sent) => sent.decision)).toEqual(['allow-once'])
  })

  it('ignores a decision for another prompt or from another window, without a word to it', async () => {
    const harness = consentHarness()
    const { outcome, window } = await review(harness)
    const other = await review(harness, 'ap-2')
    harness.controller.handleDecision('no-such-prompt', 'allow-once', window)
    harness.controller.handleDecision(window.promptId, 'allow-once', other.window)
    expect(harness.diagnostics).toEqual([
      'ignored a decision for prompt no-such-prompt: not open, not this window, or used',
      `ignored a decision for prompt ${window.promptId}: not open, not this window, or used`,
    ])
    expect([window.refusedCount, other.window.refusedCount]).toEqual([0, 0])
    expect(await stateOf(outcome)).toBe('pending')
    expect(await stateOf(other.outcome)).toBe('pending')
    expect(harness.runtime.decisions).toEqual([])
  })

  it('refuses an answer the window does not offer, and tells the page to re-arm', async () => {
    const harness = consentHarness()
    const { outcome, window } = await review(harness)
    harness.controller.handleDecision(window.promptId, 'confirm', window)
    harness.controller.handleDecision(window.promptId, 'approve', window)
    harness.controller.handleDecision(window.promptId, 'allow-always-server', window)
    expect(window.refusedCount).toBe(3)
    expect(harness.diagnostics).toEqual(
      Array(3).fill(`ignored an answer that does not fit prompt ${window.promptId}`),
    )
    expect(await stateOf(outcome)).toBe('pending')
    harness.controller.handleDecision(window.promptId, 'allow-once', window)
    expect(await stateOf(outcome)).toMatchObject({ status: 'decided', decision: 'allow-once' })
  })

  it('refuses any decision but cancel from a hidden or unfocused window', async () => {
    const harness = consentHarness()
    const { outcome, window } = await review(harness)
    window.visible = false
    harness.controller.handleDecision(window.promptId, 'allow-once', window)
    window.visible = true
    window.focused = false
    harness.controller.handleDecision(window.promptId, 'deny', window)
    expect(window.refusedCount).toBe(2)
    expect(harness.diagnostics).toEqual([
      `ignored a decision from a hidden or unfocused window (${window.promptId})`,
      `ignored a decision from a hidden or unfocused window (${window.promptId})`,
    ])
    expect(await stateOf(outcome)).toBe('pending')
    harness.controller.handleDecision(window.promptId, 'cancel', window)
    expect(await stateOf(outcome)).toEqual({ status: 'cancelled' })
    expect(harness.runtime.decisions).toEqual([])
  })

  it('closes only the named approval’s review, with the reason given', async () => {
    const harness = consentHarness()
    harness.runtime.permissions.set('room-1', permissionsOf('room-1', 'ask-for-approval'))
    const first = await review(harness, 'ap-1')
    const second = await review(harness, 'ap-2')
    const mode = harness.controller.requestModeChange(['room-1', 'approve-for-me'])
    await settle()
    const reason = { code: 'rejected_by_message', detail: 'the person sent a message' } as const
    harness.controller.closeApprovalReview('ap-1', reason)
    expect(await stateOf(first.outcome)).toEqual({ status: 'closed', reason })
    expect(first.window.closed).toBe(true)
    expect(second.window.closed).toBe(false)
    expect(await stateOf(second.outcome)).toBe('pending')
    expect(await stateOf(mode)).toBe('pending')
    expect(harness.controller.openPromptCount).toBe(2)
  })
})

describe('an approval’s expiry while its window is open', () => {
  it('closes the window when the approval expires, and not before', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    const harness = consentHarness()
    // Created 1 s ago for 6 s: 5 s left.
    const { outcome, window } = await review(harness, 'ap-1', 6_000)
    vi.advanceTimersByTime(4_999)
    expect(await stateOf(outcome)).toBe('pending')
    expect(window.closed).toBe(false)
    vi.advanceTimersByTime(1)
    expect(await stateOf(outcome)).toEqual({ status: 'expired' })
    expect(window.closed).toBe(true)
    expect(harness.controller.openPromptCount).toBe(0)
  })

  it('closes the window of an approval withdrawn early, minting nothing; a decision on its way and other reviews stay', async () => {
    const harness = consentHarness()
    harness.runtime.permissions.set('room-1', permissionsOf('room-1', 'ask-for-approval'))
    const answer = held<void>()
    const answerDecision = harness.runtime.answerDecision
    harness.runtime.answerDecision = async (sent) => {
      await answer.promise
      return answerDecision(sent)
    }
    const withdrawn = await review(harness, 'ap-1')
    const deciding = await review(harness, 'ap-2')
    const mode = harness.controller.requestModeChange(['room-1', 'approve-for-me'])
    await settle()
    harness.controller.approvalExpired('ap-1')
    expect(await stateOf(withdrawn.outcome)).toEqual({ status: 'expired' })
    expect(withdrawn.window.closed).toBe(true)
    harness.controller.handleDecision(deciding.window.promptId, 'allow-once', deciding.window)
    harness.controller.approvalExpired('ap-2')
    expect(deciding.window.closed).toBe(false)
    expect(await stateOf(mode)).toBe('pending')
    answer.release()
    expect(await stateOf(deciding.outcome)).toMatchObject({ status: 'decided' })
    expect(harness.runtime.decisions.map((sent) => sent.approvalId)).toEqual(['ap-2'])
  })

  it('stops the expiry timer when the review ends first, and sets none for a mode change', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    const harness = consentHarness()
    const { outcome, window } = await review(harness)
    expect(vi.getTimerCount()).toBe(1)
    harness.controller.handleDecision(window.promptId, 'deny', window)
    await stateOf(outcome)
    expect(vi.getTimerCount()).toBe(0)
    const mode = harness.controller.requestModeChange(['room-1', 'approve-for-me'])
    await settle()
    expect(harness.windows.opened).toHaveLength(2)
    vi.advanceTimersByTime(1_000_000)
    expect(await stateOf(mode)).toBe('pending')
  })
})
