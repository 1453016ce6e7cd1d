import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ApprovalView } from '../src/contracts/approval.ts'
import { startInProcessRuntime } from './support/in-process-runtime.ts'
import {
  auditEvents,
  decide,
  outsideDir,
  readPermissions,
  roomApprovals,
  toolCallsOf,
  waitForPendingApproval,
} from './support/policy-helpers.ts'
import { RecordingModel } from './support/recording-model.ts'
import {
  createRoom,
  pastExpiry,
  send,
  SHORT_APPROVAL_TTL_MS,
  turnSettled,
} from './support/room-helpers.ts'
import { eventually, startHarness, type RuntimeHarness } from './support/runtime-harness.ts'

// How the person's decision on a permission request is bound, and what is
// left when nobody decides: the consent token names one request (its id,
// the decision and the digest of exactly what widens), and an expired
// request widens nothing.

let harness: RuntimeHarness

beforeAll(async () => {
  harness = await startInProcessRuntime({ model: new RecordingModel() })
})
afterAll(async () => {
  await harness?.close()
})

function widenedEvents(target: RuntimeHarness, turnId?: string) {
  return auditEvents(target).then((events) =>
    events.filter(
      (event) =>
        event.type === 'turn_permission_widened' &&
        (turnId === undefined || event.subjectId === turnId),
    ),
  )
}

/** A room whose agent asks to write in a fresh outside folder, then writes
 *  there; answers the pending permission request. */
async function askingRoom(target: RuntimeHarness) {
  const room = await createRoom(target)
  const outside = await outsideDir(target)
  const turnId = await send(
    target,
    room.id,
    [`permit write ${outside}`, `write ${outside}/out.txt x`].join('\n'),
  )
  const request = await waitForPendingApproval(target, room.id, turnId)
  expect(request.approval.kind).toBe('permission-request')
  return { room, outside, turnId, request }
}

function decideWith(view: ApprovalView, token: string, digest = view.actionDigest) {
  return harness.client.decideApproval(view.approval.id, 'allow-once', token, digest)
}

describe('the consent token for a permission request', () => {
  it('refuses a token minted for another permission request, and widens nothing with it', async () => {
    const first = await askingRoom(harness)
    const second = await askingRoom(harness)
    const { approval: other, actionDigest: otherDigest } = second.request

    const refused: Array<[string, string, string]> = [
      [
        'a token for the other request',
        harness.mintApproval(other.id, 'allow-once', otherDigest),
        first.request.actionDigest,
      ],
      [
        "a token for this request bound to the other request's digest",
        harness.mintApproval(first.request.approval.id, 'allow-once', otherDigest),
        otherDigest,
      ],
      [
        'a token for this request minted to deny it',
        harness.mintApproval(first.request.approval.id, 'deny', first.request.actionDigest),
        first.request.actionDigest,
      ],
    ]
    for (const [name, token, digest] of refused) {
      expect(await decideWith(first.request, token, digest), name).toMatchObject({
        status: 403,
        body: { code: 'consent_required' },
      })
    }
    for (const { request } of [first, second]) {
      expect((await harness.client.getApproval(request.approval.id)).approval.status).toBe(
        'pending',
      )
    }
    expect(await widenedEvents(harness)).toHaveLength(0)

    // Its own token widens its own turn, and only that one.
    expect((await decide(harness, first.request, 'allow-once')).status).toBe(200)
    const write = await eventuallyPendingWrite(first.room.id, first.turnId)
    expect((await decide(harness, write, 'allow-once')).status).toBe(200)
    await turnSettled(harness, first.room.id, first.turnId)
    expect(existsSync(join(first.outside, 'out.txt'))).toBe(true)
    expect((await widenedEvents(harness)).map((event) => event.subjectId)).toEqual([first.turnId])
    expect((await harness.client.getApproval(other.id)).approval.status).toBe('pending')

    expect((await decide(harness, second.request, 'deny')).status).toBe(200)
    await turnSettled(harness, second.room.id, second.turnId)
    expect(existsSync(join(second.outside, 'out.txt'))).toBe(false)
    expect(await widenedEvents(harness, second.turnId)).toEqual([])
  })
})

describe('a retry of a turn that was widened', () => {
  it('starts without the widening: the retried write is refused until the person allows it again', async () => {
    const { room, outside, turnId, request } = await askingRoom(harness)
    expect((await decide(harness, request, 'allow-once')).status).toBe(200)
    const write = await eventuallyPendingWrite(room.id, turnId)
    expect((await decide(harness, write, 'deny')).status).toBe(200)
    await turnSettled(harness, room.id, turnId)

    const retried = await harness.client.raw('POST', `/v1/turns/${turnId}/retry`)
    expect(retried.status).toBe(202)
    const retryId = (retried.body as { turn: { id: string } }).turn.id
    const again = await waitForPendingApproval(harness, room.id, retryId)
    // The retry asks again for the folder: nothing carried over.
    expect(again.approval).toMatchObject({ kind: 'permission-request', turnId: retryId })
    expect((await decide(harness, again, 'deny')).status).toBe(200)
    await turnSettled(harness, room.id, retryId)
    expect(await toolCallsOf(harness, room.id, retryId)).toMatchObject([
      { toolName: 'request_permissions', status: 'denied' },
      { toolName: 'write_file', status: 'refused', result: { code: 'outside_workspace' } },
    ])
    expect(existsSync(join(outside, 'out.txt'))).toBe(false)
    expect(await widenedEvents(harness, retryId)).toEqual([])
  })
})

/** The write that follows an allowed permission request in the same turn. */
async function eventuallyPendingWrite(roomId: string, turnId: string): Promise<ApprovalView> {
  const summary = await eventually(async () => {
    const approvals = await roomApprovals(harness, roomId)
    return approvals.find(
      (approval) =>
        approval.turnId === turnId &&
        approval.status === 'pending' &&
        approval.kind === 'apply-changes',
    )
  }, `the pending write of turn ${turnId}`)
  return harness.client.getApproval(summary.id)
}

describe('a permission request nobody decides', () => {
  it('expires, widens nothing, and leaves the turn and the room as they were', async () => {
    const short = await startHarness({ approvalTtlMs: SHORT_APPROVAL_TTL_MS })
    try {
      const { room, outside, turnId, request } = await askingRoom(short)
      await pastExpiry(request)
      await turnSettled(short, room.id, turnId)
      expect((await short.client.getApproval(request.approval.id)).approval).toMatchObject({
        status: 'expired',
        decidedBy: 'timeout',
      })
      expect(await toolCallsOf(short, room.id, turnId)).toMatchObject([
        {
          toolName: 'request_permissions',
          status: 'expired',
          result: { code: 'approval_expired' },
        },
        { toolName: 'write_file', status: 'refused', result: { code: 'outside_workspace' } },
      ])
      expect(existsSync(join(outside, 'out.txt'))).toBe(false)
      expect(await widenedEvents(short)).toEqual([])
      // A token minted in time but presented late decides nothing.
      const late = await short.client.decideApproval(
        request.approval.id,
        'allow-once',
        short.mintApproval(request.approval.id, 'allow-once', request.actionDigest),
        request.actionDigest,
      )
      expect(late).toMatchObject({ status: 410, body: { code: 'approval_expired' } })
      expect(await readPermissions(short, room.id)).toMatchObject({
        body: { mode: 'ask-for-approval', revision: 0 },
      })
    } finally {
      await short.close()
    }
  })
})
