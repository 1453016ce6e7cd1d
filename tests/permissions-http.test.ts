import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { canonicalJson } from '../src/contracts/canonical-json.ts'
import type { RoomPolicy } from '../src/contracts/policy-axes.ts'
import { MODE_PRESETS } from '../src/runtime/policy/permission-modes.ts'
import { openEventStream, type StreamedEvent } from './support/event-stream.ts'
import {
  queryDatabase,
  storeSealedPolicy,
  tamperWithRoomPolicy,
} from './support/integrity-helpers.ts'
import { createRoom } from './support/room-helpers.ts'
import { rawHttp, startHarness, type RuntimeHarness } from './support/runtime-harness.ts'
import { auditEvents, putMode, readPermissions, setMode } from './support/policy-helpers.ts'

let harness: RuntimeHarness

beforeAll(async () => {
  harness = await startHarness()
})
afterAll(async () => {
  await harness?.close()
})

const CONSENT_REQUIRED = {
  error: 'protected permission consent required',
  code: 'consent_required',
}

async function permissionChanges(roomId: string) {
  return (await auditEvents(harness)).filter(
    (event) => event.type === 'room_permission_changed' && event.subjectId === roomId,
  )
}

/** The settings exactly as the runtime sends them, not as a parser sees them. */
async function globalSettingsText(): Promise<string> {
  const { port, bearerToken } = harness.connection()
  const response = await rawHttp({
    port,
    method: 'GET',
    path: '/v1/settings/global',
    headers: [['Authorization', `Bearer ${bearerToken}`]],
  })
  expect(response.status).toBe(200)
  return response.body
}

describe('reading a direct room’s permissions', () => {
  it('starts a new room at ask-for-approval, revision 0, with full access available', async () => {
    const room = await createRoom(harness)
    expect(await readPermissions(harness, room.id)).toEqual({
      status: 200,
      body: {
        roomId: room.id,
        revision: 0,
        policy: MODE_PRESETS['ask-for-approval'],
        mode: 'ask-for-approval',
        fullAccessUnavailable: null,
        integrity: 'ok',
      },
    })
  })

  it('answers 404 for an unknown room, on GET and on a consented PUT', async () => {
    const read = await readPermissions(harness, 'no-such-room')
    expect(read.status).toBe(404)
    expect(read.body).toMatchObject({ code: 'unknown_room' })
    const change = await putMode(harness, 'no-such-room', {
      mode: 'approve-for-me',
      expectedRevision: 0,
    })
    expect(change.status).toBe(404)
    expect(change.body).toMatchObject({ code: 'unknown_room' })
  })

  it('refuses a group room with 409 "private conversation required", on GET and on a consented PUT', async () => {
    const group = await createRoom(harness, { kind: 'group' })
    const refusal = {
      status: 409,
      body: { error: 'private conversation required', code: 'private_conversation_required' },
    }
    expect(await readPermissions(harness, group.id)).toEqual(refusal)
    expect(await putMode(harness, group.id, { mode: 'full-access', expectedRevision: 0 })).toEqual(
      refusal,
    )
    expect(await permissionChanges(group.id)).toEqual([])
  })
})

