import { existsSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { TurnSchema } from '../src/contracts/room.ts'
import { addFilePatch } from '../scripts/agents/scripted-model-server.ts'
import { HISTORY_CLOSING, HISTORY_OPENING } from '../src/runtime/external-turns/carried-history.ts'
import { AGENT_WAIT_MS } from './support/external-agent-testbed.ts'
import {
  ACP_AGENT_ID,
  agentRoom,
  askedApproval,
  CODEX_AGENT_ID,
  messagesOf,
  turnEnded,
  useAgentRuntime,
} from './support/external-agent-runtime.ts'
import { decide, setMode } from './support/policy-helpers.ts'
import { send } from './support/room-helpers.ts'

/**
 * What a real agent knows of the room when Assent starts it again: the
 * room's recent conversation, carried into the new session's first prompt
 * as history; and a retried turn that starts a new session without the
 * attempt that was denied. Only the model is scripted; what the agent sent
 * it is read from the scripted model's record.
 */
const bed = useAgentRuntime()
const { agents, inWorkspace } = bed

/** Everything the agent sent the model from request `from` on, as text. */
function toldFrom(from: number): string {
  return bed.runtime.model.requests
    .slice(from)
    .map((request) => JSON.stringify(request.body))
    .join('\n')
}

/**
 * The agent's answer to the greeting, as the history carries it. codex-acp
 * sends Codex's warnings as the agent's message text, in the same message
 * as the reply that follows (ACP's message chunks carry no message id), and
 * whether Codex warns that the scripted model has no metadata has changed
 * between runs of the same pinned agent: the reply may follow that warning
 * on its line, and nothing else may.
 */
const AGENT_GREETING =
  /^agent> (?:Model metadata for `scripted-model` not found\. [^`]*)?hello to you$/

async function retry(turnId: string): Promise<string> {
  const response = await bed.runtime.harness.client.raw('POST', `/v1/turns/${turnId}/retry`)
  expect(response.status).toBe(202)
  return z.object({ turn: TurnSchema }).parse(response.body).turn.id
}

describe.skipIf(!agents)('history carried into a new agent session', () => {
  it(
    'a Codex started again for a new mode gets the room’s earlier words as history, and the new message as the person’s',
    { timeout: AGENT_WAIT_MS * 3 },
    async () => {
      const roomId = await agentRoom(bed.runtime, CODEX_AGENT_ID)
      bed.runtime.model.script([{ type: 'reply', text: 'noted: the word is pelican' }])
      const first = await send(bed.runtime.harness, roomId, 'remember the word pelican')
      expect((await turnEnded(bed.runtime, roomId, first)).turn.status).toBe('done')

      // The same session takes the next turn: it has the conversation, and
      // nothing is carried.
      bed.runtime.model.script([{ type: 'reply', text: 'still here' }])
      const kept = bed.runtime.model.requests.length
      const second = await send(bed.runtime.harness, roomId, 'are you there?')
      expect((await turnEnded(bed.runtime, roomId, second)).turn.status).toBe('done')
      expect(toldFrom(kept)).not.toContain(HISTORY_OPENING)

      await setMode(bed.runtime.harness, roomId, 'full-access')
      bed.runtime.model.script([{ type: 'reply', text: 'pelican' }])
      const before = bed.runtime.model.requests.length
      const third = await send(bed.runtime.harness, roomId, 'which word was it?')
      const { turn, timeline } = await turnEnded(bed.runtime, roomId, third)
      expect(turn.status).toBe('done')
      const told = toldFrom(before)
      expect(told).toContain(HISTORY_OPENING)
      expect(told).toContain('person> remember the word pelican')
      expect(told).toContain('agent> noted: the word is pelican')
      expect(told).toContain('agent> still here')
      // The new message follows the history, after its closing line.
      expect(told).toContain(`${HISTORY_CLOSING}\\n\\nwhich word was it?`)
      // The room's own record of the message is the person's words alone.
      expect(messagesOf(timeline, third, 'user')).toEqual(['which word was it?'])
    },
  )

  it.each([
    {
      agent: 'Codex',
      agentId: CODEX_AGENT_ID,
      step: { type: 'exec', command: 'touch denied-attempt.txt' } as const,
    },
    {
      agent: 'an ACP agent',
      agentId: ACP_AGENT_ID,
      step: { type: 'patch', patch: addFilePatch('denied-attempt.txt', 'never\n') } as const,
    },
  ])(
    'a retry of a denied turn of $agent starts a new session with the history before it, and none of the denied attempt',
    { timeout: AGENT_WAIT_MS * 3 },
    async ({ agentId, step }) => {
      const roomId = await agentRoom(bed.runtime, agentId)
      bed.runtime.model.script([{ type: 'reply', text: 'hello to you' }])
      const greeting = await send(bed.runtime.harness, roomId, 'hello')
      expect((await turnEnded(bed.runtime, roomId, greeting)).turn.status).toBe('done')

      bed.runtime.model.script([step, { type: 'reply', text: 'it was refused' }])
      const { turnId, view } = await askedApproval(bed.runtime, roomId, 'make the marker file')
      expect((await decide(bed.runtime.harness, view, 'deny')).status).toBe(200)
      await turnEnded(bed.runtime, roomId, turnId)

      bed.runtime.model.script([{ type: 'reply', text: 'trying afresh' }])
      const before = bed.runtime.model.requests.length
      const again = await retry(turnId)
      expect((await turnEnded(bed.runtime, roomId, again)).turn.status).toBe('done')
      const told = toldFrom(before)
      expect(told).toContain('person> hello')
      expect(told.split('\\n')).toContainEqual(expect.stringMatching(AGENT_GREETING))
      expect(told).toContain(`${HISTORY_CLOSING}\\n\\nmake the marker file`)
      // A live thread would have sent the model the denied request, the
      // agent's note that the person rejected it, and the reply after it.
      expect(told).not.toContain('denied-attempt.txt')
      expect(told).not.toContain('rejected by user')
      expect(told).not.toContain('it was refused')
      expect(existsSync(inWorkspace('denied-attempt.txt'))).toBe(false)
    },
  )
})
