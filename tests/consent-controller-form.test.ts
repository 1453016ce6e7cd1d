import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ConsentView } from '../src/common/consent-view.ts'
import { ConsentController } from '../src/main/core/consent-controller.ts'
import type { ProtectedWindow, ProtectedWindowFactory } from '../src/main/core/host-port.ts'
import { exportedAudit } from './support/audit-check.ts'
import { inputRequests, pendingInputFor } from './support/input-helpers.ts'
import { createRoom, send, timeline, turnSettled } from './support/room-helpers.ts'
import { eventually, startHarness, type RuntimeHarness } from './support/runtime-harness.ts'

// The window system is what main's core cannot bring along, so a recording
// fake stands in for it; the runtime and its store are real.
class FakeWindow implements ProtectedWindow {
  readonly promptId: string
  views: ConsentView[] = []
  closed = false
  private readonly listeners: Array<() => void> = []
  constructor(promptId: string) {
    this.promptId = promptId
  }
  async show(view: ConsentView) {
    this.views.push(view)
  }
  focus() {}
  close() {
    if (this.closed) return
    this.closed = true
    for (const listener of this.listeners) listener()
  }
  isVisible() {
    return !this.closed
  }
  isFocused() {
    return !this.closed
  }
  onClosed(listener: () => void) {
    this.listeners.push(listener)
  }
}

class FakeWindows implements ProtectedWindowFactory {
  opened: FakeWindow[] = []
  async open(promptId: string) {
    const window = new FakeWindow(promptId)
    this.opened.push(window)
    return window
  }
}

const SECRET = 'pa55-word-never-logged'
const SCHEMA = {
  type: 'object',
  properties: {
    user: { type: 'string', title: 'User' },
    password: { type: 'string', format: 'password', title: 'Password' },
  },
  required: ['user', 'password'],
}

let harness: RuntimeHarness
beforeAll(async () => {
  harness = await startHarness()
})
afterAll(async () => {
  await harness?.close()
})

function controller(windows: FakeWindows) {
  return new ConsentController({
    client: harness.client,
    connection: () => harness.supervisor.current,
    windows,
    preferences: () => ({ lang: 'en', theme: 'light' }),
    enableDelayMs: 0,
  })
}

async function sensitiveForm() {
  const room = await createRoom(harness)
  const turnId = await send(harness, room.id, `form Log in :: ${JSON.stringify(SCHEMA)}`)
  return { room, turnId, request: await pendingInputFor(harness, room.id, turnId) }
}

describe('a sensitive form through the protected window', () => {
  it('shows the fields, sends the values through main’s route and keeps them out of history', async () => {
    const windows = new FakeWindows()
    const consent = controller(windows)
    const { room, turnId, request } = await sensitiveForm()
    const outcome = consent.openSensitiveForm([request.id])
    const window = await eventually(
      () => windows.opened[0]?.views[0] && windows.opened[0],
      'the form window',
    )
    expect(window.views[0]).toMatchObject({
      subject: 'form',
      message: 'Log in',
      fields: [
        { name: 'user', label: 'User', control: 'text', required: true },
        { name: 'password', label: 'Password', control: 'password', required: true },
      ],
    })
    consent.handleDecision(window.promptId, 'submit', window, { user: 'ada', password: SECRET })
    expect(await outcome).toMatchObject({
      status: 'submitted',
      request: { status: 'accepted', content: null },
    })
    await turnSettled(harness, room.id, turnId)
    const history = JSON.stringify([
      await timeline(harness, room.id),
      await inputRequests(harness, room.id),
    ])
    expect(history).toContain('Thanks, I received: user, password.')
    expect(history).not.toContain(SECRET)
    expect(JSON.stringify(await exportedAudit(harness))).not.toContain(SECRET)
  })

  it('refuses values that do not fit the schema and leaves the form waiting', async () => {
    const windows = new FakeWindows()
    const consent = controller(windows)
    const { room, request } = await sensitiveForm()
    const outcome = consent.openSensitiveForm([request.id])
    const window = await eventually(
      () => windows.opened[0]?.views[0] && windows.opened[0],
      'the form window',
    )
    consent.handleDecision(window.promptId, 'submit', window, { user: 'ada', admin: true })
    expect(await outcome).toEqual({
      status: 'failed',
      error: {
        code: 'form_invalid',
        detail: 'the form does not fit: admin: not a field of this form',
      },
    })
    expect((await inputRequests(harness, room.id))[0]?.status).toBe('pending')
  })

  it('sends cancel when the window is closed, and decline for Decline', async () => {
    const windows = new FakeWindows()
    const consent = controller(windows)
    const first = await sensitiveForm()
    const closing = consent.openSensitiveForm([first.request.id])
    const window = await eventually(
      () => windows.opened[0]?.views[0] && windows.opened[0],
      'the form window',
    )
    window.close()
    expect(await closing).toEqual({ status: 'cancelled' })
    await eventually(
      async () =>
        (await inputRequests(harness, first.room.id))[0]?.status === 'cancelled' || undefined,
      'the form to be cancelled',
    )
    const second = await sensitiveForm()
    const declining = consent.openSensitiveForm([second.request.id])
    const next = await eventually(
      () => windows.opened[1]?.views[0] && windows.opened[1],
      'the second window',
    )
    consent.handleDecision(next.promptId, 'decline', next)
    expect(await declining).toMatchObject({ status: 'submitted', request: { status: 'declined' } })
  })

  it('refuses to open a form that is not sensitive, or with anything but an id', async () => {
    const windows = new FakeWindows()
    const consent = controller(windows)
    const room = await createRoom(harness)
    const turnId = await send(harness, room.id, 'form Tell me more')
    const plain = await pendingInputFor(harness, room.id, turnId)
    await expect(consent.openSensitiveForm([plain.id])).rejects.toMatchObject({
      code: 'not_sensitive_form',
      message: expect.stringContaining('is not a sensitive form'),
    })
    await expect(consent.openSensitiveForm([plain.id, { values: {} }])).rejects.toMatchObject({
      code: 'invalid_arguments',
    })
    expect(windows.opened).toEqual([])
  })

  it('ignores approval answers on a form prompt', async () => {
    const windows = new FakeWindows()
    const consent = controller(windows)
    const { room, request } = await sensitiveForm()
    void consent.openSensitiveForm([request.id])
    const window = await eventually(
      () => windows.opened[0]?.views[0] && windows.opened[0],
      'the form window',
    )
    consent.handleDecision(window.promptId, 'allow-once', window)
    consent.handleDecision(window.promptId, 'confirm', window)
    expect(window.closed).toBe(false)
    expect((await inputRequests(harness, room.id))[0]?.status).toBe('pending')
    window.close()
  })
})
