import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { scaledMs } from '../scripts/test-timing.ts'
import type { ConsentView } from '../src/common/consent-view.ts'
import { WEBHOOK_TIMEOUT_MS } from '../src/contracts/approver-webhook.ts'
import { ConsentController } from '../src/main/core/consent-controller.ts'
import { WorkbenchRefusal } from '../src/main/core/workbench-refusal.ts'
import { ApproverServer, requestSignedWith, signedReply } from './support/approver-server.ts'
import { FakeWindows, type FakeWindow } from './support/fake-protected-windows.ts'
import { startInProcessRuntime } from './support/in-process-runtime.ts'
import { auditEvents, roomApprovals } from './support/policy-helpers.ts'
import { createRoom, pendingApprovalFor, send, turnSettled } from './support/room-helpers.ts'
import type { RuntimeHarness } from './support/runtime-harness.ts'

const APPROVED = '{"approved": true}'

// The protected window itself is a fake here (no Electron binary); the
// runtime, its SQLite file, the consent tokens and the approver (a real HTTP
// server on 127.0.0.1) are real.
describe('ConsentController: an approver webhook is set only through the protected window', () => {
  let harness: RuntimeHarness
  let approver: ApproverServer
  let now = 1_000_000

  beforeAll(async () => {
    harness = await startInProcessRuntime({ approverWebhookTimeoutMs: scaledMs(3_000) })
    approver = await ApproverServer.start()
  })
  afterAll(async () => {
    await approver?.close()
    await harness?.close()
  })
  beforeEach(() => {
    approver.requests.length = 0
    now = Date.now()
  })

  const controllerWith = (windows: FakeWindows, enableDelayMs = 0) =>
    new ConsentController({
      client: harness.client,
      connection: harness.connection,
      windows,
      preferences: () => ({ lang: 'en', theme: 'light' }),
      now: () => now,
      monotonicNow: () => now,
      enableDelayMs,
    })

  const webhookOf = async (roomId: string) =>
    (await harness.client.getApproverWebhook(roomId)).webhook

  /** Sets `url` as the room's webhook the way the person does: confirm in
   *  the first window, close the second; answers both windows' views. */
  async function setThroughWindow(
    controller: ConsentController,
    windows: FakeWindows,
    roomId: string,
    url: string,
  ) {
    const outcome = controller.requestApproverWebhook([roomId, url])
    const review = await windows.nextShown()
    controller.handleDecision(review.promptId, 'confirm', review)
    const secretWindow = await windows.nextShown()
    const secretView = secretWindow.views[0]
    controller.handleDecision(secretWindow.promptId, 'cancel', secretWindow)
    return { outcome: await outcome, review: review.views[0], secretView, secretWindow }
  }

  it('shows the exact URL and what it hands over, then sets it, and shows the new secret once in a second window', async () => {
    const windows = new FakeWindows()
    const controller = controllerWith(windows)
    const room = await createRoom(harness)
    const { outcome, review, secretView } = await setThroughWindow(
      controller,
      windows,
      room.id,
      approver.url,
    )
    expect(review).toMatchObject({
      subject: 'approver-webhook',
      roomLabel: room.title,
      url: approver.url,
      currentUrl: null,
      timeoutSeconds: WEBHOOK_TIMEOUT_MS / 1_000,
    })
    const webhook = await webhookOf(room.id)
    expect(webhook?.url).toBe(approver.url)
    expect(outcome).toEqual({ status: 'webhook-changed', webhook })
    expect(secretView).toMatchObject({
      subject: 'approver-webhook-secret',
      url: approver.url,
      webhookId: webhook?.webhookId,
    })
    const secret = secretView?.subject === 'approver-webhook-secret' ? secretView.secret : ''
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/)
    // The workbench hears the outcome: it never carries the secret.
    expect(JSON.stringify(outcome)).not.toContain(secret)
    expect(JSON.stringify(await harness.client.getApproverWebhook(room.id))).not.toContain(secret)
  })

  it('hands the webhook the decision with the secret the window showed: a signed approval writes, decidedBy webhook', async () => {
    const windows = new FakeWindows()
    const controller = controllerWith(windows)
    const room = await createRoom(harness)
    const { secretView } = await setThroughWindow(controller, windows, room.id, approver.url)
    const secret = secretView?.subject === 'approver-webhook-secret' ? secretView.secret : ''
    approver.behaviour = (request) => signedReply(secret, request, APPROVED)
    const turnId = await send(harness, room.id, 'write by-webhook.txt from-the-agent')
    await turnSettled(harness, room.id, turnId)
    const [approval] = await roomApprovals(harness, room.id)
    expect(approval).toMatchObject({ status: 'allowed', decidedBy: 'webhook' })
    expect(existsSync(join(harness.workspace, 'by-webhook.txt'))).toBe(true)
    expect(requestSignedWith(approver.requests[0]!, secret)).toBe(true)
  })

  it('sets nothing when the person cancels or closes the window', async () => {
    const windows = new FakeWindows()
    const controller = controllerWith(windows)
    const room = await createRoom(harness)
    const cancelled = controller.requestApproverWebhook([room.id, approver.url])
    const first = await windows.nextShown()
    controller.handleDecision(first.promptId, 'cancel', first)
    await expect(cancelled).resolves.toEqual({ status: 'cancelled' })
    const closed = controller.requestApproverWebhook([room.id, approver.url])
    const second = await windows.nextShown()
    second.close()
    await expect(closed).resolves.toEqual({ status: 'cancelled' })
    expect(await webhookOf(room.id)).toBeNull()
    // Only the two protected windows opened: no secret was ever shown.
    expect(windows.opened).toHaveLength(2)
  })

  it('refuses a URL the runtime would refuse, and extra arguments, before any window opens', async () => {
    const windows = new FakeWindows()
    const controller = controllerWith(windows)
    const room = await createRoom(harness)
    const refused: unknown[][] = [
      [room.id, 'http://localhost:8080/decide'],
      [room.id, 'http://10.0.0.5/decide'],
      [room.id, 'ftp://approver.example/decide'],
      [room.id, 'https://approver.example/x#frag'],
      [room.id, approver.url, { decision: 'confirm' }],
      [room.id],
      ['../rooms', approver.url],
    ]
    for (const args of refused) {
      const error = await controller.requestApproverWebhook(args).then(
        () => undefined,
        (thrown: unknown) => thrown,
      )
      expect(error, JSON.stringify(args)).toBeInstanceOf(WorkbenchRefusal)
      expect((error as WorkbenchRefusal).code, JSON.stringify(args)).toBe('invalid_arguments')
    }
    expect(windows.opened).toEqual([])
    expect(await webhookOf(room.id)).toBeNull()
  })

  it('ignores setting one before the enable delay, yet lets the person remove one at once', async () => {
    const windows = new FakeWindows()
    const controller = controllerWith(windows, 2_000)
    const room = await createRoom(harness)
    const outcome = controller.requestApproverWebhook([room.id, approver.url])
    const early = await windows.nextShown()
    now += 1_999
    controller.handleDecision(early.promptId, 'confirm', early)
    // The positive step: had the early confirm been taken, this cancel
    // would find the prompt used.
    controller.handleDecision(early.promptId, 'cancel', early)
    await expect(outcome).resolves.toEqual({ status: 'cancelled' })
    expect(await webhookOf(room.id)).toBeNull()

    const set = controller.requestApproverWebhook([room.id, approver.url])
    const review = await windows.nextShown()
    now += 2_000
    controller.handleDecision(review.promptId, 'confirm', review)
    const secretWindow = await windows.nextShown()
    secretWindow.close()
    await expect(set).resolves.toMatchObject({ status: 'webhook-changed' })

    const removal = controller.requestApproverWebhook([room.id, null])
    const removing = await windows.nextShown()
    expect(removing.views[0]).toMatchObject({
      subject: 'approver-webhook',
      url: null,
      currentUrl: approver.url,
    })
    controller.handleDecision(removing.promptId, 'confirm', removing)
    await expect(removal).resolves.toEqual({ status: 'webhook-changed', webhook: null })
    expect(await webhookOf(room.id)).toBeNull()
    // A removal shows no secret window.
    expect(windows.opened).toHaveLength(4)
  })

  it('shows what a new webhook replaces, and the new secret differs from the old one', async () => {
    const windows = new FakeWindows()
    const controller = controllerWith(windows)
    const room = await createRoom(harness)
    const first = await setThroughWindow(controller, windows, room.id, approver.url)
    const otherUrl = 'https://approver.example/decide'
    const second = await setThroughWindow(controller, windows, room.id, otherUrl)
    expect(second.review).toMatchObject({ url: otherUrl, currentUrl: approver.url })
    expect((await webhookOf(room.id))?.url).toBe(otherUrl)
    const secretOf = (view: ConsentView | undefined) =>
      view?.subject === 'approver-webhook-secret' ? view.secret : undefined
    expect(secretOf(second.secretView)).toBeDefined()
    expect(secretOf(second.secretView)).not.toBe(secretOf(first.secretView))
  })

  it('takes no answer but closing on the secret window, and audits the change without the secret', async () => {
    const windows = new FakeWindows()
    const controller = controllerWith(windows)
    const room = await createRoom(harness)
    const outcome = controller.requestApproverWebhook([room.id, approver.url])
    const review = await windows.nextShown()
    controller.handleDecision(review.promptId, 'confirm', review)
    const secretWindow: FakeWindow = await windows.nextShown()
    for (const answer of ['confirm', 'allow-once', 'deny', 'submit']) {
      controller.handleDecision(secretWindow.promptId, answer, secretWindow)
    }
    expect(secretWindow.closed).toBe(false)
    controller.handleDecision(secretWindow.promptId, 'cancel', secretWindow)
    expect(secretWindow.closed).toBe(true)
    await expect(outcome).resolves.toMatchObject({ status: 'webhook-changed' })
    const view = secretWindow.views[0]
    const secret = view?.subject === 'approver-webhook-secret' ? view.secret : 'missing'
    const audit = JSON.stringify(await auditEvents(harness))
    expect(audit).toContain(approver.url)
    expect(audit).not.toContain(secret)
  })

  it('refuses every review while the runtime is down, and opens the same review once it is back', async () => {
    const windows = new FakeWindows()
    let runtimeUp = false
    const controller = new ConsentController({
      client: harness.client,
      connection: () => (runtimeUp ? harness.connection() : undefined),
      windows,
      preferences: () => ({ lang: 'en', theme: 'light' }),
      now: () => now,
      monotonicNow: () => now,
      enableDelayMs: 0,
    })
    const room = await createRoom(harness)
    const approval = await pendingApprovalFor(harness, room.id, 'write while-down.txt x')
    const reviews: [string, () => Promise<unknown>][] = [
      ['webhook', () => controller.requestApproverWebhook([room.id, approver.url])],
      ['mode change', () => controller.requestModeChange([room.id, 'full-access'])],
      ['approval', () => controller.reviewApproval([approval.approval.id])],
    ]
    for (const [name, review] of reviews) {
      const error = await review().then(
        () => undefined,
        (thrown: unknown) => thrown,
      )
      expect((error as WorkbenchRefusal).code, name).toBe('runtime_down')
    }
    expect(windows.opened).toEqual([])
    // A refused review holds nothing back: each subject opens its window
    // (and only then is cancelled) once the runtime runs again.
    runtimeUp = true
    for (const [name, review] of reviews) {
      const outcome = review()
      const shown = await windows.nextShown()
      controller.handleDecision(shown.promptId, 'cancel', shown)
      await expect(outcome, name).resolves.toEqual({ status: 'cancelled' })
    }
    expect(windows.opened).toHaveLength(reviews.length)
    expect(await webhookOf(room.id)).toBeNull()
    // The turn waits on its approval: deny it so the turn ends.
    const denied = controller.reviewApproval([approval.approval.id])
    const last = await windows.nextShown()
    controller.handleDecision(last.promptId, 'deny', last)
    await expect(denied).resolves.toMatchObject({ status: 'decided', decision: 'deny' })
    await turnSettled(harness, room.id, approval.approval.turnId)
  })
})
