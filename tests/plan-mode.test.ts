import { randomUUID } from 'node:crypto'
import { existsSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { z } from 'zod'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TurnSchema, type Turn } from '../src/contracts/room.ts'
import { MODE_PRESETS } from '../src/runtime/policy/permission-modes.ts'
import { startInProcessRuntime } from './support/in-process-runtime.ts'
import { inputRequests, pendingInputFor, respond } from './support/input-helpers.ts'
import {
  auditEvents,
  decide,
  putMode,
  roomApprovals,
  toolCallsOf,
  waitForPendingApproval,
} from './support/policy-helpers.ts'
import { RecordingModel } from './support/recording-model.ts'
import { createRoom, turnSettled } from './support/room-helpers.ts'
import type { RuntimeHarness } from './support/runtime-harness.ts'

let harness: RuntimeHarness
const model = new RecordingModel()

beforeAll(async () => {
  harness = await startInProcessRuntime({ model })
})
afterAll(async () => {
  await harness?.close()
})

/** A direct room put in plan mode the way the workbench does it: no token. */
async function planRoom() {
  const room = await createRoom(harness)
  const entered = await putMode(harness, room.id, { mode: 'plan', expectedRevision: 0 }, null)
  expect(entered.status).toBe(200)
  return room
}

async function sendMessage(roomId: string, text: string, fields: { plan?: boolean } = {}) {
  const response = await harness.client.raw('POST', `/v1/rooms/${roomId}/messages`, {
    clientRequestId: randomUUID(),
    text,
    ...fields,
  })
  expect(response.status).toBe(202)
  return z.object({ turn: TurnSchema }).parse(response.body).turn
}

/** Nothing in the room ever asked anyone: no approval, no request event. */
async function nobodyAsked(roomId: string) {
  expect(await roomApprovals(harness, roomId)).toEqual([])
  const asked = (await auditEvents(harness)).filter(
    (event) => event.type === 'approval_requested' && event.payload.roomId === roomId,
  )
  expect(asked).toEqual([])
}

describe('a room in plan mode', () => {
  it('offers the agent only the tools that run without asking', async () => {
    const room = await planRoom()
    const before = model.contexts.length
    const turn = await sendMessage(room.id, 'list')
    await turnSettled(harness, room.id, turn.id)
    expect(turn.policy).toEqual(MODE_PRESETS.plan)
    expect(model.contexts[before]?.tools).toEqual([
      { name: 'read_file', effect: 'read' },
      { name: 'list_dir', effect: 'read' },
    ])
    expect(await toolCallsOf(harness, room.id, turn.id)).toMatchObject([
      { toolName: 'list_dir', status: 'succeeded' },
    ])
  })

  it('refuses a write, a command, a delete and an MCP call it did not offer, asking nobody', async () => {
    const room = await planRoom()
    await writeFile(join(harness.workspace, 'plan-seen.txt'), 'the plan input')
    const turn = await sendMessage(
      room.id,
      [
        'write plan-written.txt x',
        'run touch plan-ran.txt',
        'delete plan-seen.txt',
        'mcp notes read {}',
        'read plan-seen.txt',
      ].join('\n'),
    )
    const settled = await turnSettled(harness, room.id, turn.id)
    const calls = await toolCallsOf(harness, room.id, turn.id)
    expect(calls.map((call) => [call.toolName, call.status, call.result?.code ?? null])).toEqual([
      ['write_file', 'refused', 'not_offered_in_plan'],
      ['run_command', 'refused', 'not_offered_in_plan'],
      ['delete_file', 'refused', 'not_offered_in_plan'],
      ['notes__read', 'refused', 'not_offered_in_plan'],
      ['read_file', 'succeeded', null],
    ])
    expect(settled.turns.find((entry) => entry.id === turn.id)?.status).toBe('done')
    expect(existsSync(join(harness.workspace, 'plan-written.txt'))).toBe(false)
    expect(existsSync(join(harness.workspace, 'plan-ran.txt'))).toBe(false)
    expect(existsSync(join(harness.workspace, 'plan-seen.txt'))).toBe(true)
    await nobodyAsked(room.id)
  })

  it('makes every question blocking: no deadline, and the runtime never closes it', async () => {
    const room = await planRoom()
    const turn = await sendMessage(room.id, 'ask Scope | Which part first?')
    const request = await pendingInputFor(harness, room.id, turn.id)
    expect(request).toMatchObject({ blocking: true, timing: null, autoResolveAt: null })
    const kept = await harness.client.raw('POST', `/v1/input-requests/${request.id}/keep-waiting`)
    expect(kept).toMatchObject({ status: 409, body: { code: 'blocking' } })
    const auto = await respond(harness, request.id, { action: 'auto-resolve' })
    expect(auto).toMatchObject({ status: 409, body: { code: 'blocking' } })
    expect((await respond(harness, request.id, { action: 'dismiss' })).status).toBe(200)
    await turnSettled(harness, room.id, turn.id)
    expect((await inputRequests(harness, room.id))[0]?.status).toBe('dismissed')
  })
})

describe('one message in plan mode', () => {
  it('runs under the plan preset whatever the room allows, and so does its retry', async () => {
    const room = await createRoom(harness)
    const planned = await sendMessage(room.id, 'write plan-once.txt x', { plan: true })
    expect(planned).toMatchObject({ plan: true, policy: MODE_PRESETS.plan })
    await turnSettled(harness, room.id, planned.id)
    expect(await toolCallsOf(harness, room.id, planned.id)).toMatchObject([
      { status: 'refused', result: { code: 'not_offered_in_plan' } },
    ])
    await nobodyAsked(room.id)

    const retried = await harness.client.raw('POST', `/v1/turns/${planned.id}/retry`)
    expect(retried.status).toBe(202)
    const attempt: Turn = z.object({ turn: TurnSchema }).parse(retried.body).turn
    expect(attempt).toMatchObject({ plan: true, policy: MODE_PRESETS.plan, attempt: 2 })
    await turnSettled(harness, room.id, attempt.id)
    await nobodyAsked(room.id)

    // The room itself never left ask-for-approval: the next message asks.
    const normal = await sendMessage(room.id, 'write plan-once.txt x')
    expect(normal).toMatchObject({ plan: false, policy: MODE_PRESETS['ask-for-approval'] })
    const pending = await waitForPendingApproval(harness, room.id, normal.id)
    expect((await decide(harness, pending, 'deny')).status).toBe(200)
    await turnSettled(harness, room.id, normal.id)
    expect(existsSync(join(harness.workspace, 'plan-once.txt'))).toBe(false)
  })

  it('treats the plan flag as part of the message: a resend that drops it is a conflict', async () => {
    const room = await createRoom(harness)
    const body = { clientRequestId: randomUUID(), text: 'list', plan: true }
    const path = `/v1/rooms/${room.id}/messages`
    expect((await harness.client.raw('POST', path, body)).status).toBe(202)
    expect((await harness.client.raw('POST', path, body)).status).toBe(200)
    const dropped = await harness.client.raw('POST', path, { ...body, plan: false })
    expect(dropped).toMatchObject({ status: 409, body: { code: 'client_request_conflict' } })
  })
})
