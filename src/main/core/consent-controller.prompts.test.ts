import { describe, expect, it } from 'vitest'
import { RuntimeRequestError } from './runtime-client.ts'
import {
  consentHarness,
  settle,
  stateOf,
  tokenFits,
  type ConsentHarness,
} from '../../../tests/support/consent-harness.ts'
import { permissionsOf, sensitiveForm } from '../../../tests/support/fake-runtime-client.ts'

const HOOK = 'https://approver.example/hook'
const FORM_ANSWER_PATH = '/v1/input-requests/form-1/protected-response'

async function openForm(harness: ConsentHarness, requestId = 'form-1') {
  harness.runtime.forms.set(requestId, sensitiveForm(requestId))
  const outcome = harness.controller.openSensitiveForm([requestId])
  await settle()
  return { outcome, window: harness.windows.last() }
}

describe('the consent controller changing a room’s mode', () => {
  it('sends the change with a token bound to the room, revision and mode shown', async () => {
    const harness = consentHarness()
    harness.runtime.permissions.set('room-1', permissionsOf('room-1', 'ask-for-approval', 4))
    const outcome = harness.controller.requestModeChange(['room-1', 'approve-for-me'])
    await settle()
    const window = harness.windows.last()
    expect(window.views).toEqual([
      expect.objectContaining({
        subject: 'mode-change',
        promptId: window.promptId,
        roomLabel: 'Room room-1',
        fromMode: 'ask-for-approval',
        toMode: 'approve-for-me',
      }),
    ])
    harness.controller.handleDecision(window.promptId, 'confirm', window)
    expect(await stateOf(outcome)).toMatchObject({
      status: 'changed',
      permissions: { mode: 'approve-for-me', revision: 5 },
    })
    const [sent] = harness.runtime.permissionChanges
    const change = { clientRequestId: sent!.change.clientRequestId, expectedRevision: 4 }
    const subject = { roomId: 'room-1', ...change, instanceId: 'instance-1' }
    const binding = (mode: 'approve-for-me' | 'full-access') =>
      ({ kind: 'room-permission', subject: { ...subject, mode } }) as const
    expect(sent?.change).toEqual({ ...change, mode: 'approve-for-me' })
    expect(tokenFits(sent!.token, binding('approve-for-me'), harness.clock.wall)).toBe(true)
    expect(tokenFits(sent!.token, binding('full-access'), harness.clock.wall)).toBe(false)
  })

  it('changes nothing on a cancel or a closed window', async () => {
    const harness = consentHarness()
    const cancelled = harness.controller.requestModeChange(['room-1', 'full-access'])
    await settle()
    const window = harness.windows.last()
    harness.controller.handleDecision(window.promptId, 'cancel', window)
    expect(await stateOf(cancelled)).toEqual({ status: 'cancelled' })
    const closed = harness.controller.requestModeChange(['room-1', 'full-access'])
    await settle()
    harness.windows.last().close()
    expect(await stateOf(closed)).toEqual({ status: 'cancelled' })
    await settle()
    expect(harness.runtime.permissionChanges).toEqual([])
  })
})