describe('changing a direct room’s mode', () => {
  it('refuses a change without a consent token with 403, and changes nothing', async () => {
    const room = await createRoom(harness)
    const before = await readPermissions(harness, room.id)
    const response = await putMode(
      harness,
      room.id,
      { mode: 'full-access', expectedRevision: 0 },
      null,
    )
    expect(response).toEqual({ status: 403, body: CONSENT_REQUIRED })
    expect(await readPermissions(harness, room.id)).toEqual(before)
    expect(await permissionChanges(room.id)).toEqual([])
  })

  it('refuses a token bound to another mode, revision, clientRequestId or room, and changes nothing', async () => {
    const room = await createRoom(harness)
    const other = await createRoom(harness)
    const before = await readPermissions(harness, room.id)
    const clientRequestId = randomUUID()
    const asked = { clientRequestId, expectedRevision: 0, mode: 'full-access' as const }
    const mismatches: Array<[string, Parameters<RuntimeHarness['mintPermission']>[0]]> = [
      ['another mode', { roomId: room.id, ...asked, mode: 'approve-for-me' }],
      ['another revision', { roomId: room.id, ...asked, expectedRevision: 1 }],
      ['another clientRequestId', { roomId: room.id, ...asked, clientRequestId: randomUUID() }],
      ['another room', { roomId: other.id, ...asked }],
    ]
    for (const [name, boundTo] of mismatches) {
      const response = await putMode(harness, room.id, asked, harness.mintPermission(boundTo))
      expect(response, name).toEqual({ status: 403, body: CONSENT_REQUIRED })
    }
    expect(await readPermissions(harness, room.id)).toEqual(before)
    expect(await readPermissions(harness, other.id)).toMatchObject({ body: { revision: 0 } })
    expect(await permissionChanges(room.id)).toEqual([])
    // The same request with a token bound to it does go through: the refusals
    // above were about the bindings, not the request.
    expect((await putMode(harness, room.id, asked)).status).toBe(200)
  })

  it('applies a consented change: bumps the revision, sets mode and policy, and audits it', async () => {
    const room = await createRoom(harness)
    const clientRequestId = randomUUID()
    const response = await putMode(harness, room.id, {
      mode: 'approve-for-me',
      expectedRevision: 0,
      clientRequestId,
    })
    const expected = {
      roomId: room.id,
      revision: 1,
      policy: MODE_PRESETS['approve-for-me'],
      mode: 'approve-for-me',
      fullAccessUnavailable: null,
      integrity: 'ok',
    }
    expect(response).toEqual({ status: 200, body: expected })
    expect(await readPermissions(harness, room.id)).toEqual({ status: 200, body: expected })
    const changes = await permissionChanges(room.id)
    expect(changes).toHaveLength(1)
    expect(changes[0]?.payload).toEqual({
      clientRequestId,
      from: 'ask-for-approval',
      to: 'approve-for-me',
      revision: 1,
      policy: MODE_PRESETS['approve-for-me'],
    })
  })

  it('refuses a stale expectedRevision with 409, and changes nothing', async () => {
    const room = await createRoom(harness)
    await setMode(harness, room.id, 'approve-for-me')
    const response = await putMode(harness, room.id, { mode: 'full-access', expectedRevision: 0 })
    expect(response.status).toBe(409)
    expect(response.body).toMatchObject({ code: 'stale_revision' })
    expect(await readPermissions(harness, room.id)).toMatchObject({
      body: { revision: 1, mode: 'approve-for-me' },
    })
    expect(await permissionChanges(room.id)).toHaveLength(1)
  })

  it('answers a resend (same clientRequestId and body, fresh token) with the first result, bumping the revision once', async () => {
    const room = await createRoom(harness)
    const change = {
      mode: 'full-access' as const,
      expectedRevision: 0,
      clientRequestId: randomUUID(),
    }
    const first = await putMode(harness, room.id, change)
    const again = await putMode(harness, room.id, change)
    expect(first.status).toBe(200)
    expect(again).toEqual(first)
    expect(await readPermissions(harness, room.id)).toMatchObject({
      body: { revision: 1, mode: 'full-access' },
    })
    expect(await permissionChanges(room.id)).toHaveLength(1)
  })

  it('refuses the same clientRequestId with a different body with 409', async () => {
    const room = await createRoom(harness)
    const clientRequestId = randomUUID()
    const first = await putMode(harness, room.id, {
      mode: 'approve-for-me',
      expectedRevision: 0,
      clientRequestId,
    })
    expect(first.status).toBe(200)
    const conflict = await putMode(harness, room.id, {
      mode: 'full-access',
      expectedRevision: 1,
      clientRequestId,
    })
    expect(conflict.status).toBe(409)
    expect(conflict.body).toMatchObject({ code: 'client_request_conflict' })
    expect(await readPermissions(harness, room.id)).toMatchObject({
      body: { revision: 1, mode: 'approve-for-me' },
    })
  })

  it('refuses a replayed token with 403, even for the request it was minted for', async () => {
    const room = await createRoom(harness)
    const change = {
      mode: 'approve-for-me' as const,
      expectedRevision: 0,
      clientRequestId: randomUUID(),
    }
    const token = harness.mintPermission({ roomId: room.id, ...change })
    expect((await putMode(harness, room.id, change, token)).status).toBe(200)
    expect(await putMode(harness, room.id, change, token)).toEqual({
      status: 403,
      body: CONSENT_REQUIRED,
    })
  })

  it('never changes the global settings (byte for byte) or another room', async () => {
    const room = await createRoom(harness)
    const bystander = await createRoom(harness)
    const settingsBefore = await globalSettingsText()
    const bystanderBefore = await readPermissions(harness, bystander.id)
    for (const mode of [
      'full-access',
      'approve-for-me',
      'ask-for-approval',
      'full-access',
    ] as const) {
      await setMode(harness, room.id, mode)
    }
    expect(await readPermissions(harness, room.id)).toMatchObject({
      body: { revision: 4, mode: 'full-access' },
    })
    expect(await globalSettingsText()).toBe(settingsBefore)
    expect(await readPermissions(harness, bystander.id)).toEqual(bystanderBefore)
  })

  it('lets exactly one of 50 concurrent changes at the same revision win; the other 49 get 409', async () => {
    const room = await createRoom(harness)
    const modes = ['approve-for-me', 'full-access'] as const
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, index) =>
        putMode(harness, room.id, { mode: modes[index % 2]!, expectedRevision: 0 }),
      ),
    )
    const statuses = responses.map((response) => response.status)
    expect(statuses.filter((status) => status === 200)).toHaveLength(1)
    expect(statuses.filter((status) => status === 409)).toHaveLength(49)
    for (const response of responses.filter((candidate) => candidate.status === 409)) {
      expect(response.body).toMatchObject({ code: 'stale_revision' })
    }
    const winner = responses.find((response) => response.status === 200)
    expect(await readPermissions(harness, room.id)).toEqual(winner)
    expect(await permissionChanges(room.id)).toHaveLength(1)
  })

  it('keeps the mode and revision across a runtime restart', async () => {
    const room = await createRoom(harness)
    await setMode(harness, room.id, 'full-access')
    const before = await readPermissions(harness, room.id)
    const instanceBefore = harness.connection().instanceId
    await harness.restart()
    expect(harness.connection().instanceId).not.toBe(instanceBefore)
    expect(await readPermissions(harness, room.id)).toEqual(before)
    expect(before.body).toMatchObject({ revision: 1, mode: 'full-access' })
  })
})

