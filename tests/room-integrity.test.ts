import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { canonicalJson } from '../src/contracts/canonical-json.ts'
import { MODE_PRESETS } from '../src/runtime/policy/permission-modes.ts'
import { editDatabase } from './support/integrity-helpers.ts'
import {
  auditEvents,
  decide,
  outsideDir,
  putMode,
  readPermissions,
  roomApprovals,
  roomGrants,
  toolCallsOf,
} from './support/policy-helpers.ts'
import { createRoom, pendingApprovalFor, send, turnSettled } from './support/room-helpers.ts'
import { startHarness, type RuntimeHarness } from './support/runtime-harness.ts'
import { WAIT_TIMEOUT_MS } from '../scripts/test-timing.ts'

let harness: RuntimeHarness

beforeAll(async () => {
  harness = await startHarness()
})
afterAll(async () => {
  await harness?.close()
})

async function runTurn(roomId: string, text: string) {
  const turnId = await send(harness, roomId, text)
  const settled = await turnSettled(harness, roomId, turnId)
  return {
    turn: settled.turns.find((turn) => turn.id === turnId)!,
    calls: await toolCallsOf(harness, roomId, turnId),
  }
}

async function integrityErrors(rowId: string) {
  return (await auditEvents(harness)).filter(
    (event) => event.type === 'integrity_error' && event.subjectId === rowId,
  )
}

/** The runtime's event stream from its first event, until `until` matches. */
async function eventStream(until: RegExp): Promise<string> {
  const { port, bearerToken } = harness.connection()
  const controller = new AbortController()
  const timer = setTimeout(() => controller.abort(), WAIT_TIMEOUT_MS)
  const response = await fetch(`http://127.0.0.1:${port}/v1/events`, {
    headers: { authorization: `Bearer ${bearerToken}`, 'last-event-id': '0' },
    signal: controller.signal,
  })
  let text = ''
  try {
    const decoder = new TextDecoder()
    const reader = response.body!.getReader()
    while (!until.test(text)) {
      const { done, value } = await reader.read()
      if (done) break
      text += decoder.decode(value, { stream: true })
    }
  } catch {
    // Aborted: return what arrived, and let the assertion say what is missing.
  } finally {
    clearTimeout(timer)
    controller.abort()
  }
  return text
}

/** Edits the room's row in the SQLite file while the runtime is down. */
async function editRoomAtRest(roomId: string, sql: string, ...params: Array<string | number>) {
  await harness.supervisor.stop()
  editDatabase(harness.dataDir, (db) => {
    expect(Number(db.prepare(sql).run(...params, roomId).changes)).toBe(1)
  })
  await harness.supervisor.start()
}

describe('a room policy edited to full access in the SQLite file', () => {
  it('grants no full access, reads as ask-for-approval and tampered, and is reported', async () => {
    const room = await createRoom(harness)
    const outside = await outsideDir(harness)
    await editRoomAtRest(
      room.id,
      'UPDATE rooms SET policy_json = ? WHERE id = ?',
      canonicalJson(MODE_PRESETS['full-access']),
    )

    const { calls } = await runTurn(room.id, `write ${outside}/escaped.txt x`)
    expect(calls).toMatchObject([
      { status: 'refused', approvalId: null, result: { code: 'outside_workspace' } },
    ])
    expect(existsSync(join(outside, 'escaped.txt'))).toBe(false)

    expect(await readPermissions(harness, room.id)).toEqual({
      status: 200,
      body: {
        roomId: room.id,
        revision: 0,
        policy: MODE_PRESETS['ask-for-approval'],
        mode: 'ask-for-approval',
        fullAccessUnavailable: null,
        integrity: 'tampered',
      },
    })
    const { room: listed } = (await harness.client.raw('GET', `/v1/rooms/${room.id}`)).body as {
      room: { mode: string }
    }
    expect(listed.mode).toBe('ask-for-approval')

    // Read many times, reported once: the news, not noise.
    const errors = await integrityErrors(room.id)
    expect(errors.map((event) => event.payload)).toEqual([
      { table: 'rooms', rowId: room.id, roomId: room.id, problem: 'mac_mismatch' },
    ])
    const stream = await eventStream(/event: runtime\.integrity/)
    expect(stream).toContain('event: runtime.integrity')
    expect(stream).toContain(`"roomId":"${room.id}"`)
  })

  it('is trusted again after a consented PUT, which seals it with a fresh MAC', async () => {
    const room = await createRoom(harness)
    const outside = await outsideDir(harness)
    await editRoomAtRest(
      room.id,
      'UPDATE rooms SET policy_json = ? WHERE id = ?',
      canonicalJson(MODE_PRESETS['full-access']),
    )
    expect((await readPermissions(harness, room.id)).body).toMatchObject({ integrity: 'tampered' })

    const confirmed = await putMode(harness, room.id, {
      mode: 'full-access',
      expectedRevision: 0,
      resealsRoom: true,
    })
    expect(confirmed).toMatchObject({
      status: 200,
      body: { revision: 1, mode: 'full-access', integrity: 'ok' },
    })
    await harness.supervisor.stop()
    await harness.supervisor.start()
    expect((await readPermissions(harness, room.id)).body).toMatchObject({
      mode: 'full-access',
      integrity: 'ok',
    })
    const { calls } = await runTurn(room.id, `write ${outside}/allowed.txt x`)
    expect(calls).toMatchObject([{ status: 'succeeded' }])
    expect(existsSync(join(outside, 'allowed.txt'))).toBe(true)
  })

  it('cannot be confirmed when its workspace was moved too: the person would vouch for a folder they never chose', async () => {
    const room = await createRoom(harness)
    const outside = await outsideDir(harness)
    await editRoomAtRest(
      room.id,
      'UPDATE rooms SET workspace = ?, policy_json = ? WHERE id = ?',
      outside,
      canonicalJson(MODE_PRESETS['full-access']),
    )
    const confirmed = await putMode(harness, room.id, {
      mode: 'ask-for-approval',
      expectedRevision: 0,
      resealsRoom: true,
    })
    expect(confirmed).toMatchObject({ status: 409, body: { code: 'room_tampered' } })
    expect((await readPermissions(harness, room.id)).body).toMatchObject({
      revision: 0,
      integrity: 'tampered',
    })
  })

  it('treats a row without a MAC, such as one inserted by hand, as tampered', async () => {
    const room = await createRoom(harness)
    await editRoomAtRest(room.id, 'UPDATE rooms SET mac = NULL WHERE id = ?')
    expect((await readPermissions(harness, room.id)).body).toMatchObject({
      integrity: 'tampered',
    })
    expect((await integrityErrors(room.id)).map((event) => event.payload.problem)).toEqual([
      'mac_missing',
    ])
  })

  it('does not let a MAC copied from another room vouch for this one', async () => {
    const sealed = await createRoom(harness)
    await putMode(harness, sealed.id, { mode: 'full-access', expectedRevision: 0 })
    const target = await createRoom(harness)
    await harness.supervisor.stop()
    editDatabase(harness.dataDir, (db) => {
      db.prepare(
        `UPDATE rooms SET (policy_json, revision, mac) =
           (SELECT policy_json, revision, mac FROM rooms WHERE id = ?) WHERE id = ?`,
      ).run(sealed.id, target.id)
    })
    await harness.supervisor.start()
    expect((await readPermissions(harness, target.id)).body).toMatchObject({
      mode: 'ask-for-approval',
      integrity: 'tampered',
    })
  })
})