describe('the consent controller setting an approver webhook', () => {
  it('sends the URL shown with a bound token, then shows the secret in a second window', async () => {
    const harness = consentHarness()
    const outcome = harness.controller.requestApproverWebhook(['room-1', HOOK])
    await settle()
    const window = harness.windows.last()
    expect(window.views[0]).toMatchObject({
      subject: 'approver-webhook',
      promptId: window.promptId,
      roomLabel: 'Room room-1',
      url: HOOK,
    })
    harness.controller.handleDecision(window.promptId, 'confirm', window)
    await settle()
    const [sent] = harness.runtime.webhookChanges
    const subject = {
      roomId: 'room-1',
      clientRequestId: sent!.change.clientRequestId,
      instanceId: 'instance-1',
    }
    const now = harness.clock.wall
    expect(sent?.change.url).toBe(HOOK)
    const binding = { kind: 'approver-webhook', subject: { ...subject, url: HOOK } } as const
    expect(tokenFits(sent!.token, binding, now)).toBe(true)
    const removal = { kind: 'approver-webhook', subject: { ...subject, url: null } } as const
    expect(tokenFits(sent!.token, removal, now)).toBe(false)
    const secretWindow = harness.windows.last()
    expect(secretWindow).not.toBe(window)
    expect(secretWindow.views[0]).toMatchObject({
      subject: 'approver-webhook-secret',
      secret: 's'.repeat(43),
    })
    expect(await stateOf(outcome)).toBe('pending')
    // The secret window answers nothing; closing it is all it takes.
    harness.controller.handleDecision(secretWindow.promptId, 'confirm', secretWindow)
    expect(secretWindow.refusedCount).toBe(1)
    secretWindow.close()
    const changed = await stateOf(outcome)
    expect(changed).toMatchObject({ status: 'webhook-changed', webhook: { url: HOOK } })
    expect(JSON.stringify(changed)).not.toContain('s'.repeat(43))
  })
})

describe('the consent controller with a sensitive form', () => {
  it('shows the fields and sends the values the window submitted', async () => {
    const harness = consentHarness()
    const { outcome, window } = await openForm(harness)
    expect(window.views[0]).toMatchObject({
      subject: 'form',
      promptId: window.promptId,
      roomLabel: 'Room room-1',
      message: 'Log in',
      fields: [{ name: 'user' }, { name: 'password', control: 'password' }],
    })
    const values = { user: 'ada', password: 'pa55' }
    harness.controller.handleDecision(window.promptId, 'submit', window, values)
    expect(await stateOf(outcome)).toMatchObject({
      status: 'submitted',
      request: { status: 'accepted' },
    })
    expect(harness.runtime.raws).toEqual([
      { method: 'POST', path: FORM_ANSWER_PATH, body: { action: 'accept', content: values } },
    ])
  })

  it('sends decline for Decline, and cancel once for a cancel or a closed window', async () => {
    const harness = consentHarness()
    const declined = await openForm(harness)
    harness.controller.handleDecision(declined.window.promptId, 'decline', declined.window, {})
    expect(await stateOf(declined.outcome)).toMatchObject({ status: 'submitted' })
    const cancelled = await openForm(harness)
    harness.controller.handleDecision(cancelled.window.promptId, 'cancel', cancelled.window)
    expect(await stateOf(cancelled.outcome)).toEqual({ status: 'cancelled' })
    const closed = await openForm(harness)
    closed.window.close()
    expect(await stateOf(closed.outcome)).toEqual({ status: 'cancelled' })
    await settle()
    expect(harness.runtime.raws.map((sent) => sent.body)).toEqual([
      { action: 'decline' },
      { action: 'cancel' },
      { action: 'cancel' },
    ])
    expect(harness.diagnostics).toEqual([])
  })

  it('tells nobody when the form closes for another reason than a cancel', async () => {
    const harness = consentHarness()
    const { outcome } = await openForm(harness)
    const reason = { code: 'app_closing', detail: 'Assent is closing' } as const
    harness.controller.closeAll(reason)
    expect(await stateOf(outcome)).toEqual({ status: 'closed', reason })
    await settle()
    expect(harness.runtime.raws).toEqual([])
  })

  it('notes a cancel the runtime refused or that could not be sent', async () => {
    const harness = consentHarness()
    harness.runtime.answerRaw = async () => ({
      status: 409,
      body: { error: 'the form was already answered', code: 'not_pending' },
    })
    const refused = await openForm(harness)
    refused.window.close()
    expect(await stateOf(refused.outcome)).toEqual({ status: 'cancelled' })
    await settle()
    harness.runtime.answerRaw = async () => {
      throw new RuntimeRequestError(503, 'the runtime is not running')
    }
    const unsent = await openForm(harness)
    unsent.window.close()
    await settle()
    expect(harness.diagnostics).toEqual([
      'form cancel: the form was already answered',
      'form cancel: the runtime is not running',
    ])
  })
})
