import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { AgentContext, AgentModel, AgentStep } from '../src/runtime/agent/agent-model.ts'
import { startInProcessRuntime } from './support/in-process-runtime.ts'
import { decide, toolCallsOf, waitForPendingApproval } from './support/policy-helpers.ts'
import { createRoom, send, turnSettled } from './support/room-helpers.ts'
import type { RuntimeHarness } from './support/runtime-harness.ts'

/**
 * A turn whose call waits for a decision is kept as data, not as suspended
 * functions (agent-runner.ts): when the decision comes, the turn goes on
 * from where it stopped. A model that puts two writes in one step, then
 * replies with what it was told, shows that it goes on with the right call,
 * the right sequence number and the outcomes of every earlier action, and
 * that turns waiting side by side keep their own.
 */
class TwoWritesModel implements AgentModel {
  async next(context: AgentContext): Promise<AgentStep> {
    if (context.outcomes.length === 0) {
      const [first, second] = context.userText.split(' ')
      return {
        type: 'act',
        say: 'writing both',
        actions: [first, second].map((name) => ({
          type: 'tool' as const,
          call: { tool: 'write_file', arguments: { path: name!, content: `${name} content` } },
        })),
      }
    }
    return {
      type: 'reply',
      text: context.outcomes
        .map((outcome) => (outcome.type === 'tool' ? `${outcome.status}` : outcome.type))
        .join(', '),
    }
  }
}

let harness: RuntimeHarness
const model = new TwoWritesModel()

beforeAll(async () => {
  harness = await startInProcessRuntime({ model })
})
afterAll(async () => {
  await harness?.close()
})

describe('a turn waiting for a decision', () => {
  it('goes on after each decision with its next call, then replies with every outcome', async () => {
    const room = await createRoom(harness)
    const turnId = await send(harness, room.id, 'first.txt second.txt')
    const first = await waitForPendingApproval(harness, room.id, turnId)
    expect(first.approval.arguments).toMatchObject({ path: 'first.txt' })
    expect((await decide(harness, first, 'allow-once')).status).toBe(200)

    const second = await waitForPendingApproval(harness, room.id, turnId)
    expect(second.approval.arguments).toMatchObject({ path: 'second.txt' })
    expect((await decide(harness, second, 'deny')).status).toBe(200)

    const settled = await turnSettled(harness, room.id, turnId)
    expect(settled.turns.find((turn) => turn.id === turnId)?.status).toBe('done')
    const calls = await toolCallsOf(harness, room.id, turnId)
    expect(calls.map((call) => [call.seq, call.arguments.path, call.status])).toEqual([
      [0, 'first.txt', 'succeeded'],
      [1, 'second.txt', 'denied'],
    ])
    expect(readFileSync(join(room.workspace, 'first.txt'), 'utf8')).toBe('first.txt content')
    expect(existsSync(join(room.workspace, 'second.txt'))).toBe(false)
    const reply = settled.messages.filter(
      (message) => message.turnId === turnId && message.role === 'agent',
    )
    expect(reply.map((message) => message.text)).toEqual(['writing both', 'succeeded, denied'])
  })

  it('keeps each waiting turn’s own progress when decisions come in another order', async () => {
    const room = await createRoom(harness)
    const turns = await Promise.all(
      ['a', 'b', 'c'].map((name) => send(harness, room.id, `${name}1.txt ${name}2.txt`)),
    )
    const firsts = await Promise.all(
      turns.map((turnId) => waitForPendingApproval(harness, room.id, turnId)),
    )
    // Decided last to first: a turn resumed must take its own next call.
    for (const view of [...firsts].reverse()) {
      expect((await decide(harness, view, 'allow-once')).status).toBe(200)
    }
    const seconds = await Promise.all(
      turns.map((turnId) => waitForPendingApproval(harness, room.id, turnId)),
    )
    for (const [index, view] of seconds.entries()) {
      expect(view.approval.arguments.path).toBe(`${'abc'[index]}2.txt`)
      expect((await decide(harness, view, index === 1 ? 'deny' : 'allow-once')).status).toBe(200)
    }
    for (const [index, turnId] of turns.entries()) {
      const settled = await turnSettled(harness, room.id, turnId)
      const reply = settled.messages.filter(
        (message) => message.turnId === turnId && message.role === 'agent',
      )
      expect(reply.at(-1)?.text).toBe(index === 1 ? 'succeeded, denied' : 'succeeded, succeeded')
      const calls = await toolCallsOf(harness, room.id, turnId)
      expect(calls.map((call) => [call.seq, call.arguments.path])).toEqual([
        [0, `${'abc'[index]}1.txt`],
        [1, `${'abc'[index]}2.txt`],
      ])
    }
  })
})
