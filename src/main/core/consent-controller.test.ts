import { describe, expect, it } from 'vitest'
import { CONSENT_WINDOW_SIZE, WINDOW_LEFT_PAGE } from './consent-controller.ts'
import type { ProtectedWindowFactory } from './host-port.ts'
import {
  BareWindow,
  consentHarness,
  settle,
  stateOf,
  type ConsentHarness,
} from '../../../tests/support/consent-harness.ts'
import { pendingApproval, sensitiveForm } from '../../../tests/support/fake-runtime-client.ts'

/** Stores pending approvals, forms and nothing else: rooms need nothing. */
function withSubjects(harness: ConsentHarness) {
  for (const id of ['ap-1', 'ap-2']) {
    harness.runtime.approvals.set(id, pendingApproval(id, harness.clock.wall - 1_000))
  }
  for (const id of ['form-1', 'form-2']) harness.runtime.forms.set(id, sensitiveForm(id))
  return harness
}

describe('what the workbench may ask of the consent controller', () => {
  it('refuses anything but the subject’s id, naming the call', async () => {
    const { controller, windows } = consentHarness()
    const calls: Array<[Promise<unknown>, string]> = [
      [controller.reviewApproval(['ap-1', 'allow-once']), 'reviewApproval(approvalId)'],
      [controller.requestModeChange(['room-1', 'root']), 'requestModeChange(roomId, mode)'],
      [controller.openSensitiveForm([{ id: 'form-1' }]), 'openSensitiveForm(requestId)'],
      [controller.requestApproverWebhook(['room-1']), 'requestApproverWebhook(roomId, url | null)'],
    ]
    for (const [call, usage] of calls) {
      await expect(call).rejects.toMatchObject({
        code: 'invalid_arguments',
        message: `${usage} takes exactly those arguments; decisions are made only in the protected window`,
      })
    }
    expect(windows.opened).toEqual([])
  })

  it('opens nothing while the runtime is down, and opens once it is back', async () => {
    const harness = withSubjects(consentHarness())
    harness.connection = undefined
    await expect(harness.controller.reviewApproval(['ap-1'])).rejects.toMatchObject({
      code: 'runtime_down',
      message: 'the runtime is not running',
    })
    expect(harness.windows.opened).toEqual([])
    harness.connection = {
      port: 1,
      instanceId: 'i',
      bearerToken: 'b',
      consentKey: Buffer.alloc(32),
    }
    void harness.controller.reviewApproval(['ap-1'])
    await settle()
    expect(harness.windows.opened).toHaveLength(1)
  })
})

describe('one review per subject', () => {
  it('shares the open review of a subject, focusing its window again', async () => {
    const harness = withSubjects(consentHarness({ mayTakeFocus: undefined }))
    const first = harness.controller.reviewApproval(['ap-1'])
    // Asked again before the window even opened: the same review.
    const early = harness.controller.reviewApproval(['ap-1'])
    await settle()
    const window = harness.windows.last()
    expect(window.shownHow).toEqual([{ activate: true }])
    expect(window.focusCount).toBe(1)
    const later = harness.controller.reviewApproval(['ap-1'])
    expect([window.focusCount, window.attentionCount]).toEqual([2, 0])
    expect(harness.windows.opened).toHaveLength(1)
    expect(harness.controller.openPromptCount).toBe(1)
    window.close()
    expect(await stateOf(Promise.all([first, early, later]))).toEqual(
      Array(3).fill({ status: 'cancelled' }),
    )
    expect(harness.controller.openPromptCount).toBe(0)
    // Once it ended, the subject can be reviewed afresh.
    void harness.controller.reviewApproval(['ap-1'])
    await settle()
    expect(harness.windows.opened).toHaveLength(2)
  })

  it('shows without focus, and asks for attention, a review asked for without a press', async () => {
    let pressed = false
    const harness = withSubjects(consentHarness({ mayTakeFocus: () => pressed }))
    const asked = [harness.controller.reviewApproval(['ap-1'])]
    asked.push(harness.controller.reviewApproval(['ap-1']))
    await settle()
    const window = harness.windows.last()
    expect(window.shownHow).toEqual([{ activate: false }])
    expect(window.focusCount).toBe(0)
    asked.push(harness.controller.reviewApproval(['ap-1']))
    expect([window.focusCount, window.attentionCount]).toEqual([0, 1])
    pressed = true
    asked.push(harness.controller.reviewApproval(['ap-1']))
    expect([window.focusCount, window.attentionCount]).toEqual([1, 1])
    harness.controller.handleDecision(window.promptId, 'deny', window)
    expect(await stateOf(Promise.all(asked))).toEqual(
      Array(4).fill(expect.objectContaining({ status: 'decided', decision: 'deny' })),
    )
    expect(harness.windows.opened).toHaveLength(1)
  })

  it('opens a window of its own for each subject of each kind', async () => {
    const harness = withSubjects(consentHarness())
    const { controller } = harness
    const outcomes = [
      controller.reviewApproval(['ap-1']),
      controller.reviewApproval(['ap-2']),
      controller.requestModeChange(['room-1', 'full-access']),
      controller.requestModeChange(['room-2', 'full-access']),
      controller.requestApproverWebhook(['room-1', 'https://approver.example/a']),
      controller.requestApproverWebhook(['room-2', 'https://approver.example/b']),
      controller.openSensitiveForm(['form-1']),
      controller.openSensitiveForm(['form-2']),
    ]
    await settle()
    expect(harness.windows.opened).toHaveLength(8)
    expect(harness.windows.sizes).toEqual(Array(8).fill(CONSENT_WINDOW_SIZE))
    expect(CONSENT_WINDOW_SIZE).toEqual({ width: 560, height: 680 })
    expect(controller.openPromptCount).toBe(8)
    const reason = { code: 'runtime_restarted', detail: 'the runtime restarted' } as const
    controller.closeAll(reason)
    for (const outcome of outcomes)
      expect(await stateOf(outcome)).toEqual({ status: 'closed', reason })
    expect(harness.windows.opened.every((window) => window.closed)).toBe(true)
    expect(controller.openPromptCount).toBe(0)
  })
})

