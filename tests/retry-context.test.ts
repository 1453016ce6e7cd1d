import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { z } from 'zod'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { AgentContext } from '../src/runtime/agent/agent-model.ts'
import { TurnSchema } from '../src/contracts/room.ts'
import { startInProcessRuntime } from './support/in-process-runtime.ts'
import { decide, toolCallsOf, waitForPendingApproval } from './support/policy-helpers.ts'
import { RecordingModel } from './support/recording-model.ts'
import { createRoom, send, timeline, turnSettled } from './support/room-helpers.ts'
import type { RuntimeHarness } from './support/runtime-harness.ts'

let harness: RuntimeHarness
const model = new RecordingModel()

beforeAll(async () => {
  harness = await startInProcessRuntime({ model })
})
afterAll(async () => {
  await harness?.close()
})

async function retry(turnId: string): Promise<string> {
  const response = await harness.client.raw('POST', `/v1/turns/${turnId}/retry`)
  expect(response.status).toBe(202)
  return z.object({ turn: TurnSchema }).parse(response.body).turn.id
}

/** The texts of the room's messages from the person. */
async function userTexts(roomId: string): Promise<string[]> {
  const current = await timeline(harness, roomId)
  return current.messages.filter((message) => message.role === 'user').map((m) => m.text)
}

/** The first context the model was handed for a turn that starts now. */
async function firstContextOf(start: () => Promise<string>) {
  const before = model.contexts.length
  const turnId = await start()
  await expect.poll(() => model.contexts.length).toBeGreaterThan(before)
  return { turnId, context: model.contexts[before] as AgentContext }
}

describe('a retried turn starts clean', () => {
  it('after a denial: the request once, none of the denied attempt, the room before it kept', async () => {
    const room = await createRoom(harness)
    const earlier = await send(harness, room.id, 'list')
    await turnSettled(harness, room.id, earlier)

    const first = await send(harness, room.id, 'write retried.txt second try')
    const denied = await waitForPendingApproval(harness, room.id, first)
    expect((await decide(harness, denied, 'deny')).status).toBe(200)
    const afterDenial = await turnSettled(harness, room.id, first)
    const deniedAttempt = afterDenial.messages
      .filter((message) => message.turnId === first)
      .map((message) => message.text)
    // What the model would have seen again without the fix: the request,
    // "Writing retried.txt." and the report of a write that never ran.
    expect(deniedAttempt).toHaveLength(3)

    const { turnId: second, context } = await firstContextOf(() => retry(first))
    expect(context.userText).toBe('write retried.txt second try')
    expect(context.outcomes).toEqual([])
    const history = context.history.map((message) => message.text)
    for (const text of deniedAttempt) expect(history).not.toContain(text)
    expect(history).toContain('list')
    expect(history.some((text) => text.startsWith('What happened:'))).toBe(true)

    expect(await userTexts(room.id)).toEqual(['list', 'write retried.txt second try'])
    const allowed = await waitForPendingApproval(harness, room.id, second)
    expect((await decide(harness, allowed, 'allow-once')).status).toBe(200)
    await turnSettled(harness, room.id, second)
    expect(readFileSync(join(harness.workspace, 'retried.txt'), 'utf8')).toBe('second try')
  })

  it('after a failure: no note of the failed attempt, and a retry of the retry leaves out both', async () => {
    const room = await createRoom(harness)
    model.failNext = true
    const first = await send(harness, room.id, 'write after-failure.txt x')
    const failed = await turnSettled(harness, room.id, first)
    expect(failed.turns.find((turn) => turn.id === first)?.status).toBe('failed')
    const note = failed.messages.find((m) => m.turnId === first && m.role === 'system')
    expect(note?.text).toMatch(/the model went away/)

    model.failNext = true
    const { turnId: second, context: retried } = await firstContextOf(() => retry(first))
    expect(retried.userText).toBe('write after-failure.txt x')
    expect(retried.history).toEqual([])
    await turnSettled(harness, room.id, second)

    const { turnId: third, context: again } = await firstContextOf(() => retry(second))
    expect(again.history).toEqual([])
    expect(again.userText).toBe('write after-failure.txt x')
    const pending = await waitForPendingApproval(harness, room.id, third)
    expect((await decide(harness, pending, 'deny')).status).toBe(200)
    await turnSettled(harness, room.id, third)

    expect(await userTexts(room.id)).toEqual(['write after-failure.txt x'])
    const current = await timeline(harness, room.id)
    expect(current.turns.map((turn) => [turn.attempt, turn.retryOf])).toEqual([
      [1, null],
      [2, first],
      [3, second],
    ])
    expect(await toolCallsOf(harness, room.id, third)).toMatchObject([{ status: 'denied' }])
    expect(existsSync(join(harness.workspace, 'after-failure.txt'))).toBe(false)
  })

  it('still gives a first attempt the room history of earlier requests', async () => {
    const room = await createRoom(harness)
    const earlier = await send(harness, room.id, 'list')
    await turnSettled(harness, room.id, earlier)
    const { context } = await firstContextOf(() => send(harness, room.id, 'list .'))
    expect(context.userText).toBe('list .')
    expect(context.history.map((message) => message.text)).toEqual(
      expect.arrayContaining(['list', expect.stringMatching(/^Listing \.\./)]),
    )
    expect(context.history.map((message) => message.text)).not.toContain('list .')
  })
})

describe("a turn's history", () => {
  it('is the same at every step: what another turn stores while this one waits for a person is not in it', async () => {
    const room = await createRoom(harness)
    const earlier = await send(harness, room.id, 'list')
    await turnSettled(harness, room.id, earlier)
    const before = model.contexts.length
    const waiting = await send(harness, room.id, 'write history.txt kept')
    const approval = await waitForPendingApproval(harness, room.id, waiting)

    // Another turn in the room runs to its end while this one waits.
    const other = await send(harness, room.id, 'list .')
    await turnSettled(harness, room.id, other)
    expect((await decide(harness, approval, 'allow-once')).status).toBe(200)
    await turnSettled(harness, room.id, waiting)

    const steps = model.contexts
      .slice(before)
      .filter((context) => context.userText === 'write history.txt kept')
    expect(steps).toHaveLength(2)
    const [first, second] = steps.map((step) => step!.history.map((message) => message.text))
    expect(first).toContain('list')
    expect(second).toEqual(first)
    expect(second).not.toContain('list .')
    expect(steps[1]!.outcomes).toMatchObject([{ type: 'tool', status: 'succeeded' }])
  })
})
