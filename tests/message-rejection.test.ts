import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { rejectApprovalForMessage } from '../src/main/core/message-rejection.ts'
import type { RuntimeClient } from '../src/main/core/runtime-client.ts'
import { createRoom, pendingApprovalFor, turnSettled } from './support/room-helpers.ts'
import { startHarness, type RuntimeHarness } from './support/runtime-harness.ts'
import { existsSync } from 'node:fs'
import { join } from 'node:path'

let harness: RuntimeHarness

beforeAll(async () => {
  harness = await startHarness()
})
afterAll(async () => {
  await harness?.close()
})

function options(client: Pick<RuntimeClient, 'getApproval' | 'decideApproval'> = harness.client) {
  return { client, connection: () => harness.supervisor.current }
}

describe('rejecting an open approval because the person sent a message', () => {
  it('denies it with a token main minted, without any window, and the tool never runs', async () => {
    const room = await createRoom(harness)
    const view = await pendingApprovalFor(harness, room.id, 'write rejected.txt nope')
    const closed: string[] = []
    const outcome = await rejectApprovalForMessage(
      { ...options(), closeReview: (id) => closed.push(id) },
      [view.approval.id],
    )
    expect(outcome).toMatchObject({
      status: 'rejected',
      approval: { status: 'denied', decision: 'deny', decidedBy: 'user' },
    })
    expect(closed).toEqual([view.approval.id])
    await turnSettled(harness, room.id, view.approval.turnId)
    expect(existsSync(join(harness.workspace, 'rejected.txt'))).toBe(false)
  })

  it('refuses anything but one id, so the workbench cannot ask it for an allow', async () => {
    const room = await createRoom(harness)
    const view = await pendingApprovalFor(harness, room.id, 'write forged.txt x')
    const id = view.approval.id
    for (const args of [
      [id, 'allow-once'],
      [id, { decision: 'allow-always' }],
      [{ approvalId: id, decision: 'allow-once' }],
      [],
      id,
      [`${id}/../x`],
    ]) {
      await expect(rejectApprovalForMessage(options(), args)).rejects.toMatchObject({
        code: 'invalid_arguments',
        message: expect.stringMatching(/can only deny/),
      })
    }
    expect((await harness.client.getApproval(id)).approval.status).toBe('pending')
    await rejectApprovalForMessage(options(), [id])
  })

  it('mints a token that is good for a deny of that approval and nothing else', async () => {
    const room = await createRoom(harness)
    const view = await pendingApprovalFor(harness, room.id, 'write token.txt x')
    // Capture what main would send and present it as an allow instead.
    let captured: { token: string; digest: string; decision: string } | undefined
    const spy: Pick<RuntimeClient, 'getApproval' | 'decideApproval'> = {
      getApproval: (id) => harness.client.getApproval(id),
      decideApproval: async (_id, decision, token, digest) => {
        captured = { token, digest, decision }
        return { status: 500, body: { error: 'captured' } }
      },
    }
    expect(await rejectApprovalForMessage(options(spy), [view.approval.id])).toEqual({
      status: 'failed',
      error: { code: 'main_failed', detail: 'captured' },
    })
    expect(captured?.decision).toBe('deny')
    const forged = await harness.client.decideApproval(
      view.approval.id,
      'allow-once',
      captured?.token ?? '',
      captured?.digest ?? '',
    )
    expect(forged.status).toBe(403)
    expect((await harness.client.getApproval(view.approval.id)).approval.status).toBe('pending')
    await rejectApprovalForMessage(options(), [view.approval.id])
  })

  it('does nothing to an approval that is no longer pending', async () => {
    const room = await createRoom(harness)
    const view = await pendingApprovalFor(harness, room.id, 'write twice.txt x')
    await rejectApprovalForMessage(options(), [view.approval.id])
    expect(await rejectApprovalForMessage(options(), [view.approval.id])).toEqual({
      status: 'not-pending',
    })
  })
})
