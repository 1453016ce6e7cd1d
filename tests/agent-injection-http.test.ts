import { existsSync, readFileSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MAX_AGENT_STEPS } from '../src/runtime/agent/agent-runner.ts'
import type { AgentContext, AgentModel, AgentStep } from '../src/runtime/agent/agent-model.ts'
import type { ActionReviewer } from '../src/runtime/policy/reviewer.ts'
import { startInProcessRuntime } from './support/in-process-runtime.ts'
import {
  auditEvents,
  decide,
  roomApprovals,
  setMode,
  toolCallsOf,
  waitForPendingApproval,
} from './support/policy-helpers.ts'
import { createRoom, send, turnSettled } from './support/room-helpers.ts'
import { eventually, type RuntimeHarness } from './support/runtime-harness.ts'

/** Sends a message and waits for its turn to settle. */
async function runTurn(harness: RuntimeHarness, roomId: string, text: string) {
  const turnId = await send(harness, roomId, text)
  const settled = await turnSettled(harness, roomId, turnId)
  return {
    turn: settled.turns.find((turn) => turn.id === turnId)!,
    calls: await toolCallsOf(harness, roomId, turnId),
    messages: settled.messages.filter((message) => message.turnId === turnId),
  }
}

/** Approve-for-me with a reviewer that cannot answer: the write goes to the
 *  person, escalated with the failure as its reason and audited as a failed
 *  review; nothing runs until the person decides, and it runs once they
 *  allow it in the protected window. */
async function expectEscalatedToPerson(
  reviewer: ActionReviewer,
  reasonPattern: RegExp,
  reviewerTimeoutMs?: number,
): Promise<void> {
  const harness = await startInProcessRuntime({
    reviewer,
    ...(reviewerTimeoutMs === undefined ? {} : { reviewerTimeoutMs }),
  })
  try {
    const room = await createRoom(harness)
    await setMode(harness, room.id, 'approve-for-me')
    const turnId = await send(harness, room.id, 'write reviewed.txt hi')
    const view = await waitForPendingApproval(harness, room.id, turnId)
    const escalated = await eventually(async () => {
      const [approval] = await roomApprovals(harness, room.id)
      return approval?.escalationReason ? approval : undefined
    }, 'the failed review to escalate')
    expect(escalated).toMatchObject({ id: view.approval.id, status: 'pending' })
    expect(escalated.decidedBy).toBeUndefined()
    expect(escalated.escalationReason).toMatch(/^automatic review failed: /)
    expect(escalated.escalationReason).toMatch(reasonPattern)
    const audit = (await auditEvents(harness)).filter(
      (event) => event.subjectId === view.approval.id,
    )
    expect(audit.map((event) => event.type)).toEqual(['approval_requested', 'review_escalated'])
    expect(audit[1]?.payload).toMatchObject({ reviewFailed: true })
    expect(existsSync(join(harness.workspace, 'reviewed.txt'))).toBe(false)

    expect((await decide(harness, view, 'allow-once')).status).toBe(200)
    await turnSettled(harness, room.id, turnId)
    expect(await toolCallsOf(harness, room.id, turnId)).toMatchObject([{ status: 'succeeded' }])
    const [decided] = await roomApprovals(harness, room.id)
    expect(decided).toMatchObject({ status: 'allowed', decidedBy: 'user' })
    expect(readFileSync(join(harness.workspace, 'reviewed.txt'), 'utf8')).toBe('hi')
  } finally {
    await harness.close()
  }
}

describe('an injected reviewer that cannot answer, over HTTP', () => {
  it('escalates to the person in approve-for-me when the reviewer throws; nothing runs before they allow', async () => {
    const throwing: ActionReviewer = {
      review: () => Promise.reject(new Error('the review model is unreachable')),
    }
    await expectEscalatedToPerson(throwing, /the review model is unreachable/)
  })

  it('escalates to the person in approve-for-me when the reviewer hangs past its timeout', async () => {
    const hanging: ActionReviewer = { review: () => new Promise(() => undefined) }
    await expectEscalatedToPerson(hanging, /no answer within 150 ms/, 150)
  })
})

