import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { z } from 'zod'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MODE_PRESETS } from '../src/runtime/policy/permission-modes.ts'
import { TurnSchema } from '../src/contracts/room.ts'
import {
  createRoom,
  pendingApprovalFor,
  send,
  timeline,
  turnSettled,
} from './support/room-helpers.ts'
import { eventually, startHarness, type RuntimeHarness } from './support/runtime-harness.ts'
import {
  auditEvents,
  decide,
  outsideDir,
  setMode,
  toolCallsOf,
  waitForPendingApproval,
} from './support/policy-helpers.ts'
import { killOrphan, sleeperCommand } from './support/sleeper.ts'

let harness: RuntimeHarness

beforeAll(async () => {
  harness = await startHarness()
})
afterAll(async () => {
  await harness?.close()
})

function retry(target: RuntimeHarness, turnId: string) {
  return target.client.raw('POST', `/v1/turns/${turnId}/retry`)
}

async function turnById(target: RuntimeHarness, roomId: string, turnId: string) {
  return (await timeline(target, roomId)).turns.find((turn) => turn.id === turnId)
}

/**
 * A two-call turn accepted under ask-for-approval; while its first write
 * waits for the person, the room switches to full access; then the person
 * allows the first write and the turn settles.
 */
async function turnFrozenBeforeSwitch() {
  const room = await createRoom(harness)
  const outside = await outsideDir(harness)
  const insideName = `frozen-${room.id}.txt`
  const turnId = await send(harness, room.id, `write ${insideName} 1\nwrite ${outside}/b.txt 2`)
  const first = await waitForPendingApproval(harness, room.id, turnId)
  await setMode(harness, room.id, 'full-access')
  expect((await decide(harness, first, 'allow-once')).status).toBe(200)
  await turnSettled(harness, room.id, turnId)
  return { room, turnId, insideName, outside }
}

describe('a turn keeps the policy it was accepted under', () => {
  it('refuses its later outside write even after the room switched to full access mid-turn', async () => {
    const { room, turnId, insideName, outside } = await turnFrozenBeforeSwitch()
    const turn = await turnById(harness, room.id, turnId)
    expect(turn?.policy).toEqual(MODE_PRESETS['ask-for-approval'])
    const calls = await toolCallsOf(harness, room.id, turnId)
    expect(calls.map((call) => [call.status, call.result?.code ?? null])).toEqual([
      ['succeeded', null],
      ['refused', 'outside_workspace'],
    ])
    expect(readFileSync(join(harness.workspace, insideName), 'utf8')).toBe('1')
    expect(existsSync(join(outside, 'b.txt'))).toBe(false)
  })

  it('runs a retry as a new attempt under the current policy, in the original workspace', async () => {
    const { room, turnId, outside } = await turnFrozenBeforeSwitch()
    const response = await retry(harness, turnId)
    expect(response.status).toBe(202)
    const attempt = z.object({ turn: TurnSchema }).parse(response.body).turn
    expect(attempt).toMatchObject({
      retryOf: turnId,
      attempt: 2,
      workspace: harness.workspace,
      policy: MODE_PRESETS['full-access'],
    })
    await turnSettled(harness, room.id, attempt.id)
    const calls = await toolCallsOf(harness, room.id, attempt.id)
    expect(calls).toMatchObject([
      { status: 'succeeded', approvalId: null },
      { status: 'succeeded', approvalId: null },
    ])
    expect(readFileSync(join(outside, 'b.txt'), 'utf8')).toBe('2')
  })

  it('refuses to retry a turn that is still waiting for a decision', async () => {
    const room = await createRoom(harness)
    const view = await pendingApprovalFor(harness, room.id, 'write waiting.txt x')
    const response = await retry(harness, view.approval.turnId)
    expect(response.status).toBe(409)
    expect(response.body).toMatchObject({ code: 'turn_in_progress' })
    expect((await decide(harness, view, 'deny')).status).toBe(200)
  })
})