describe('plan mode over HTTP', () => {
  it('enters plan mode without a consent token: revision bumped, audited, and a resend answered once', async () => {
    const room = await createRoom(harness)
    const change = { mode: 'plan' as const, expectedRevision: 0, clientRequestId: randomUUID() }
    const expected = {
      roomId: room.id,
      revision: 1,
      policy: MODE_PRESETS.plan,
      mode: 'plan',
      fullAccessUnavailable: null,
      integrity: 'ok',
    }
    expect(await putMode(harness, room.id, change, null)).toEqual({ status: 200, body: expected })
    expect(await putMode(harness, room.id, change, null)).toEqual({ status: 200, body: expected })
    expect(await readPermissions(harness, room.id)).toEqual({ status: 200, body: expected })
    const changes = await permissionChanges(room.id)
    expect(changes.map((event) => event.payload)).toEqual([
      {
        clientRequestId: change.clientRequestId,
        from: 'ask-for-approval',
        to: 'plan',
        revision: 1,
        policy: MODE_PRESETS.plan,
      },
    ])
    const stale = await putMode(harness, room.id, { mode: 'plan', expectedRevision: 0 }, null)
    expect(stale).toMatchObject({ status: 409, body: { code: 'stale_revision' } })
  })

  it('refuses to leave plan mode without a consent token, and leaves it with one', async () => {
    const room = await createRoom(harness)
    await putMode(harness, room.id, { mode: 'plan', expectedRevision: 0 }, null)
    for (const mode of ['ask-for-approval', 'approve-for-me', 'full-access'] as const) {
      const refused = await putMode(harness, room.id, { mode, expectedRevision: 1 }, null)
      expect(refused, mode).toEqual({ status: 403, body: CONSENT_REQUIRED })
    }
    // A token for another request does not become optional for a plan body.
    const forged = await putMode(
      harness,
      room.id,
      { mode: 'plan', expectedRevision: 1 },
      harness.mintPermission({
        roomId: room.id,
        clientRequestId: randomUUID(),
        expectedRevision: 1,
        mode: 'plan',
      }),
    )
    expect(forged).toEqual({ status: 403, body: CONSENT_REQUIRED })
    expect(await readPermissions(harness, room.id)).toMatchObject({
      body: { mode: 'plan', revision: 1 },
    })
    const left = await putMode(harness, room.id, { mode: 'approve-for-me', expectedRevision: 1 })
    expect(left).toMatchObject({ status: 200, body: { mode: 'approve-for-me', revision: 2 } })
  })

  it('lets an agent that may not have full access enter plan mode', async () => {
    const room = await createRoom(harness, { agentId: 'reader' })
    const entered = await putMode(harness, room.id, { mode: 'plan', expectedRevision: 0 }, null)
    expect(entered).toMatchObject({
      status: 200,
      body: { mode: 'plan', fullAccessUnavailable: 'read_only_agent' },
    })
  })

  it('refuses plan mode without a token in a room edited outside Assent, which the person must vouch for', async () => {
    const room = await createRoom(harness)
    await tamperWithRoomPolicy(harness, room.id)
    const refused = await putMode(harness, room.id, { mode: 'plan', expectedRevision: 0 }, null)
    expect(refused).toEqual({ status: 403, body: CONSENT_REQUIRED })
    expect(await readPermissions(harness, room.id)).toMatchObject({
      body: { integrity: 'tampered', mode: 'ask-for-approval' },
    })
    const vouched = await putMode(harness, room.id, {
      mode: 'plan',
      expectedRevision: 0,
      resealsRoom: true,
    })
    expect(vouched).toMatchObject({ status: 200, body: { mode: 'plan', integrity: 'ok' } })
  })

  it('refuses plan mode in a group room, as every mode', async () => {
    const group = await createRoom(harness, { kind: 'group' })
    const refused = await putMode(harness, group.id, { mode: 'plan', expectedRevision: 0 }, null)
    expect(refused).toMatchObject({
      status: 409,
      body: { code: 'private_conversation_required' },
    })
  })
})