/** A model that reads a file, then writes what it read into another one,
 *  then replies with what it saw: it can only do so if the runner hands it
 *  the outcome of its first call. */
class CopyingModel implements AgentModel {
  readonly contexts: AgentContext[] = []

  async next(context: AgentContext): Promise<AgentStep> {
    this.contexts.push(context)
    const [read, write] = context.outcomes
    if (!read) {
      return {
        type: 'act',
        say: 'Reading the source.',
        actions: [{ type: 'tool', call: { tool: 'read_file', arguments: { path: 'source.txt' } } }],
      }
    }
    if (!write && read.type === 'tool') {
      return {
        type: 'act',
        say: 'Copying it.',
        actions: [
          {
            type: 'tool',
            call: {
              tool: 'write_file',
              arguments: { path: 'copy.txt', content: read.result.output },
            },
          },
        ],
      }
    }
    return {
      type: 'reply',
      text: `Copied; the write ended ${write?.type === 'tool' ? write.status : '?'}.`,
    }
  }
}

/** Never replies: asks to list the workspace at every step. */
const restlessModel: AgentModel = {
  next: async () => ({
    type: 'act',
    say: '',
    actions: [{ type: 'tool', call: { tool: 'list_dir', arguments: { path: '.' } } }],
  }),
}

describe('an injected model, over HTTP', () => {
  let harness: RuntimeHarness
  const copying = new CopyingModel()
  let model: AgentModel = copying

  beforeAll(async () => {
    harness = await startInProcessRuntime({ model: { next: (context) => model.next(context) } })
  })
  afterAll(async () => {
    await harness?.close()
  })

  it('sees each tool result of the turn, and the room history, before its next step', async () => {
    model = copying
    const room = await createRoom(harness)
    await setMode(harness, room.id, 'full-access')
    await writeFile(join(harness.workspace, 'source.txt'), 'the original')
    const { turn, calls, messages } = await runTurn(harness, room.id, 'copy it please')
    expect(turn.status).toBe('done')
    expect(calls.map((call) => [call.toolName, call.status])).toEqual([
      ['read_file', 'succeeded'],
      ['write_file', 'succeeded'],
    ])
    expect(readFileSync(join(harness.workspace, 'copy.txt'), 'utf8')).toBe('the original')
    expect(messages.map((message) => message.text)).toContain('Copied; the write ended succeeded.')

    const first = copying.contexts[0]
    expect(first?.userText).toBe('copy it please')
    expect(first?.outcomes).toEqual([])
    expect(first?.tools).toContainEqual({ name: 'write_file', effect: 'write' })
    expect(copying.contexts).toHaveLength(3)

    copying.contexts.length = 0
    await runTurn(harness, room.id, 'again')
    expect(copying.contexts[0]?.history.map((message) => message.text)).toEqual(
      expect.arrayContaining(['copy it please', 'Copied; the write ended succeeded.']),
    )
  })

  it('fails the turn, running nothing, when the model answers something that is not a step', async () => {
    model = {
      next: async () =>
        ({
          type: 'act',
          say: 'Writing.',
          actions: [{ type: 'tool', call: { tool: 'write_file' } }],
        }) as unknown as AgentStep,
    }
    const room = await createRoom(harness)
    const { turn, calls, messages } = await runTurn(harness, room.id, 'anything')
    expect(turn.status).toBe('failed')
    expect(calls).toEqual([])
    expect(messages.at(-1)).toMatchObject({ role: 'system' })
    expect(messages.at(-1)?.text).toMatch(/not a step \(actions\.0\.call\.arguments: /)
  })

  it(`stops a turn whose model has not replied after ${MAX_AGENT_STEPS} steps, saying so`, async () => {
    model = restlessModel
    const room = await createRoom(harness)
    const { turn, calls, messages } = await runTurn(harness, room.id, 'keep going')
    expect(turn.status).toBe('failed')
    expect(calls).toHaveLength(MAX_AGENT_STEPS)
    expect(messages.at(-1)).toMatchObject({ role: 'system' })
    expect(messages.at(-1)?.text).toMatch(`${MAX_AGENT_STEPS} steps without a final reply`)
  })
})