describe('a runtime crash', () => {
  let crashing: RuntimeHarness
  const pidFile = () => join(crashing.workspace, 'sleeper.pid')

  beforeAll(async () => {
    crashing = await startHarness()
  })
  afterAll(async () => {
    if (crashing) killOrphan(pidFile())
    await crashing?.close()
  })

  /** SIGKILLs the runtime process, as a crash would, and starts it again. */
  async function crashAndRestart(): Promise<void> {
    process.kill(crashing.supervisor.pid!, 'SIGKILL')
    await eventually(
      () => (crashing.supervisor.current === undefined ? true : undefined),
      'the runtime to exit',
    )
    await crashing.supervisor.start()
  }

  it('leaves a running execution unknown and its turn interrupted; a retry waits for a reconcile', async () => {
    const room = await createRoom(crashing)
    const running = await pendingApprovalFor(crashing, room.id, sleeperCommand(pidFile()))
    const turnId = running.approval.turnId
    expect((await decide(crashing, running, 'allow-once')).status).toBe(200)
    const call = await eventually(async () => {
      const [current] = await toolCallsOf(crashing, room.id, turnId)
      return current?.status === 'running' && existsSync(pidFile()) ? current : undefined
    }, 'the sleeper to be running')

    await crashAndRestart()

    expect(await toolCallsOf(crashing, room.id, turnId)).toMatchObject([
      { id: call.id, status: 'unknown' },
    ])
    expect((await turnById(crashing, room.id, turnId))?.status).toBe('interrupted')
    const audit = await auditEvents(crashing)
    expect(audit.filter((event) => event.subjectId === call.id).map((e) => e.type)).toEqual([
      'execution_unknown',
    ])

    const blocked = await retry(crashing, turnId)
    expect(blocked.status).toBe(409)
    expect(blocked.body).toMatchObject({ code: 'execution_unknown' })

    const reconciled = await crashing.client.raw('POST', `/v1/executions/${call.id}/reconcile`, {
      outcome: 'failed',
      note: 'killed with the runtime',
    })
    expect(reconciled).toEqual({ status: 200, body: { reconciled: call.id } })
    expect(await toolCallsOf(crashing, room.id, turnId)).toMatchObject([
      { id: call.id, status: 'failed', result: { code: 'reconciled' } },
    ])
    const again = await crashing.client.raw('POST', `/v1/executions/${call.id}/reconcile`, {
      outcome: 'succeeded',
    })
    expect(again.status).toBe(409)

    const retried = await retry(crashing, turnId)
    expect(retried.status).toBe(202)
    const attempt = z.object({ turn: TurnSchema }).parse(retried.body).turn
    expect(attempt).toMatchObject({ retryOf: turnId, attempt: 2 })
    // The retry asks again under the room's current policy; refuse it so no
    // second sleeper starts.
    const second = await waitForPendingApproval(crashing, room.id, attempt.id)
    expect((await decide(crashing, second, 'deny')).status).toBe(200)
    const settled = await turnSettled(crashing, room.id, attempt.id)
    // The person asked once: the retry stores no second copy of the request.
    const asked = settled.messages.filter((message) => message.role === 'user')
    expect(asked).toMatchObject([{ turnId, text: attempt.text }])
  })

  it('expires the approvals left pending, settles their tool calls, and refuses tokens for them', async () => {
    const room = await createRoom(crashing)
    const waiting = await pendingApprovalFor(crashing, room.id, 'write never.txt x')
    const turnId = waiting.approval.turnId

    await crashAndRestart()

    expect((await crashing.client.getApproval(waiting.approval.id)).approval).toMatchObject({
      status: 'expired',
      decidedBy: 'timeout',
    })
    expect(await toolCallsOf(crashing, room.id, turnId)).toMatchObject([
      { status: 'expired', result: { ok: false, code: 'approval_expired' } },
    ])
    expect((await turnById(crashing, room.id, turnId))?.status).toBe('interrupted')
    const late = await decide(crashing, waiting, 'allow-once')
    expect(late.status).toBe(410)
    expect(late.body).toMatchObject({ code: 'approval_expired' })
    expect(existsSync(join(crashing.workspace, 'never.txt'))).toBe(false)
  })
})