describe('the protected window’s own life', () => {
  it('ends the review cancelled when the window is closed, sending nothing', async () => {
    const harness = withSubjects(consentHarness())
    const outcome = harness.controller.reviewApproval(['ap-1'])
    await settle()
    const window = harness.windows.last()
    window.close()
    expect(await stateOf(outcome)).toEqual({ status: 'cancelled' })
    harness.controller.handleDecision(window.promptId, 'allow-once', window)
    await settle()
    expect(harness.runtime.decisions).toEqual([])
  })

  it('shows the same view again after a reload, and closes a window that left its page', async () => {
    const harness = withSubjects(consentHarness())
    const reloaded = harness.controller.reviewApproval(['ap-1'])
    const left = harness.controller.reviewApproval(['ap-2'])
    await settle()
    const [first, second] = harness.windows.opened
    first!.resetPage(true)
    await settle()
    expect(first!.views).toHaveLength(2)
    expect(first!.views[1]).toEqual(first!.views[0])
    expect(await stateOf(reloaded)).toBe('pending')
    second!.resetPage(false)
    expect(await stateOf(left)).toEqual({ status: 'closed', reason: WINDOW_LEFT_PAGE })
    expect(WINDOW_LEFT_PAGE).toEqual({
      code: 'window_left_page',
      detail: 'the protected window left its page, so it was closed',
    })
    expect(second!.closed).toBe(true)
    // A page reset after the review ended changes nothing.
    first!.close()
    first!.resetPage(true)
    second!.resetPage(true)
    await settle()
    expect([first!.views.length, second!.views.length]).toEqual([2, 1])
    expect(await stateOf(reloaded)).toEqual({ status: 'cancelled' })
  })

  it('ends the review failed when the window cannot show the view', async () => {
    const harness = withSubjects(consentHarness())
    harness.windows.prepare = (window) => {
      window.beforeShown = () => Promise.reject(new Error('the window was destroyed'))
    }
    const outcome = harness.controller.reviewApproval(['ap-1'])
    expect(await stateOf(outcome)).toEqual({
      status: 'failed',
      error: { code: 'window_not_shown', detail: 'the window was destroyed' },
    })
    expect(harness.windows.last().closed).toBe(true)
    expect(harness.controller.openPromptCount).toBe(0)
  })

  it('works with a host that has none of the optional window abilities', async () => {
    const opened: BareWindow[] = []
    const windows: ProtectedWindowFactory = {
      open: async (promptId) => {
        const window = new BareWindow(promptId)
        opened.push(window)
        return window
      },
    }
    const harness = withSubjects(consentHarness({ windows, mayTakeFocus: () => false }))
    const outcome = harness.controller.reviewApproval(['ap-1'])
    await settle()
    const [window] = opened
    const again = harness.controller.reviewApproval(['ap-1'])
    harness.controller.handleDecision(window!.promptId, 'confirm', window!)
    expect(harness.diagnostics).toEqual([
      `ignored an answer that does not fit prompt ${window!.promptId}`,
    ])
    harness.controller.handleDecision(window!.promptId, 'allow-once', window!)
    expect(await stateOf(outcome)).toMatchObject({ status: 'decided', decision: 'allow-once' })
    expect(await stateOf(again)).toMatchObject({ status: 'decided', decision: 'allow-once' })
    expect(window!.closed).toBe(true)
  })

  it('leaves diagnostics out when nobody listens for them', async () => {
    const harness = withSubjects(consentHarness({ onDiagnostic: undefined }))
    const outcome = harness.controller.reviewApproval(['ap-1'])
    await settle()
    const window = harness.windows.last()
    harness.controller.handleDecision('no-such-prompt', 'allow-once', window)
    harness.controller.handleDecision(window.promptId, 'confirm', window)
    expect(window.refusedCount).toBe(1)
    harness.controller.handleDecision(window.promptId, 'deny', window)
    expect(await stateOf(outcome)).toMatchObject({ status: 'decided', decision: 'deny' })
  })
})