describe('room.updated events', () => {
  it('emits exactly one room.updated, carrying the new revision, per applied change, and none for a refused one or a resend', async () => {
    const room = await createRoom(harness)
    const stream = await openEventStream(harness)
    const isUpdateOf = (event: StreamedEvent) =>
      event.type === 'room.updated' && (event.data as { roomId?: unknown }).roomId === room.id
    try {
      const noToken = await putMode(
        harness,
        room.id,
        { mode: 'full-access', expectedRevision: 0 },
        null,
      )
      expect(noToken.status).toBe(403)
      const foreignToken = harness.mintPermission({
        roomId: room.id,
        clientRequestId: randomUUID(),
        expectedRevision: 0,
        mode: 'full-access',
      })
      const mismatched = await putMode(
        harness,
        room.id,
        { mode: 'full-access', expectedRevision: 0 },
        foreignToken,
      )
      expect(mismatched.status).toBe(403)

      const first = {
        mode: 'approve-for-me' as const,
        expectedRevision: 0,
        clientRequestId: randomUUID(),
      }
      const applied = await putMode(harness, room.id, first)
      expect(applied).toMatchObject({ status: 200, body: { revision: 1 } })

      const stale = await putMode(harness, room.id, { mode: 'full-access', expectedRevision: 0 })
      expect(stale).toMatchObject({ status: 409, body: { code: 'stale_revision' } })
      const conflict = await putMode(harness, room.id, { ...first, mode: 'full-access' })
      expect(conflict).toMatchObject({ status: 409, body: { code: 'client_request_conflict' } })
      expect(await putMode(harness, room.id, first)).toEqual(applied)

      // A last applied change: once its event arrives, every event emitted
      // before it has arrived too (one stream, in order).
      const last = await putMode(harness, room.id, { mode: 'full-access', expectedRevision: 1 })
      expect(last).toMatchObject({ status: 200, body: { revision: 2 } })
      await stream.waitFor(
        (event) =>
          isUpdateOf(event) &&
          (event.data as { permissions?: { revision?: unknown } }).permissions?.revision === 2,
        'the room.updated event of revision 2',
      )
      expect(stream.events.filter(isUpdateOf).map((event) => event.data)).toEqual([
        { roomId: room.id, permissions: applied.body },
        { roomId: room.id, permissions: last.body },
      ])
    } finally {
      stream.close()
    }
  })
})

describe('a stored policy that matches no preset', () => {
  const LEGACY: RoomPolicy = {
    approvalPolicy: 'untrusted',
    sandboxMode: 'read-only',
    approvalReviewer: 'user',
  }

  const roomRow = (roomId: string) =>
    queryDatabase(
      harness.dataDir,
      'SELECT policy_json, revision, mac FROM rooms WHERE id = ?',
      roomId,
    )

  it('reads as ask-for-approval, and a GET never writes the projection back', async () => {
    const room = await createRoom(harness)
    await storeSealedPolicy(harness, room.id, LEGACY, 0)
    // Stored with its event, as the runtime writes every change.
    const changes = await permissionChanges(room.id)
    expect(changes).toHaveLength(1)
    const before = roomRow(room.id)
    expect(before).toEqual([
      { policy_json: canonicalJson(LEGACY), revision: 1, mac: expect.any(String) },
    ])
    for (let read = 0; read < 2; read += 1) {
      expect(await readPermissions(harness, room.id)).toEqual({
        status: 200,
        body: {
          roomId: room.id,
          revision: 1,
          policy: LEGACY,
          mode: 'ask-for-approval',
          fullAccessUnavailable: null,
          integrity: 'ok',
        },
      })
    }
    expect(roomRow(room.id)).toEqual(before)
    expect(await permissionChanges(room.id)).toEqual(changes)
  })
})