describe('a turn edited in the SQLite file', () => {
  it('is not retried in a workspace other than its room’s', async () => {
    const room = await createRoom(harness)
    const outside = await outsideDir(harness)
    const { turn } = await runTurn(room.id, 'list')
    editDatabase(harness.dataDir, (db) => {
      db.prepare('UPDATE turns SET workspace = ? WHERE id = ?').run(outside, turn.id)
    })
    const retried = await harness.client.raw('POST', `/v1/turns/${turn.id}/retry`)
    expect(retried).toMatchObject({ status: 409, body: { code: 'workspace_mismatch' } })
  })
})

describe('allow-always grants edited in the SQLite file', () => {
  /** A room where the person allowed `run echo <word>` always. */
  async function roomWithGrant(word: string) {
    const room = await createRoom(harness)
    const view = await pendingApprovalFor(harness, room.id, `run echo ${word}`)
    expect((await decide(harness, view, 'allow-always')).status).toBe(200)
    await turnSettled(harness, room.id, view.approval.turnId)
    const grants = await roomGrants(harness, room.id)
    expect(grants).toHaveLength(1)
    return { room, grant: grants[0]! }
  }

  it('does not run a command a grant was edited to name, and reports the grant', async () => {
    const { room, grant } = await roomWithGrant('granted')
    // Edited while the runtime runs: caught on the next read.
    editDatabase(harness.dataDir, (db) => {
      db.prepare('UPDATE grants SET command_json = ? WHERE id = ?').run(
        canonicalJson(['echo', 'forged']),
        grant.id,
      )
    })
    const view = await pendingApprovalFor(harness, room.id, 'run echo forged')
    expect(view.approval.status).toBe('pending')
    expect((await decide(harness, view, 'deny')).status).toBe(200)
    expect(await roomGrants(harness, room.id)).toEqual([])
    expect((await integrityErrors(grant.id)).map((event) => event.payload)).toEqual([
      { table: 'grants', rowId: grant.id, roomId: room.id, problem: 'mac_mismatch' },
    ])
  })

  it('does not revive a revoked grant whose revocation was cleared', async () => {
    const { room, grant } = await roomWithGrant('revoked')
    expect(
      (await harness.client.raw('DELETE', `/v1/rooms/${room.id}/grants/${grant.id}`)).status,
    ).toBe(200)
    editDatabase(harness.dataDir, (db) => {
      db.prepare('UPDATE grants SET revoked_at = NULL WHERE id = ?').run(grant.id)
    })
    expect(await roomGrants(harness, room.id)).toEqual([])
    const view = await pendingApprovalFor(harness, room.id, 'run echo revoked')
    expect((await decide(harness, view, 'deny')).status).toBe(200)
  })

  it('suspends every grant of a tampered room until the person confirms its mode again', async () => {
    const { room, grant } = await roomWithGrant('kept')
    await editRoomAtRest(
      room.id,
      'UPDATE rooms SET policy_json = ? WHERE id = ?',
      canonicalJson(MODE_PRESETS['approve-for-me']),
    )
    expect(await roomGrants(harness, room.id)).toEqual([])
    const view = await pendingApprovalFor(harness, room.id, 'run echo kept')
    expect(view.approval.status).toBe('pending')
    expect((await decide(harness, view, 'deny')).status).toBe(200)

    const { revision } = (await readPermissions(harness, room.id)).body as { revision: number }
    const confirmed = await putMode(harness, room.id, {
      mode: 'ask-for-approval',
      expectedRevision: revision,
      resealsRoom: true,
    })
    expect(confirmed.status).toBe(200)
    expect((await roomGrants(harness, room.id)).map((kept) => kept.id)).toEqual([grant.id])
    const before = (await roomApprovals(harness, room.id)).length
    const { calls } = await runTurn(room.id, 'run echo kept')
    expect(calls).toMatchObject([{ status: 'succeeded', approvalId: null }])
    expect(await roomApprovals(harness, room.id)).toHaveLength(before)
  })
})
